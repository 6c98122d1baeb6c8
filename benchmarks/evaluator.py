"""Seven-card evaluations per second: ours against PokerKit's ``StandardHighHand``.

Run ``python benchmarks/evaluator.py``. Both evaluate the same seeded random hands, PokerKit from
pre-parsed cards so that only evaluation is timed; each figure is the median of several runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence

from pokerkit import Card, StandardHighHand

from dealer.engine.cards import cards_text
from dealer.engine.evaluator import evaluate


def rate(evaluate_all: Callable[[], object], count: int, runs: int) -> float:
    """Return the median over ``runs`` timings of evaluations per second."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        evaluate_all()
        timings.append(time.perf_counter() - start)
    return count / statistics.median(timings)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50_000, help="hands per run for ours")
    parser.add_argument("--pokerkit-hands", type=int, default=2_000, help="hands per run for PokerKit")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is reported")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(args.hands)]
    parsed = [
        (list(Card.parse(cards_text(h[:2]))), list(Card.parse(cards_text(h[2:])))) for h in hands[: args.pokerkit_hands]
    ]
    from_game = StandardHighHand.from_game

    ours = rate(lambda: [evaluate(h) for h in hands], len(hands), args.runs)
    theirs = rate(lambda: [from_game(hole, board) for hole, board in parsed], len(parsed), args.runs)
    print(f"{'evaluator':<30}{'evals/s':>14}{'us/eval':>10}")
    for name, per_second in (("dealer.engine.evaluator.evaluate", ours), ("pokerkit StandardHighHand", theirs)):
        print(f"{name:<30}{per_second:>14,.0f}{1e6 / per_second:>10.3f}")
    print(f"ratio (ours / PokerKit): {ours / theirs:,.0f}x")


if __name__ == "__main__":
    main()
