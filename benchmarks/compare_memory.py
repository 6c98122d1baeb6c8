"""A comparison's peak memory against its length: ``dealer compare`` and a league's compare match.

Each run is played in a fresh subprocess (so no run inherits another's heap): a heads-up
duplicate comparison of two versions over ``--tables`` deal sets (two tables each), played
through the comparison's own match exactly as ``dealer compare`` plays it (``--luck``: every
hand's luck measured, ``dealer.stats.aivat``, as ``dealer compare`` does, several times the CPU a hand;
without it the luck-corrected figures are the all-in adjusted ones, and the memory the same), with
the bots' answers (check/call) given in the same
process as ``benchmarks/memory.py`` does, so that the figure is the dealer's own memory. Two
ways: ``compare`` (``dealer compare --until-significant``: its sequential test looks every
``--batch`` paired deals; with equal versions it never decides, so every hand is played) and
``league`` (a league's compare match: played in full, then its comparison read from the result).
The parent reads the child's peak resident set (``ru_maxrss`` from ``wait4``).

With ``--baseline DIR`` (a checkout of earlier code, its compiled modules built) the same runs
are made with DIR's code too, alternately, and the table gives both and their ratio.

    python benchmarks/compare_memory.py [--hands 100000,1000000] [--tables 4] [--baseline DIR]
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
from typing import Any

from tabulate import tabulate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODES = ("compare", "league")


async def child(hands: int, tables: int, mode: str, batch: int, luck: bool) -> None:
    """Play one comparison with the dealer code on ``sys.path`` (this checkout's or a baseline's);
    print the hands, the paired deals and the wall seconds (the parent measures the memory)."""
    from dealer.config.league_file import game_config
    from dealer.league.match import Match, MatchPlan, instance_label
    from dealer.stats import compare

    try:
        from dealer.league.match import MatchBot
    except ImportError:  # a baseline from before the rename
        from dealer.league.match import BotEntry as MatchBot  # type: ignore[attr-defined,no-redef]
    from dealer.connect.server import BotSession, DealerServer
    from poker.v1 import dealer_pb2 as pb

    def connection_side(session: BotSession) -> Any:
        """The session's link, or the session itself in a baseline from before it had one."""
        return getattr(session, "link", session)

    async def answer(session: BotSession) -> None:
        """Stand in for a bot (as ``benchmarks/dealer_core.py`` does): answer each batch with check/call."""
        loop = asyncio.get_running_loop()
        link = connection_side(session)
        while session.live:
            await link._wake.wait()
            requests = [request_id for request_id, _ in link._outbox.requests]
            link._take_batch(loop.time())
            if requests:
                replies = [
                    pb.ActionReply(table=link._clocks.open[r].table, request_id=r, type=pb.ACTION_TYPE_CHECK_CALL)
                    for r in requests
                ]
                link._receive(pb.BotMessage(actions=replies))

    server = DealerServer("127.0.0.1:0", local_socket=False)
    game = game_config(blinds=(50, 100), stack=20000, time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 20000})
    try:  # where the seats are planned (scheduler.py), or in the code before, compare.py
        from dealer.engine.scheduler import compare_tables
    except ImportError:
        compare_tables = compare.compare_tables
    specs = compare_tables("new", "old", [], tables)
    plan = MatchPlan(
        "compare", specs, game, hands // len(specs), seed=1, sealed=False, luck=luck, strategies=("new", "old")
    )
    settings = compare.Settings(until_significant=mode == "compare")
    sessions = {instance_label(name, 0): server.session(name) for name in ("new", "old")}
    for session in sessions.values():
        connection_side(session)._attach(object(), "in-process")  # live, with no stream: answered here
    pumps = [asyncio.create_task(answer(s)) for s in sessions.values()]
    bots = {s.name: MatchBot(s.name, token=s.token) for s in sessions.values()}
    common: dict = {"sessions": sessions, "base": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        try:
            from dealer.league import runner
        except (
            ImportError
        ):  # a baseline from before dealer.league.runner: its comparing match is in dealer.stats.compare
            runner = compare
        if hasattr(runner, "comparing_match") or hasattr(runner, "ComparingMatch"):  # one compare path
            test = compare.sequential_test(settings) if mode == "compare" else None
            pairing = compare.Pairing.looking("new", "old", settings.estimator, batch, tables)
            options = {"out": Path(tmp), "pairing": pairing, "test": test, "keep": mode == "league", **common}
            if hasattr(runner, "comparing_match"):  # this code: a Match that pairs its records
                match, paired = runner.comparing_match(plan, server, bots, **options)
                result = await runner.play_paired(match, paired)
            else:  # a baseline with the comparing match as a subclass
                match = runner.ComparingMatch(plan, server, bots, **options)
                result = await match.run()
                paired = match.paired
            if mode == "compare":
                comparison = compare.summarize(compare.finish(paired, test), "new", "old", settings, (), test)
            else:
                comparison = compare.compare_results([result], "new", "old", settings, (), batch)
        elif mode == "compare":  # the code before: its sequential match keeps a sample per deal
            test = compare.sequential_test(settings)
            old = compare._SequentialMatch(
                plan,
                server,
                bots,
                out=Path(tmp),
                new="new",
                old="old",
                test=test,
                batch=batch,
                settings=settings,
                **common,
            )
            result = await old.run()
            comparison = compare.summarize(old.fed, "new", "old", settings, (), test)
        else:  # ... and a league's compare match keeps every hand's record
            result = await Match(plan, server, bots, out=Path(tmp), records=True, **common).run()
            comparison = compare.compare_results([result], "new", "old", settings)
        seconds = time.perf_counter() - started
    for session in sessions.values():
        connection_side(session)._detach()
    await asyncio.gather(*pumps)
    print(result.hands, comparison.as_json()["deals"], seconds)


def measure(code: Path, hands: int, tables: int, mode: str, batch: int, luck: bool) -> tuple[int, int, float, float]:
    """One run in a subprocess with the code in ``code``; return (hands, deals, seconds, peak RSS in MB)."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(hands), "--tables", str(tables)]
    argv += ["--mode", mode, "--batch", str(batch), *(["--luck"] if luck else [])]
    process = subprocess.Popen(argv, cwd=code, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the {hands}-hand {mode} run of {code} failed")
    played, deals, seconds = output.split()[-3:]
    return int(played), int(deals), float(seconds), usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", default="100000,1000000", help="comparison lengths, comma-separated")
    parser.add_argument("--tables", type=int, default=4, help="deal sets played at once (dealer compare --tables)")
    parser.add_argument("--batch", type=int, default=100, help="paired deals between two looks of the test")
    parser.add_argument("--modes", default=",".join(MODES), help="compare, league or both")
    parser.add_argument("--luck", action="store_true", help="measure every hand's luck (dealer compare does)")
    parser.add_argument("--baseline", type=Path, help="a checkout of earlier code to measure beside this one")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path[:1] = [os.getcwd()]  # the code of the working folder (this checkout or the baseline)
        from dealer.runtime import tune_gc

        tune_gc()  # as the ``dealer`` command does
        asyncio.run(child(args.child, args.tables, args.mode, args.batch, args.luck))
        return
    if args.baseline is not None and not (args.baseline / "dealer" / "stats" / "compare.py").is_file():
        raise SystemExit(
            f"error: --baseline {args.baseline}: not a checkout of the dealer (no dealer/stats/compare.py)"
        )
    codes = {"this code": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    rows = []
    for hands in (int(h) for h in args.hands.split(",") if h):
        for mode in args.modes.split(","):
            peaks = {}
            for name, code in codes.items():
                played, deals, seconds, peak = measure(code, hands, args.tables, mode, args.batch, args.luck)
                peaks[name] = peak
                rows.append([mode, name, f"{played:,}", f"{deals:,}", f"{peak:,.0f}", f"{played / seconds:,.0f}"])
                print(f"{mode}, {name}: {played:,} hands, peak RSS {peak:,.0f} MB", file=sys.stderr)
            if len(peaks) == 2:
                rows.append([mode, "this code / baseline", "", "", f"{peaks['this code'] / peaks['baseline']:.3f}", ""])
    print(
        tabulate(
            rows,
            headers=[
                f"heads-up duplicate, {args.tables} deal sets{', luck' if args.luck else ''}, in-process answers",
                "code",
                "hands",
                "paired deals",
                "peak RSS (MB)",
                "hands/s",
            ],
        )
    )


if __name__ == "__main__":
    main()
