"""Is `dealer compare --deals tilted` unbiased in practice, not only on the enumerated tree?

Two checks (issue 35: the tilted pools' weighted edges sat below the shuffled pools' on 6 of 9 pools):

* ``--keys N`` (the sampler, no bots): for N real deal keys, the deck ``tilted_deck`` deals and the weights
  of its three stages, ``w0`` of the hole cards, ``w1`` of the flop and ``w2`` of the turn and river
  (``p / q`` each). For any function f of the holes, ``w0 f(holes) - E_p[f]`` has mean zero if the holes are
  drawn with the probability they are weighted by, for any f of the flop ``w1 f(flop) - E_p[f | holes]`` if
  the flop is, and for any f of the board ``w2 f(turn, river) - E_p[f | holes, flop]`` if the turn and river
  are: checked for f = 1 (each weight's mean, and the deal's ``w0 w1 w2``), the top scores of each stage,
  seat 0 holding a pair, the flop's class where one hand has hit and the other not, a run-out score of 8 or
  more, and seat 0's hand beating seat 1's.
* ``--pools DIR SEED [SEED ...]`` (the bots' results): the pools of ``compare_verdicts.py --cache DIR``
  (``PAIR-DEALS-SEED.pickle`` and its ``-tilted`` twin), deal key by deal key: ``w X_tilted - X_plain`` has
  mean zero if tilted deals are unbiased, the keys' differences independent; printed per pool and combined
  (Stouffer). (Before the third proposal the two pools of a key dealt the same hole cards, which made the
  differences narrower; now the holes are tilted too and the pools share the keys alone.)

    python benchmarks/tilted_check.py --keys 40000
    python benchmarks/tilted_check.py --pools /tmp/v38/cache verdicts38-eval --estimator raw
"""

from __future__ import annotations

import argparse
import math
import pickle
import statistics
from pathlib import Path

import compare_verdicts as cv  # the pools' pairs (PAIRS) and their baseline bot (REFERENCE)

from dealer.engine.evaluator import evaluate
from dealer.league.seeds import deal_key
from dealer.stats.paired import paired_samples
from dealer.stats.tilted_deals import (
    FLOP,
    HOLE_CELLS,
    HOLE_COUNTS,
    HOLE_PAIRS,
    PROPOSAL,
    RIVER,
    TURN,
    draw_flop,
    flop_level,
    hole_class,
    tilted_deck,
)


def _line(name: str, values: list[float]) -> float:
    """Print the mean of ``values`` with its standard error; return its z."""
    mean, se = statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))
    print(f"{name:34} {mean:+9.5f} +- {se:.5f}  z {mean / se:+.2f}")
    return mean / se


