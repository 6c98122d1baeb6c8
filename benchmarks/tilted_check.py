"""Is `dealer compare --deals tilted` unbiased in practice, not only on the enumerated tree?

Two checks (issue 35: the tilted pools' weighted edges sat below the shuffled pools' on 6 of 9 pools):

* ``--keys N`` (the sampler, no bots): for N real deal keys, the deck ``tilted_deck`` deals and its weight
  w = p / q. For any function f of the cards, ``w f(turn, river) - E_p[f | holes, flop]`` has mean zero if
  the turn and river are drawn with the probabilities they are weighted by: checked for f = 1 (the
  weight's mean), the proposal's top score, a score of 8 or more, and seat 0's hand beating seat 1's.
* ``--pools DIR SEED [SEED ...]`` (the bots' results): the pools of ``compare_verdicts.py --cache DIR``
  (``PAIR-DEALS-SEED.pickle`` and its ``-tilted`` twin). A seed's two pools deal the same hole cards and
  flops (the same deal keys; only the turn and river are tilted), so per deal ``w X_tilted - X_plain`` is
  a paired difference whose mean is zero if tilted deals are unbiased; printed per pool and combined
  (Stouffer).

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
from dealer.stats.tilted_deals import PROPOSAL, RIVER, TURN, tilted_deck


def _line(name: str, values: list[float]) -> float:
    """Print the mean of ``values`` with its standard error; return its z."""
    mean, se = statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))
    print(f"{name:34} {mean:+9.5f} +- {se:.5f}  z {mean / se:+.2f}")
    return mean / se


def sampler(keys: int) -> None:
    """The sampler check over ``keys`` deal keys (module doc)."""
    terms: dict[str, list[float]] = {"weight - 1": [], "top score": [], "score of 8 or more": [], "seat 0 wins": []}
    for h in range(keys):
        deck, weight = tilted_deck(deal_key("tilted-check", f"m/{h % 4}", h // 4))
        holes = ((deck[0], deck[2]), (deck[1], deck[3]))
        flop = list(deck[5:8])
        pairs, scores = PROPOSAL.runouts(holes, flop)
        drawn = pairs.index((min(deck[TURN], deck[RIVER]), max(deck[TURN], deck[RIVER])))
        w, n, top = float(weight), len(pairs), max(max(row) for row in PROPOSAL.scores)
        boards = [[*flop, *pair] for pair in pairs]
        values = {
            "weight - 1": [1.0] * n,
            "top score": [float(g == top) for g in scores],
            "score of 8 or more": [float(g >= 8) for g in scores],
            "seat 0 wins": [float(evaluate([*holes[0], *b]) > evaluate([*holes[1], *b])) for b in boards],
        }
        for name, v in values.items():
            terms[name].append(w * v[drawn] - math.fsum(v) / n)
    print(f"the sampler over {keys:,} deal keys: w f(drawn) - E_p[f], per f")
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
