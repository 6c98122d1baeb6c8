"""The stopping rule on simulated runs: what it does to the median hands to a verdict and to the longest runs.

Run ``python benchmarks/stopping_rules.py [--runs 1000] [--null-runs 2000] [--increments gauss,war]``.
Each run is a stream of paired samples of mean ``mu`` and variance 1, looked at every 20 samples
(``--batch``, dealer compare's looks) with the running variance, deciding from 100 samples on:

* ``gauss``: Gaussian samples (each look's batch drawn as its sum and its sum of squared deviations);
* ``t3``: Student's t with 3 degrees of freedom, scaled to variance 1;
* ``war``: 0.3% of the samples carry half the variance, as the stack-sized pots that carry 90% of
  what ``full`` leaves in the benchmark pools (docs/compare.md, "By kind of deal").

The rules, each two-sided at alpha 0.05:

* ``cs hH/B``: dealer compare's confidence sequence (``dealer.stats.stats.ConfidenceSequence``) with
  horizon H, looked at every B samples (``cs h1000/100``: the rule before issue 35's fifth attempt;
  ``cs h1000/20``: today's). Valid however often it is looked at, with no maximum;
* ``gs D``: a group-sequential boundary over a maximum of ``--max`` samples (the run's ``--hands``),
  |z| >= c (n / max)^(D - 1/2) (Wang and Tsiatis; D = 0 is O'Brien-Fleming's, 0.5 Pocock's), with c
  calibrated on this script's Gaussian null runs to spend exactly alpha. Calibrated by simulation,
  it shows what the best of these designs could reach; it is not a rule to ship as written.

For each drift (set so that ``cs h1000/100`` needs about 500, 1,000 and 2,000 samples at the median)
each rule's median samples to a verdict (and over the first rule's), the 90th percentile over the
median, the share of runs above 3x the median and the chance that 200 runs all stay within 3x
((1 - share)^200: issue 35's "no run above 3x its median"), runs undecided at ``--max``, and the
false verdicts on null runs. Variance reduction scales every run's samples alike: it moves the median,
not these ratios.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable

from dealer.stats.stats import ConfidenceSequence

ALPHA = 0.05
MIN_SAMPLES = 100
DRIFTS = (0.13, 0.09, 0.064)  # cs h1000/100 medians about 500, 1,000 and 2,000 samples (Gaussian)


def draw(rng: random.Random, kind: str, mu: float, batch: int) -> tuple[float, float]:
    """One look's batch of samples: its mean and its sum of squared deviations."""
    if kind == "gauss":
        return rng.gauss(mu, 1 / math.sqrt(batch)), rng.gammavariate((batch - 1) / 2, 2.0)
    if kind == "t3":
        xs = [mu + rng.gauss(0, 1) / math.sqrt(rng.gammavariate(1.5, 2.0)) for _ in range(batch)]
    else:  # war: 0.3% of the samples carry half the variance
        big, small = math.sqrt(0.5 / 0.003), math.sqrt(0.5 / 0.997)
        xs = [mu + rng.gauss(0, big if rng.random() < 0.003 else small) for _ in range(batch)]
    mean = math.fsum(xs) / batch
    return mean, math.fsum((x - mean) ** 2 for x in xs)


def run_z(rng: random.Random, kind: str, mu: float, looks: int, batch: int) -> list[float]:
    """One run's z-score (mean over its standard error, the running variance) at each look."""
    n, mean, m2, out = 0, 0.0, 0.0, []
    for _ in range(looks):
        b_mean, b_m2 = draw(rng, kind, mu, batch)
        delta, total = b_mean - mean, n + batch
        mean += delta * batch / total
        m2 += b_m2 + delta * delta * n * batch / total
        n = total
        out.append(mean * math.sqrt(n * (n - 1) / m2) if m2 > 0 else 0.0)
    return out


Rule = tuple[int, list[float]]  # looked at every k-th look; the boundary on |z| at each look


def first(z: list[float], rule: Rule, batch: int) -> int | None:
    """The samples at the rule's first verdict on a run (None: undecided at the maximum)."""
    every, bound = rule
    for k in range(every - 1, len(z), every):
        if (k + 1) * batch >= MIN_SAMPLES and abs(z[k]) >= bound[k]:
            return (k + 1) * batch
    return None


