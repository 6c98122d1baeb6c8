"""How much duplicate deals shrink the noise of a heads-up win rate, measured on real bots.

Two sample bots (default: strength_bot, the hero, against call_bot, which calls everything and
so loses steadily to value bets) play heads-up no-limit through the real dealer (DealerServer +
Match, real bot processes over gRPC), the same number of hands twice per repetition:

* plain: every hand on fresh cards (``plan_tables(duplicate=False)``);
* duplicate: every deal played twice with the seats swapped (``plan_tables(duplicate=True)``),
  the two hands of a deal paired into one sample by ``dealer.stats.standings.StandingSums``.

For each it prints the hero's mean and the standard error of the per-hand mean in big blinds per
hand (the same grouped estimator as the standings), then the ratio of the two standard errors
and the hands saving (the ratio squared: how many times more plain hands give the same error).
Both matches of a repetition run at once on one dealer server, on different deals; each
repetition uses its own seed; the last lines are medians over the repetitions.

Run: ``python benchmarks/duplicate.py [--hands 1000] [--reps 5] [--hero strength] [--villain call]``.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from dealer.config.league_file import game_config
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.stats.records import MatchResult
from dealer.stats.standings import StandingSums

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "sample_bots" / "python"
TIME = {"per_action_ms": 5000, "bank_ms": 120000, "grace_ms": 200, "startup_ms": 30000}


@dataclass(frozen=True)
class Measure:
    """The hero's win rate and the standard error of its per-hand mean, in bb/hand."""

    hands: int
    samples: int
    mean: float
    stderr: float
    faults: int


def command(bot: str) -> tuple[str, ...]:
    if bot == "node":
        node = shutil.which("node")
        if node is None:
            raise SystemExit("the node bot needs `node` on PATH")
        return (node, str(ROOT / "sample_bots" / "node" / "bot.js"))
    return (sys.executable, str(BOTS / f"{bot}_bot.py"))


def measure(result: MatchResult, hero: str) -> Measure:
    """Per duplicate group (a deal and its seat swap) or per hand (plain): the hero's bb/hand."""
    folded = StandingSums()
    folded.add(result)
    sums = folded.sums[hero]
    estimate = sums.bb_per_100(1).scaled(1 / 100)  # bb/100 -> bb/hand
    faults = sum(sum(reasons.values()) for reasons in result.faults.values())
    return Measure(sums.hands, sums.groups, estimate.mean, estimate.stderr, faults)


async def play_pair(hero: str, villain: str, hands: int, tables: int, seed: str, out: Path) -> tuple[Measure, Measure]:
    """Play the plain and the duplicate match of one repetition at once; return (plain, duplicate)."""
    names = [hero, villain]
    entries = {hero: MatchBot(hero, command(hero)), villain: MatchBot(villain, command(villain))}
    game = game_config(time=TIME)
    plain = MatchPlan(
        "plain",
        plan_tables(names, duplicate=False, tables=tables, prefix="plain"),
        game,
        hands=hands // tables,
        seed=seed,
    )
    dup = MatchPlan(
        "duplicate",
        plan_tables(names, duplicate=True, tables=tables, prefix="dup"),
        game,
        hands=hands // (2 * tables),
        seed=seed,
    )
    async with DealerServer("127.0.0.1:0") as server:
        results = await asyncio.gather(
            Match(plain, server, entries, out=out / "plain", base=ROOT).run(),
            Match(dup, server, entries, out=out / "duplicate", base=ROOT).run(),
        )
    return measure(results[0], hero), measure(results[1], hero)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands per match (both modes), per repetition")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (each with its own seed)")
    parser.add_argument("--tables", type=int, default=4, help="tables played at once in each match")
    parser.add_argument("--hero", default="strength", help="sample bot measured: strength, random, call, raise or node")
    parser.add_argument("--villain", default="call", help="its opponent")
    parser.add_argument("--seed", default="duplicate-benchmark")
    args = parser.parse_args()
    if args.hands < 2 * args.tables:
        parser.error("--hands must be at least twice --tables")

    print(
        f"{args.hero} vs {args.villain}, heads-up no-limit 50/100, 200 bb stacks, "
        f"{args.hands} hands per mode per repetition, {args.tables} tables at once"
    )
    print(
        f"{'rep':>3}  {'plain bb/hand':>16}  {'SE plain':>8}  {'dup bb/hand':>16}  {'SE dup':>8}  "
        f"{'SE ratio':>8}  {'hands saving':>12}  {'s':>5}"
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="duplicate-bench-") as tmp:
        for rep in range(args.reps):
            started = time.monotonic()
            plain, dup = asyncio.run(
                play_pair(
                    args.hero, args.villain, args.hands, args.tables, f"{args.seed}/{rep}", Path(tmp) / f"rep{rep}"
                )
            )
            elapsed = time.monotonic() - started
            ratio = plain.stderr / dup.stderr if dup.stderr else float("inf")  # a perfect mirror: 0
            rows.append((plain, dup, ratio))
            warn = f"  ({plain.faults + dup.faults} faults!)" if plain.faults or dup.faults else ""
            print(
                f"{rep:>3}  {plain.mean:+8.3f} ({plain.hands:>5})  {plain.stderr:8.4f}  "
                f"{dup.mean:+8.3f} ({dup.hands:>5})  {dup.stderr:8.4f}  {ratio:8.2f}  {ratio**2:11.2f}x  "
                f"{elapsed:5.0f}{warn}",
                flush=True,
            )
    median = statistics.median
    se_plain = median(p.stderr for p, _, _ in rows)
    se_dup = median(d.stderr for _, d, _ in rows)
    ratio = median(r for _, _, r in rows)
    print(
        f"median SE of the per-hand mean: plain {se_plain:.4f} bb/hand, duplicate {se_dup:.4f} bb/hand "
        f"(win rate: plain {median(p.mean for p, _, _ in rows):+.3f}, "
        f"duplicate {median(d.mean for _, d, _ in rows):+.3f})"
    )
    print(f"median SE ratio plain/duplicate: {ratio:.2f}; hands saving (ratio squared): {ratio**2:.2f}x")


if __name__ == "__main__":
    main()
