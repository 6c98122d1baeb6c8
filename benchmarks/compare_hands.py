"""Hands needed for a verdict on a known edge: plain play vs duplicate vs duplicate + all-in adjustment.

Run ``python benchmarks/compare_hands.py [--deals 3000] [--reps 200]``. One pool of heads-up duplicate
deals of strength_bot (new) against a weaker sample bot (old: call_bot by default) is played for real (every hand recorded with
its actual and its all-in adjusted net). Then each repetition takes the deals in a fresh random
order and runs the sequential test of ``dealer compare`` (two SPRTs, checked after every sample)
until it decides, three ways:

* plain: only the first seating of each deal (what a non-duplicate match plays), raw chips; one
  hand per sample (the sample is new's result minus old's, twice new's result heads-up);
* duplicate: both seatings of each deal, raw chips; two hands per sample per version;
* duplicate + all-in adjusted: the same with the all-in hands scored by equity.

It prints the median hands to a verdict, the verdicts, and the ratios against plain play, with
the variance per hand (whose ratio is what the hand counts should follow). Replaying one pool in
random orders is a resampling estimate; the pool is much larger than a test needs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dealer.compare import Sample, SequentialTest, Settings, paired_samples
from dealer.config import game_config
from dealer.match import BotEntry, Match, MatchPlan, plan_tables
from dealer.server import DealerServer

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "sample_bots" / "python"


async def play_pool(deals: int, tables: int, seed: str, out: Path, weaker: str):
    new = BotEntry("new", (sys.executable, str(BOTS / "strength_bot.py")))
    old = BotEntry("old", (sys.executable, str(BOTS / f"{weaker}_bot.py")))
    plan = MatchPlan("pool", plan_tables(["new", "old"], duplicate=True, tables=tables), game_config(),
                     hands=deals // tables, seed=seed)
    server = DealerServer("127.0.0.1:0")
    await server.start()
    try:
        return await Match(plan, server, {"new": new, "old": old}, out=out, base=ROOT).run()
    finally:
        await server.stop()


def plain_samples(result) -> list[Sample]:
    """The first seating only (rotation 0: new in seat 0): one hand per sample."""
    first_tables = {}
    for record in result.hands:
        first_tables.setdefault(record.deal_set, record.table)  # tables are numbered in plan order
    out = []
    for r in result.hands:
        if r.table == min(t.table for t in result.hands if t.deal_set == r.deal_set):
            d = (r.net["new"] - r.net["old"]) / r.big_blind
            out.append(Sample(("pool", r.deal_set, r.hand), d, d, 1, 0))
    return out


def hands_to_verdict(samples: list[Sample], adjusted: bool, settings: Settings, rng: random.Random):
    order = samples[:]
    rng.shuffle(order)
    test = SequentialTest(settings)
    for k, s in enumerate(order, 1):
        test.update([s.value(adjusted)])
        verdict = test.verdict()
        if verdict is not None:
            return verdict, k * s.hands
    return test.verdict(final=True), len(order) * order[0].hands


def variance_per_hand(samples: list[Sample], adjusted: bool) -> float:
    """Variance of a sample divided by hands per sample (so ratios compare per hand)."""
    values = [s.value(adjusted) for s in samples]
    return statistics.variance(values) * samples[0].hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000, help="duplicate deals in the pool (2 hands each)")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--bound", type=float, default=300.0, help="better_than = -worse_than, bb/100")
    parser.add_argument("--seed", default="compare-hands")
    parser.add_argument("--weaker", default="call", help="the old bot: call, random or raise (sample_bots/python)")
    parser.add_argument("--min-samples", type=int, default=30, help="samples before the SPRTs may decide")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        result = asyncio.run(play_pool(args.deals, args.tables, args.seed, Path(out), args.weaker))
    played = time.perf_counter() - started
    duplicate = paired_samples([result], "new", "old")
    plain = plain_samples(result)
    settings = Settings(worse_than=-args.bound, better_than=args.bound, alpha=0.05, beta=0.05,
                        until_significant=True, min_samples=args.min_samples)
    print(f"pool: {len(result.hands)} hands ({len(duplicate)} duplicate deals) of strength_bot vs {args.weaker}_bot "
          f"in {played:.0f} s; {sum(s.all_in for s in duplicate)} hands all-in adjusted")
    print(f"edge (duplicate, adjusted): {sum(s.value(True) for s in duplicate) / len(duplicate):+.0f} bb/100 "
          f"(difference new - old); sequential bounds +-{args.bound:g}, alpha = beta = 0.05, {args.reps} orders")
    rows = []
    for label, samples, adjusted in (("plain", plain, False), ("duplicate", duplicate, False),
                                     ("duplicate + all-in adj.", duplicate, True)):
        rng = random.Random(f"{args.seed}/{label}")
        runs = [hands_to_verdict(samples, adjusted, settings, rng) for _ in range(args.reps)]
        hands = statistics.median(h for _, h in runs)
        verdicts = {v: sum(1 for w, _ in runs if w == v) for v in ("better", "not worse", "worse", "inconclusive")}
        rows.append((label, hands, statistics.mean(h for _, h in runs), variance_per_hand(samples, adjusted),
                     verdicts))
    base_hands, base_var = rows[0][1], rows[0][3]
    print(f"{'':24} {'median hands':>12} {'mean hands':>10} {'ratio':>6} {'var/hand':>10} {'var ratio':>9}  verdicts")
    for label, hands, mean, var, verdicts in rows:
        print(f"{label:24} {hands:12.0f} {mean:10.0f} {base_hands / hands:6.2f} {var:10.3g} {base_var / var:9.2f}  "
              + ", ".join(f"{k} {v}" for k, v in verdicts.items() if v))


if __name__ == "__main__":
    main()