def cs_rule(horizon: int, every: int, looks: int, batch: int) -> Rule:
    """dealer compare's confidence sequence as a boundary on |z|, looked at every ``every`` looks."""
    cs = ConfidenceSequence(ALPHA, horizon, MIN_SAMPLES)
    return every, [cs.margin((k + 1) * batch) * math.sqrt((k + 1) * batch) for k in range(looks)]


def calibrated(shape: list[float], nulls: list[list[float]], batch: int) -> Rule:
    """``c * shape`` with c set by bisection so that exactly alpha of the null runs cross it."""
    low, high = 0.5, 10.0
    for _ in range(30):
        c = (low + high) / 2
        rule = (1, [c * s for s in shape])
        crossed = sum(first(z, rule, batch) is not None for z in nulls) / len(nulls)
        low, high = (c, high) if crossed > ALPHA else (low, c)
    return 1, [high * s for s in shape]


def rules(looks: int, batch: int, nulls: list[list[float]]) -> dict[str, Rule]:
    """The rules compared, the group-sequential ones calibrated on Gaussian null runs."""
    out = {f"cs h{h}/{e * batch}": cs_rule(h, e, looks, batch) for h, e in ((1000, 5), (1000, 1), (4000, 1))}
    for d in (0.3, 0.4, 0.5):
        out[f"gs {d}"] = calibrated([((k + 1) / looks) ** (d - 0.5) for k in range(looks)], nulls, batch)
    return out


def report(kind: str, args: argparse.Namespace, table: dict[str, Rule], make: Callable[..., list[float]]) -> None:
    """Each rule's medians, tails and false verdicts on ``kind`` increments."""
    looks = args.max // args.batch
    rng = random.Random(f"stopping/{kind}/null")
    nulls = [make(rng, kind, 0.0, looks, args.batch) for _ in range(args.null_runs)]
    false = {
        name: sum(first(z, rule, args.batch) is not None for z in nulls) / len(nulls) for name, rule in table.items()
    }
    print(
        f"\n== {kind} increments: false verdicts over {len(nulls)} null runs to {args.max} samples: "
        + ", ".join(f"{name} {share:.3f}" for name, share in false.items())
    )
    for mu in DRIFTS:
        rng = random.Random(f"stopping/{kind}/{mu}")
        paths = [make(rng, kind, mu, looks, args.batch) for _ in range(args.runs)]
        print(
            f"drift {mu} ({args.runs} runs): rule, median samples (over the first rule's), p90 / median, "
            "share above 3x the median, P(200 runs all within 3x), undecided at the maximum"
        )
        base = None
        for name, rule in table.items():
            stops = [first(z, rule, args.batch) for z in paths]
            samples = [s if s is not None else math.inf for s in stops]
            median = statistics.median(samples)
            base = base or median
            above = sum(s > 3 * median for s in samples) / len(samples)
            p90 = sorted(samples)[int(0.9 * len(samples))] / median
            print(
                f"  {name:14} {median:7.0f} ({median / base:4.2f})  p90 {p90:4.2f}  above 3x {above:.4f}  "
                f"P(200 within) {(1 - above) ** 200:.2f}  undecided {stops.count(None) / len(stops):.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs per drift and increments")
    parser.add_argument("--null-runs", type=int, default=2000, help="runs with no difference (calibration, alpha)")
    parser.add_argument("--batch", type=int, default=20, help="samples between two looks")
    parser.add_argument("--max", type=int, default=10_000, help="samples at which a run stops (20,000 hands)")
    parser.add_argument("--increments", default="gauss,war", help="comma-separated: gauss, t3, war")
    args = parser.parse_args()
    started = time.perf_counter()
    looks = args.max // args.batch
    rng = random.Random("stopping/calibration")
    table = rules(looks, args.batch, [run_z(rng, "gauss", 0.0, looks, args.batch) for _ in range(args.null_runs)])
    for kind in args.increments.split(","):
        report(kind, args, table, run_z)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
