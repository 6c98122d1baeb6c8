"""The dealer's peak memory against the length of a match, with its throughput beside it.

Each length is played in a fresh subprocess (so no run inherits another's heap): a heads-up
no-limit match over ``--tables`` tables played exactly as ``benchmarks/dealer_core.py`` plays it
(engine, encoding, sessions, clocks, hand histories written to disk, per-hand results folded
into the match's tally), with the bots' answers given in the same process so that the figure is
the dealer's own memory. The parent reads the child's peak resident set (``ru_maxrss`` from
``wait4``). Flat memory means the same peak at every length.

With ``--baseline DIR`` (a checkout of earlier code, its compiled modules built) it then plays
the end-to-end many-table match of ``benchmarks/e2e.py`` (real call-bot processes over gRPC)
with this code and with DIR's, alternately, ``--repeats`` times each, and prints the hands/s of
both and their ratio: what a change costs in throughput, measured in the same run.

    python benchmarks/memory.py [--hands 100000,1000000] [--tables 256] [--slow]
                                [--baseline DIR] [--e2e-hands 64000] [--repeats 3]

``--slow`` adds 10,000,000 hands (about 25 minutes on two cores).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


async def child(hands: int, tables: int) -> None:
    """Play one match and print its hands and wall seconds (the parent measures the memory)."""
    sys.path.insert(0, str(HERE))
    from dealer_core import play

    from dealer.connect.server import DealerServer

    server = DealerServer("127.0.0.1:0", local_socket=False)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        _, played, _ = await play(server, Path(tmp), hands, tables, False)
        print(played, time.perf_counter() - started)


async def e2e_child(hands: int, tables: int) -> None:
    """Play one end-to-end match with the code in the working folder (its own ``benchmarks/e2e.py``);
    print whether its engine is compiled, the hands and the seconds."""
    from e2e import play

    import dealer.engine.rules
    from dealer.connect.server import DealerServer

    server = DealerServer("127.0.0.1:0")
    await server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            seconds, played, _ = await play(server, Path(tmp), hands, tables)
    finally:
        await server.stop()
    print(not dealer.engine.rules.__file__.endswith(".py"), played, seconds)


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


def e2e_rate(code: Path, hands: int, tables: int) -> float:
    """Hands/s of one end-to-end many-table match played by the dealer code in ``code``."""
    output = subprocess.run(
        [sys.executable, __file__, "--e2e-child", str(hands), "--tables", str(tables)],
        cwd=code,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    compiled, played, seconds = output[-3:]
    if compiled != "True":
        raise SystemExit(
            f"error: {code}: its dealer modules are not compiled (build them, e.g. python setup.py "
            "build_ext --inplace there): the comparison would measure the build, not the change"
        )
    return int(played) / float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", default="100000,1000000", help="match lengths, comma-separated")
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--slow", action="store_true", help="also 10,000,000 hands")
    parser.add_argument("--baseline", type=Path, help="a checkout of earlier code to compare e2e throughput with")
    parser.add_argument("--e2e-hands", type=int, default=64000, help="hands per e2e run")
    parser.add_argument("--repeats", type=int, default=3, help="e2e runs of each code")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--e2e-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child or args.e2e_child:
        if args.e2e_child:  # the code of the working folder, not this file's
            sys.path[:1] = [os.getcwd(), os.path.join(os.getcwd(), "benchmarks")]
        from dealer.runtime import tune_gc

        tune_gc()  # as the ``dealer`` command does
        asyncio.run(child(args.child, args.tables) if args.child else e2e_child(args.e2e_child, args.tables))
        return
    if args.baseline is not None and not (args.baseline / "dealer" / "league" / "match.py").is_file():
        raise SystemExit(f"error: --baseline {args.baseline}: not a checkout of the dealer (no dealer/league/match.py)")
    lengths = [int(h) for h in args.hands.split(",") if h] + ([10_000_000] if args.slow else [])
    rows = []
    for hands in lengths:
        played, seconds, peak = measure(hands, args.tables)
        rows.append([f"{played:,}", f"{peak:,.0f}", f"{played / seconds:,.0f}"])
        print(f"{played:,} hands: peak RSS {peak:,.0f} MB, {played / seconds:,.0f} hands/s", file=sys.stderr)
    if rows:
        print(
            tabulate(
                rows, headers=[f"heads-up, {args.tables} tables, in-process answers: hands", "peak RSS (MB)", "hands/s"]
            )
        )
    if args.baseline is None:
        return
    rates: dict[str, list[float]] = {"this code": [], "baseline": []}
    for _ in range(args.repeats):  # alternately, so that the machine's load falls on both alike
        rates["this code"].append(e2e_rate(ROOT, args.e2e_hands, args.tables))
        rates["baseline"].append(e2e_rate(args.baseline.resolve(), args.e2e_hands, args.tables))
    new, old = (statistics.median(rates[k]) for k in ("this code", "baseline"))
    print(
        tabulate(
            [[k, f"{statistics.median(v):,.0f}", ", ".join(f"{x:,.0f}" for x in v)] for k, v in rates.items()],
            headers=[
                f"e2e, call bots over gRPC, {args.tables} tables, {args.e2e_hands:,} hands",
                "median hands/s",
                "runs",
            ],
        )
    )
    print(f"e2e many-table throughput, this code / baseline ({args.baseline}): {new / old:.3f}")


if __name__ == "__main__":
    main()
