"""A/A test of ``dealer compare --until-significant``: a bot against itself, many times.

Run ``python benchmarks/compare_aa.py [--runs 40] [--alpha 0.1] [--bound 100]``. Each run is a real
comparison (dealer, gRPC, bot processes) of strength_bot against a new process of the same bot
with another BOT_SEED (same program, independent Monte Carlo noise: no true difference), on fresh
deals, stopped by the sequential test or at ``--max-hands``. A verdict of "better" or "worse" is
wrong; the share of wrong verdicts should not exceed alpha beyond its binomial standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from dealer.config.league_file import game_config
from dealer.league.match import MatchBot
from dealer.league.runner import Dealing, play_comparison
from dealer.stats.compare import Settings

ROOT = Path(__file__).resolve().parents[1]
BOT = str(ROOT / "sample_bots" / "python" / "strength_bot.py")


async def one(k: int, settings: Settings, max_hands: int, out: Path):
    new = MatchBot("new", ("env", f"BOT_SEED=a{k}", sys.executable, BOT))
    old = MatchBot("old", ("env", f"BOT_SEED=b{k}", sys.executable, BOT))
    comparison = await play_comparison(
        new,
        old,
        [],
        game_config(),
        settings,
        Dealing(max_hands, deal_sets=4, seed=f"aa/{k}", batch=50),
        out=out / str(k),
        base=ROOT,
    )
    if comparison.extra.get("faults"):
        raise RuntimeError(f"run {k}: bot faults {comparison.extra['faults']}")
    return comparison


async def run_all(args, settings: Settings, out: Path):
    slots = asyncio.Semaphore(args.parallel)
    done = []

    async def guarded(k: int):
        async with slots:
            c = await one(k, settings, args.max_hands, out)
            done.append(c)
            print(
                f"run {k:3d}: {c.verdict:12} after {c.hands:5d} hands "
                f"(adjusted {c.adjusted.estimate.mean:+7.1f} bb/100)",
                flush=True,
            )
            return c

    return await asyncio.gather(*(guarded(k) for k in range(args.runs)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--bound", type=float, default=100.0, help="better_than = -worse_than (bb/100)")
    parser.add_argument("--max-hands", type=int, default=8000)
    parser.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args()
    settings = Settings(
        worse_than=-args.bound, better_than=args.bound, alpha=args.alpha, beta=args.beta, until_significant=True
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        results = asyncio.run(run_all(args, settings, Path(out)))
    verdicts = Counter(c.verdict for c in results)
    wrong = verdicts["better"] + verdicts["worse"]
    share = wrong / len(results)
    se = math.sqrt(args.alpha * (1 - args.alpha) / len(results))
    hands = sorted(c.hands for c in results)
    print(
        f"\n{len(results)} A/A runs of strength_bot (BOT_SEED a<k> vs b<k>) in {time.perf_counter() - started:.0f} s; "
        f"bounds +-{args.bound:g} bb/100, alpha {args.alpha}, beta {args.beta}, max {args.max_hands} hands"
    )
    print("verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
    print(f"median hands {hands[len(hands) // 2]}, max {hands[-1]}")
    print(
        f"wrong verdicts (better or worse): {share:.3f}  vs alpha {args.alpha} "
        f"(binomial standard error at alpha: {se:.3f}; alpha + 2 SE = {args.alpha + 2 * se:.3f}) -> "
        f"{'OK' if share <= args.alpha + 2 * se else 'EXCEEDS'}"
    )


if __name__ == "__main__":
    main()
