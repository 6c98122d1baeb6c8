"""What tilted deals would leave of ``full``'s variance, computed offline on pools dealt by the shuffle.

Run ``python benchmarks/tilt_study.py --cache DIR --seeds tiltdev60,tiltdev61 --deals 120000 --fit``. The
pools are ``compare_verdicts.py``'s light ones (``PAIR-DEALS-SEED-light.pickle``: no baseline's tables,
no luck features), played here where the cache has none (about 3.5 minutes a pool of 120,000 deals). For
a sample of deals drawn under the shuffle ``p``, the variance of the weighted estimator under any proposal
``q`` is known without playing anything: ``Var_q(w X) = E_p[w X^2] - mu^2``, ``w = p / q`` of each deal's
own flop, turn and river (``dealer.stats.tilted_deals``: its cards re-dealt from the pool's seed, the
proposal's masses of every other flop and run-out counted). Only the deals that did not cancel exactly
(``X != 0``) are weighed: the others add nothing to either side.

Printed per pool: ``full``'s variance per hand as a share of plain raw play's, and the share of it left by
the run-outs' stage alone (the flop the shuffle's: the tilt before the flop was tilted too) and by the
proposal with both stages. ``--fit``: the flop scores that would leave least on each pool, given the
run-outs' stage (``g`` of a flop class proportional to the square root of ``E_p[w2 X^2 | class]`` over the
class's share of flops), their shapes' geometric mean over the pools, and that mean's share left on each
pool. ``FLOP_SCORES`` were chosen this way on seeds ``tiltdev60`` and ``tiltdev61`` (120,000 deals a pair)
and rounded; the run-out scores (``SCORES``) were fitted alike on seed ``verdicts36-dev``.
"""

from __future__ import annotations

import argparse
import math
import statistics
from fractions import Fraction
from pathlib import Path

from compare_verdicts import REFERENCE, plain_samples, pool

from dealer.engine.cards import shuffled_deck
from dealer.league.seeds import deal_key
from dealer.stats.paired import paired_samples
from dealer.stats.tilted_deals import FLOP, HEADS_UP_CARDS, PROPOSAL, RIVER, TURN, Proposal, flop_level

PULL = 30  # deals: how far a class's fitted score is pulled towards the pool's mean
SHARES_FROM = 3000  # deals of a pool whose holes give the classes' shares of flops (their mean under p)
CLASSES = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))  # the flop scores' cells: the two hands' levels
Deal = tuple[float, Fraction, int, list[float]]  # X, the run-outs' weight, the flop's class, the classes' shares