def hit_apart(holes: tuple[tuple[int, int], tuple[int, int]], ranks: tuple[int, int, int]) -> float:
    """1 where one hand has hit the flop (a pair or better by ranks) and the other has not, else 0."""
    a, b = (flop_level((hole[0] // 4, hole[1] // 4), ranks) for hole in holes)
    return float(min(a, b) == 0 < max(a, b))


def sampler(keys: int) -> None:
    """The sampler check over ``keys`` deal keys (module doc)."""
    terms: dict[str, list[float]] = {
        name: []
        for name in (
            "deal: w0 w1 w2 - 1",
            "holes: w0 - 1",
            "holes: a score of 7 or more",
            "holes: seat 0 holds a pair",
            "flop: w1 - 1",
            "flop: top score",
            "flop: one hand hit, the other not",
            "run-out: w2 - 1",
            "run-out: top score",
            "run-out: score of 8 or more",
            "run-out: seat 0 wins",
        )
    }
    flop_top, top = max(max(row) for row in PROPOSAL.flop_scores), max(max(row) for row in PROPOSAL.scores)
    holes_high = math.fsum(HOLE_COUNTS[i][j] for i, j in HOLE_CELLS if PROPOSAL.hole_score(i, j) >= 7) / HOLE_PAIRS
    holes_pair = math.fsum(HOLE_COUNTS[i][j] for i, j in HOLE_CELLS if i <= 1) / HOLE_PAIRS  # classes 0, 1: pairs
    for h in range(keys):
        key = deal_key("tilted-check", f"m/{h % 4}", h // 4)
        deck, weight = tilted_deck(key)
        holes = ((deck[0], deck[2]), (deck[1], deck[3]))
        flop = [deck[i] for i in FLOP]
        classes = hole_class(holes[0]), hole_class(holes[1])
        w0 = float(PROPOSAL.hole_weight(*classes))
        terms["holes: w0 - 1"].append(w0 - 1)
        terms["holes: a score of 7 or more"].append(w0 * (PROPOSAL.hole_score(*classes) >= 7) - holes_high)
        terms["holes: seat 0 holds a pair"].append(w0 * (classes[0] <= 1) - holes_pair)
        w1 = float(draw_flop(key, holes)[1])
        groups = PROPOSAL.flop_groups(holes)
        flops = sum(count for _, count, _ in groups)

        low, middle, high = sorted(c // 4 for c in flop)
        ranks = (low, middle, high)
        for name, f, mean in (
            ("flop: w1 - 1", 1.0, 1.0),
            (
                "flop: top score",
                float(PROPOSAL.flop_score(holes, ranks) == flop_top),
                math.fsum(count * (g == flop_top) for _, count, g in groups) / flops,
            ),
            (
                "flop: one hand hit, the other not",
                hit_apart(holes, ranks),
                math.fsum(count * hit_apart(holes, r) for r, count, _ in groups) / flops,
            ),
        ):
            terms[name].append(w1 * f - mean)
        pairs, scores = PROPOSAL.runouts(holes, flop)
        drawn = pairs.index((min(deck[TURN], deck[RIVER]), max(deck[TURN], deck[RIVER])))
        w2, n = float(PROPOSAL.weight(scores, drawn)), len(pairs)
        boards = [[*flop, *pair] for pair in pairs]
        by_f = {
            "run-out: w2 - 1": [1.0] * n,
            "run-out: top score": [float(g == top) for g in scores],
            "run-out: score of 8 or more": [float(g >= 8) for g in scores],
            "run-out: seat 0 wins": [float(evaluate([*holes[0], *b]) > evaluate([*holes[1], *b])) for b in boards],
        }
        for name, v in by_f.items():
            terms[name].append(w2 * v[drawn] - math.fsum(v) / n)
        terms["deal: w0 w1 w2 - 1"].append(float(weight) - 1)
        assert abs(float(weight) - w0 * w1 * w2) <= 1e-12 * w0 * w1 * w2  # the deal's weight is the stages' product
    print(f"the sampler over {keys:,} deal keys: w f(drawn) - E_p[f], per stage and f")
    for name, values in terms.items():
        _line(name, values)


def pools(cache: Path, seeds: list[str], deals: int, estimator: str) -> None:
    """The paired check of each seed's pools in ``cache`` (module doc)."""
    zs = []
    for seed in seeds:
        for pair in cv.PAIRS:
            plain = pickle.loads((cache / f"{pair}-{deals}-{seed}.pickle").read_bytes())
            tilted = pickle.loads((cache / f"{pair}-{deals}-{seed}-tilted.pickle").read_bytes())
            a = {s.key[1:]: s.value(estimator) for s in paired_samples([plain], "new", "old", cv.REFERENCE)}
            b = {s.key[1:]: s.value(estimator) for s in paired_samples([tilted], "new", "old")}
            common = sorted(a.keys() & b.keys())
            zs.append(_line(f"{seed} {pair} ({len(common)} deals)", [b[k] - a[k] for k in common]))
    combined = sum(zs) / math.sqrt(len(zs))
    print(f"tilted - plain, {estimator}, bb/100 per deal above; Stouffer's z over the pools {combined:+.2f}")


def main() -> None:
    """Run the checks asked for."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, default=0, help="deal keys for the sampler check")
    parser.add_argument("--pools", nargs="+", metavar=("DIR", "SEED"), help="a cache folder, then its seeds")
    parser.add_argument("--deals", type=int, default=6000, help="the pools' deals (their file names)")
    parser.add_argument("--estimator", default="full", help="raw, all-in, aivat or full")
    args = parser.parse_args()
    if args.keys:
        sampler(args.keys)
    if args.pools:
        pools(Path(args.pools[0]), args.pools[1:], args.deals, args.estimator)


if __name__ == "__main__":
    main()
