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
the run-outs' stage alone (the flop the shuffle's: the tilt before the flop was tilted too), with the
flop's stage too (the tilt before the holes were tilted too), and by the proposal with all three stages.
``--fit``: the flop scores that would leave least on each pool, given the run-outs' stage (``g`` of a flop
class proportional to the square root of ``E_p[w2 X^2 | class]`` over the class's share of flops), their
shapes' geometric mean over the pools, and that mean's share left on each pool; then the hole scores alike,
given the proposal's flop and run-outs (``g`` of a cell of the two hands' classes proportional to the square
root of ``E_p[w1 w2 X^2 | cell]``, the cell's share exact: ``HOLE_COUNTS``). ``FLOP_SCORES`` and then
``HOLE_SCORES`` were chosen this way on seeds ``tiltdev60`` and ``tiltdev61`` (120,000 deals a pair) and
rounded; the run-out scores (``SCORES``) were fitted alike on seed ``verdicts36-dev``.
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
from dealer.stats.tilted_deals import (
    FLOP,
    HEADS_UP_CARDS,
    HOLE_CLASSES,
    HOLE_COUNTS,
    HOLE_PAIRS,
    PROPOSAL,
    RIVER,
    TURN,
    Proposal,
    flop_level,
    hole_class,
)

PULL = 30  # deals: how far a class's fitted score is pulled towards the pool's mean
SHARES_FROM = 3000  # deals of a pool whose holes give the classes' shares of flops (their mean under p)
CLASSES = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))  # the flop scores' cells: the two hands' levels
CELLS = tuple((lo, hi) for lo in range(HOLE_CLASSES) for hi in range(lo, HOLE_CLASSES))  # the hole scores' cells
CELL_SHARES = tuple(  # each cell's share of the pairs of hands under the shuffle, exact
    (HOLE_COUNTS[lo][hi] + (HOLE_COUNTS[hi][lo] if hi != lo else 0)) / HOLE_PAIRS for lo, hi in CELLS
)
# X, the run-outs' weight, the flop's class, the classes' shares, the holes' cell (an index of CELLS)
Deal = tuple[float, Fraction, int, list[float], int]


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