def flop_stage(deck: list[int]) -> tuple[int, list[float]]:
    """The flop's stage of a deal: its flop's class (an index of ``CLASSES``) and each class's share of the
    flops its holes leave (under the shuffle), counted by rank as the proposal counts them."""
    holes = ((deck[0], deck[2]), (deck[1], deck[3]))
    groups = PROPOSAL.flop_groups(holes)
    flops = sum(count for _, count, _ in groups)
    shares = [0.0] * len(CLASSES)
    for ranks, count, _ in groups:
        shares[CLASSES.index(class_of(holes, ranks))] += count / flops
    low, middle, high = sorted(deck[i] // 4 for i in FLOP)
    return CLASSES.index(class_of(holes, (low, middle, high))), shares


def class_of(holes: tuple[tuple[int, int], tuple[int, int]], ranks: tuple[int, int, int]) -> tuple[int, int]:
    """The two hands' flop levels, lower first: the cell of the flop scores a flop reads."""
    a, b = (flop_level((hole[0] // 4, hole[1] // 4), ranks) for hole in holes)
    return min(a, b), max(a, b)


def runout_weight(deck: list[int], proposal: Proposal) -> Fraction:
    """``p / q`` of a deal's own turn and river under ``proposal``, given its flop."""
    holes = ((deck[0], deck[2]), (deck[1], deck[3]))
    pairs, scores = proposal.runouts(holes, deck[5:8])
    turn, river = deck[TURN], deck[RIVER]
    return proposal.weight(scores, pairs.index((min(turn, river), max(turn, river))))


def read(cache: Path, seed: str, pair: str, deals: int) -> tuple[float, float, float, int, list[Deal], list[float]]:
    """A pool's ``full`` mean, mean square and share of plain play's variance per hand, its deals' count, for
    each deal that did not cancel: X, its run-outs' weight, its flop's class and the classes' shares, and the
    classes' shares of flops over the pool's first ``SHARES_FROM`` deals (cancelled or not)."""
    result = pool(cache, pair, deals, seed, "plain", light=True)
    if any(result.faults.values()):
        raise SystemExit(f"{seed} {pair}: a bot faulted in the pool ({result.faults}): its figures mean nothing")
    samples = paired_samples([result], "new", "old", REFERENCE)
    base_var = statistics.variance([s.value("raw") for s in plain_samples(result)])
    xs = [s.value("full") for s in samples]
    mu, square = statistics.fmean(xs), statistics.fmean(x * x for x in xs)
    kept: list[Deal] = []
    everywhere = [0.0] * len(CLASSES)
    for k, (s, x) in enumerate(zip(samples, xs, strict=True)):
        if x or k < SHARES_FROM:
            deck = shuffled_deck(deal_key(f"{seed}/{pair}", s.key[1], s.key[2]), HEADS_UP_CARDS)
            index, shares = flop_stage(deck)
            if x:
                kept.append((x, runout_weight(deck, PROPOSAL), index, shares))
            if k < SHARES_FROM:
                everywhere = [a + b / min(SHARES_FROM, len(xs)) for a, b in zip(everywhere, shares, strict=True)]
    return mu, square, (square - mu * mu) * samples[0].hands / base_var, len(xs), kept, everywhere


def left(mu: float, square: float, n: int, kept: list[Deal], scores: list[float] | None, uniform: Fraction) -> float:
    """The share of ``full``'s variance the proposal leaves: the run-outs' stage alone (``scores`` None), or
    with the flop's stage scoring each class ``scores[class]`` and ``uniform`` of it drawn as the shuffle."""
    u = float(uniform)
    total = 0.0
    for x, w2, index, shares in kept:
        w1 = 1.0
        if scores is not None:
            mean = sum(share * g for share, g in zip(shares, scores, strict=True))
            w1 = 1 / ((1 - u) * scores[index] / mean + u)
        total += w1 * float(w2) * x * x
    return (total / n - mu * mu) / (square - mu * mu)


def fitted(n: int, kept: list[Deal], shares: list[float]) -> list[float]:
    """The flop scores that leave least given the run-outs' stage, up to a factor: the square root of each
    class's ``E_p[w2 X^2 | class]`` (its sum over the pool's deals over the deals the class's share makes),
    pulled towards the pool's mean by ``PULL`` deals' worth (no class is 0 where a small pool has none)."""
    sums = [0.0] * len(CLASSES)
    for x, w2, index, _ in kept:
        sums[index] += float(w2) * x * x
    mean = sum(sums) / n
    return [math.sqrt((total + PULL * mean) / (n * share + PULL)) for total, share in zip(sums, shares, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="the pools' folder (played into it where missing)")
    parser.add_argument("--seeds", default="tiltdev60,tiltdev61")
    parser.add_argument("--pairs", default="leaky,loose,mixed")
    parser.add_argument("--deals", type=int, default=120_000)
    parser.add_argument("--fit", action="store_true", help="fit the flop scores on the pools and print them")
    args = parser.parse_args()
    flop_scores = [float(PROPOSAL.flop_scores[lo][hi - lo]) for lo, hi in CLASSES]
    pools, shares = [], []
    for seed in args.seeds.split(","):
        for pair in args.pairs.split(","):
            mu, square, full_left, n, kept, everywhere = read(args.cache, seed, pair, args.deals)
            pools.append((mu, square, n, kept))
            shares.append(everywhere)
            runouts = left(mu, square, n, kept, None, PROPOSAL.flop_uniform)
            both = left(mu, square, n, kept, flop_scores, PROPOSAL.flop_uniform)
            print(
                f"{seed:18} {pair:6} {n:7} deals ({len(kept)} did not cancel): full leaves {full_left:6.2%} of plain "
                f"play's variance per hand; tilted, run-outs only {runouts:5.3f} of full's ({runouts * full_left:6.2%} "
                f"of plain's), flop and run-outs {both:5.3f} ({both * full_left:6.2%})"
            )
    if args.fit:
        shapes = []
        for (_, _, n, kept), everywhere in zip(pools, shares, strict=True):
            g = fitted(n, kept, everywhere)
            scale = math.exp(statistics.fmean(math.log(v) for v in g))
            shapes.append([v / scale for v in g])
        mean = [math.exp(statistics.fmean(math.log(s[k]) for s in shapes)) for k in range(len(CLASSES))]
        print("flop scores by class " + ", ".join(f"{lo}{hi}" for lo, hi in CLASSES))
        for shape in shapes:
            print("  fitted on a pool:  " + " ".join(f"{v:5.2f}" for v in shape))
        print(
            "  geometric mean:    "
            + " ".join(f"{v:5.2f}" for v in mean)
            + "; scaled to FLOP_SCORES' sum "
            + " ".join(f"{v * sum(flop_scores) / sum(mean):.1f}" for v in mean)
            + " (FLOP_SCORES: "
            + " ".join(f"{v:g}" for v in flop_scores)
            + ")"
        )
        print(
            "  the mean's share of full's variance left per pool: "
            + " ".join(f"{left(mu, sq, n, kept, mean, PROPOSAL.flop_uniform):.3f}" for mu, sq, n, kept in pools)
        )


if __name__ == "__main__":
    main()
