"""The learned correction's prior (``dealer.stats.control.LEARNED_PRIOR``): fitted on benchmark pools.

Run ``python benchmarks/fit_prior.py --cache DIR --seeds S1,S2`` (in benchmarks/). The pools are
``compare_verdicts.py``'s (played, or read from ``--cache``): for each seed and pair (``--pairs``),
the shuffled pool and the tilted one, 6,000 duplicate deals each (``--deals``; a seed
``NAME@DEALS``: its own). The prior is the ridge fit of every pooled deal's ``full`` value on its
control columns as the estimator sees them (weighted by the deal's p / q on tilted deals), with the
estimator's own penalty (``crossfit.RIDGE`` times each column's sum of squares) and solver, so that a
comparison's first looks, which have seen too few of the rare deals to fit, start from what many
deals of these bots taught. Printed: the prior, ready for ``control.py``, then for each pool the
variance per hand left (a share of plain raw play's) by ``full`` and by a prior alone, the one in
``control.py`` and this fit; ``--check S3`` prints the same for seeds left out of the fit.
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

from compare_verdicts import PAIRS, REFERENCE, plain_samples, pool

from dealer.stats.control import LEARNED_PRIOR
from dealer.stats.crossfit import RIDGE, solve
from dealer.stats.luck_features import DUEL_COLUMNS, FEATURES
from dealer.stats.paired import CONTROL_COLUMNS, Sample, paired_samples


def pools(cache: Path, seeds: list[str], pairs: list[str], deals: int) -> dict[str, tuple[list[Sample], float]]:
    """Each pool's samples and plain raw play's variance per hand, by ``SEED/PAIR/DEALING``; a seed
    ``NAME@DEALS`` has pools of ``DEALS`` deals, else ``deals``."""
    out = {}
    for spec in seeds:
        seed, _, size = spec.partition("@")
        count = int(size) if size else deals
        for pair in pairs:
            shuffled = pool(cache, pair, count, seed, "plain")
            plain = plain_samples(shuffled)
            base = statistics.variance([s.value("raw") for s in plain]) / plain[0].hands
            out[f"{seed}/{pair}/plain"] = (paired_samples([shuffled], "new", "old", REFERENCE), base)
            tilted = pool(cache, pair, count, seed, "tilted")
            out[f"{seed}/{pair}/tilted"] = (paired_samples([tilted], "new", "old"), base)
    return out


def fit(samples: list[Sample]) -> list[float]:
    """The ridge fit of ``full`` on the control columns over ``samples`` (module doc)."""
    size = CONTROL_COLUMNS
    zz = [[0.0] * size for _ in range(size)]
    zy = [0.0] * size
    for s in samples:
        z, y = s.controls or (0.0,) * size, s.value("full")
        for i, zi in enumerate(z):
            if zi:
                zy[i] += zi * y
                row = zz[i]
                for j, zj in enumerate(z):
                    row[j] += zi * zj
    for i in range(size):
        zz[i][i] *= 1 + RIDGE
    return solve(zz, zy)


def left(samples: list[Sample], weights: tuple[float, ...] | list[float], base: float) -> float:
    """Variance per hand of ``full - weights . z``, a share of plain raw play's."""
    values = [
        s.value("full") - math.fsum(w * z for w, z in zip(weights, s.controls or (), strict=True)) for s in samples
    ]
    return statistics.variance(values) * samples[0].hands / base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="compare_verdicts.py's --cache folder")
    parser.add_argument("--seeds", required=True, help="comma-separated seeds whose pools the prior is fitted on")
    parser.add_argument("--check", default="", help="comma-separated seeds left out of the fit, to check it on")
    parser.add_argument("--pairs", default=",".join(PAIRS))
    parser.add_argument("--deals", type=int, default=6000)
    args = parser.parse_args()
    pairs = args.pairs.split(",")
    fitted = pools(args.cache, args.seeds.split(","), pairs, args.deals)
    prior = fit([s for samples, _ in fitted.values() for s in samples])
    names = [*FEATURES, *(FEATURES[k] for k in DUEL_COLUMNS)]  # paired.py: the duel columns twice, by seat
    print(f"prior fitted on {sum(len(s) for s, _ in fitted.values())} deals ({len(fitted)} pools):")
    for weight, name in zip(prior, names, strict=True):
        print(f"    {weight:.4g},  # {name}")
    checked = pools(args.cache, args.check.split(","), pairs, args.deals) if args.check else {}
    print("variance per hand left of plain raw: full / control.py's prior / this fit (each prior alone, no fit)")
    for name, (samples, base) in {**fitted, **{f"{k} (left out)": v for k, v in checked.items()}}.items():
        full = left(samples, [0.0] * CONTROL_COLUMNS, base)
        print(f"{name:40} {full:6.2%} {left(samples, LEARNED_PRIOR, base):6.2%} {left(samples, prior, base):6.2%}")


if __name__ == "__main__":
    main()