def holes_of(deck: list[int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Seat 0's and seat 1's hole cards of a heads-up deck."""
    return (deck[0], deck[2]), (deck[1], deck[3])


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
                first, second = sorted(hole_class(hole) for hole in holes_of(deck))
                kept.append((x, runout_weight(deck, PROPOSAL), index, shares, CELLS.index((first, second))))
            if k < SHARES_FROM:
                everywhere = [a + b / min(SHARES_FROM, len(xs)) for a, b in zip(everywhere, shares, strict=True)]
    return mu, square, (square - mu * mu) * samples[0].hands / base_var, len(xs), kept, everywhere


def left(
    mu: float,
    square: float,
    n: int,
    kept: list[Deal],
    scores: list[float] | None,
    uniform: Fraction,
    hole_scores: list[float] | None = None,
) -> float:
    """The share of ``full``'s variance the proposal leaves: the run-outs' stage alone (``scores`` None), or
    with the flop's stage scoring each class ``scores[class]`` and ``uniform`` of it drawn as the shuffle,
    and with the holes' stage scoring each cell ``hole_scores[cell]`` (its uniform share the proposal's)."""
    u, u0 = float(uniform), float(PROPOSAL.hole_uniform)
    hole_mean = sum(share * g for share, g in zip(CELL_SHARES, hole_scores, strict=True)) if hole_scores else 0.0
    total = 0.0
    for x, w2, index, shares, cell in kept:
        w1 = w0 = 1.0
        if scores is not None:
            mean = sum(share * g for share, g in zip(shares, scores, strict=True))
            w1 = 1 / ((1 - u) * scores[index] / mean + u)
        if hole_scores is not None:
            w0 = 1 / ((1 - u0) * hole_scores[cell] / hole_mean + u0)
        total += w0 * w1 * float(w2) * x * x
    return (total / n - mu * mu) / (square - mu * mu)


def fitted(n: int, kept: list[Deal], shares: list[float]) -> list[float]:
    """The flop scores that leave least given the run-outs' stage, up to a factor: the square root of each
    class's ``E_p[w2 X^2 | class]`` (its sum over the pool's deals over the deals the class's share makes),
    pulled towards the pool's mean by ``PULL`` deals' worth (no class is 0 where a small pool has none)."""
    sums = [0.0] * len(CLASSES)
    for x, w2, index, _, _ in kept:
        sums[index] += float(w2) * x * x
    mean = sum(sums) / n
    return [math.sqrt((total + PULL * mean) / (n * share + PULL)) for total, share in zip(sums, shares, strict=True)]


def fitted_holes(n: int, kept: list[Deal], flop_scores: list[float]) -> list[float]:
    """The hole scores that leave least given the proposal's flop and run-outs, up to a factor: the square
    root of each cell's ``E_p[w1 w2 X^2 | cell]``, pulled towards the pool's mean as ``fitted`` does."""
    u = float(PROPOSAL.flop_uniform)
    sums = [0.0] * len(CELLS)
    for x, w2, index, shares, cell in kept:
        mean = sum(share * g for share, g in zip(shares, flop_scores, strict=True))
        sums[cell] += float(w2) * x * x / ((1 - u) * flop_scores[index] / mean + u)
    mean = sum(sums) / n
    cells = zip(sums, CELL_SHARES, strict=True)
    return [math.sqrt((total + PULL * mean) / (n * share + PULL)) for total, share in cells]


def geometric_shape(shapes: list[list[float]]) -> list[float]:
    """The geometric mean over pools of each cell's fitted score, each pool's scores first scaled to a
    geometric mean of 1."""
    scaled = []
    for g in shapes:
        scale = math.exp(statistics.fmean(math.log(v) for v in g))
        scaled.append([v / scale for v in g])
    return [math.exp(statistics.fmean(math.log(s[k]) for s in scaled)) for k in range(len(shapes[0]))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="the pools' folder (played into it where missing)")
    parser.add_argument("--seeds", default="tiltdev60,tiltdev61")
    parser.add_argument("--pairs", default="leaky,loose,mixed")
    parser.add_argument("--deals", type=int, default=120_000)
    parser.add_argument("--fit", action="store_true", help="fit the flop and hole scores on the pools and print them")
    args = parser.parse_args()
    flop_scores = [float(PROPOSAL.flop_scores[lo][hi - lo]) for lo, hi in CLASSES]
    hole_scores = [float(PROPOSAL.hole_score(lo, hi)) for lo, hi in CELLS]
    pools, shares, seeds = [], [], []
    for seed in args.seeds.split(","):
        for pair in args.pairs.split(","):
            mu, square, full_left, n, kept, everywhere = read(args.cache, seed, pair, args.deals)
            pools.append((mu, square, n, kept))
            shares.append(everywhere)
            seeds.append(seed)
            runouts = left(mu, square, n, kept, None, PROPOSAL.flop_uniform)
            both = left(mu, square, n, kept, flop_scores, PROPOSAL.flop_uniform)
            every = left(mu, square, n, kept, flop_scores, PROPOSAL.flop_uniform, hole_scores)
            print(
                f"{seed:18} {pair:6} {n:7} deals ({len(kept)} did not cancel): full leaves {full_left:6.2%} of plain "
                f"play's variance per hand; tilted, run-outs only {runouts:5.3f} of full's ({runouts * full_left:6.2%} "
                f"of plain's), flop and run-outs {both:5.3f} ({both * full_left:6.2%}), holes too {every:5.3f} "
                f"({every * full_left:6.2%})"
            )
    if not args.fit:
        return
    mean = geometric_shape([fitted(p[2], p[3], everywhere) for p, everywhere in zip(pools, shares, strict=True)])
    print("flop scores by class " + ", ".join(f"{lo}{hi}" for lo, hi in CLASSES))
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

    def holes_fit(among: list[int]) -> list[int]:
        """The hole scores fitted on pools ``among``: their geometric mean, the least scaled to 1, rounded."""
        shape = geometric_shape([fitted_holes(pools[k][2], pools[k][3], flop_scores) for k in among])
        return [max(1, round(v / min(shape))) for v in shape]

    print("hole scores by cell (the two hands' classes) " + ", ".join(f"{lo}{hi}" for lo, hi in CELLS))
    print("  fitted on every pool: " + " ".join(map(str, holes_fit(list(range(len(pools)))))))
    print("  HOLE_SCORES:          " + " ".join(f"{v:g}" for v in hole_scores))
    for seed in dict.fromkeys(seeds):
        others = [k for k, s in enumerate(seeds) if s != seed]
        if not others:
            continue
        scores = holes_fit(others)
        figures = []
        for k, s in enumerate(seeds):
            if s == seed:
                mu, sq, n, kept = pools[k]
                figures.append(
                    f"{left(mu, sq, n, kept, flop_scores, PROPOSAL.flop_uniform, [float(v) for v in scores]):.3f}"
                    f" / {left(mu, sq, n, kept, flop_scores, PROPOSAL.flop_uniform, hole_scores):.3f}"
                    f" of {left(mu, sq, n, kept, flop_scores, PROPOSAL.flop_uniform):.3f}"
                )
        print(
            f"  {seed} left out: fitted on the others {' '.join(map(str, scores))}; full's variance left on its pools "
            f"by those / by HOLE_SCORES, of the flop and run-outs' alone: {', '.join(figures)}"
        )


if __name__ == "__main__":
    main()
