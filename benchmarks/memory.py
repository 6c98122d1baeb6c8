"""The dealer's peak memory against the length of a match, with its throughput beside it.

Each length is played in a fresh subprocess (so no run inherits another's heap): a heads-up
no-limit match over ``--tables`` tables played exactly as ``benchmarks/dealer_core.py`` plays it
(engine, encoding, sessions, clocks, hand histories written to disk, per-hand records), with the
bots' answers given in the same process so that the figure is the dealer's own memory. The
parent reads the child's peak resident set (``ru_maxrss`` from ``wait4``). Flat memory means
the same peak at every length.

    python benchmarks/memory.py [--hands 100000,1000000] [--tables 256] [--slow]

``--slow`` adds 10,000,000 hands (about 25 minutes on two cores).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dealer_core import play

from dealer.server import DealerServer, tune_gc


async def child(hands: int, tables: int) -> None:
    """Play one match and print its hands and wall seconds (the parent measures the memory)."""
    server = DealerServer("127.0.0.1:0", local_socket=False)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        _, played, _ = await play(server, Path(tmp), hands, tables)
        print(played, time.perf_counter() - started)


def measure(hands: int, tables: int) -> tuple[int, float, float]:
    """Run one length in a subprocess; return (hands played, seconds, peak RSS in MB)."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", str(hands), "--tables", str(tables)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"the {hands}-hand run failed with exit code {process.returncode}")
    played, seconds = output.split()
    return int(played), float(seconds), usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", default="100000,1000000", help="match lengths, comma-separated")
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--slow", action="store_true", help="also 10,000,000 hands")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tune_gc()  # as the ``dealer`` command does
        asyncio.run(child(args.child, args.tables))
        return
    lengths = [int(h) for h in args.hands.split(",")] + ([10_000_000] if args.slow else [])
    rows = []
    for hands in lengths:
        played, seconds, peak = measure(hands, args.tables)
        rows.append([f"{played:,}", f"{peak:,.0f}", f"{played / seconds:,.0f}"])
        print(f"{played:,} hands: peak RSS {peak:,.0f} MB, {played / seconds:,.0f} hands/s", file=sys.stderr)
    print(
        tabulate(
            rows, headers=[f"heads-up, {args.tables} tables, in-process answers: hands", "peak RSS (MB)", "hands/s"]
        )
    )


if __name__ == "__main__":
    main()
