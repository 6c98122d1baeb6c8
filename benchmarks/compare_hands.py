"""Hands needed for a verdict on a known edge: plain play vs duplicate vs duplicate + all-in adjustment.

Run ``python benchmarks/compare_hands.py [--weaker leaky] [--deals N] [--reps 200]``. The headline
case is the realistic regression test: two close versions of one bot, strength_bot (new) against
leaky_bot (old: strength_bot with one documented leak, it calls too often after the flop; see
sample_bots/python/leaky_bot.py). ``--weaker call|random|raise`` instead compares strength_bot with
a sample bot that plays completely differently (a huge edge, but duplicate deals help little there:
the two seatings of a deal are played so differently that their luck barely offsets).

One pool of heads-up duplicate deals is played for real (every hand recorded with its actual and
its all-in adjusted net). Then each repetition draws deals from the pool at random (with
replacement, so a test may use more hands than the pool holds) and runs the sequential test of
``dealer compare`` (two SPRTs, checked after every sample, ``min_samples`` as in ``dealer compare``)
until it decides, three ways:

* plain: only the first seating of each deal (what a non-duplicate match plays), raw chips; one
  hand per sample (the sample is new's result minus old's, twice new's result heads-up);
* duplicate: both seatings of each deal, raw chips; two hands per sample per version;
* duplicate + all-in adjusted: the same with the all-in hands scored by equity.

The three methods estimate the same edge, but the pool's own luck makes their pool means differ
(plain's by far the most). To compare like with like, each method's samples are shifted so that
their mean is the pool's best estimate of the edge (duplicate, adjusted): the resampling then
differs only by each method's spread, which is what the hand counts measure. (Unshifted means
are printed too.) The bounds (``--bound``: better_than = -worse_than) must lie clearly below the
edge, or the test is asked a different question.

It prints the median (and mean) hands to a verdict, the verdicts, the ratios against plain play,
and the variance per hand of each method with the share of plain play's variance that is left
(whose inverse is what the hand ratios should follow for normal samples), and, as a check of the
error rate on these heavy-tailed samples, how often the duplicate methods call better or worse
under no edge at all (each resampled difference with a random sign, as if the versions were
swapped at random: zeros stay zeros). The sequential test is re-implemented in a
fast loop (``sprt_hands``); the first repetition of each method is checked against
``dealer.stats.compare.SequentialTest`` on the same draws.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dealer.config.league_file import game_config
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.stats.compare import SequentialTest, Settings
from dealer.stats.paired import Sample, paired_samples

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "sample_bots" / "python"
# Per old bot: default duplicate deals in the pool and sequential bound (bb/100). The leak is worth
# a few tens of bb/100 (difference new - old), the sample bots several hundred.
DEFAULTS = {"leaky": (20000, 15.0), "call": (3000, 300.0), "random": (3000, 300.0), "raise": (3000, 300.0)}
MAX_HANDS = 5_000_000  # per method and repetition: beyond it the run is "inconclusive"


async def play_pool(deals: int, tables: int, seed: str, out: Path, weaker: str):
    new = MatchBot("new", (sys.executable, str(BOTS / "strength_bot.py")))
    old = MatchBot("old", (sys.executable, str(BOTS / f"{weaker}_bot.py")))
    plan = MatchPlan(
        "pool",
        plan_tables(["new", "old"], duplicate=True, tables=tables),
        game_config(),
        hands=deals // tables,
        seed=seed,
        luck=True,
    )
    async with DealerServer("127.0.0.1:0") as server:
        return await Match(plan, server, {"new": new, "old": old}, out=out, base=ROOT, records=True).run()


def plain_samples(result) -> list[Sample]:
    """The first seating only (the deal set's first table: new in seat 0): one hand per sample."""
    first_table: dict[str, int] = {}
    for r in result.records:
        first_table[r.deal_set] = min(first_table.get(r.deal_set, r.table), r.table)
    out = []
    for r in result.records:
        if r.table == first_table[r.deal_set]:
            d = (r.net["new"] - r.net["old"]) / r.big_blind
            ev = r.ev_net if r.ev_net is not None else r.net
            a = (ev["new"] - ev["old"]) / r.big_blind
            luck = r.luck_net if r.luck_net is not None else ev
            out.append(
                Sample(
                    ("pool", r.deal_set, r.hand),
                    d,
                    a,
                    1,
                    int(r.ev_net is not None),
                    (luck["new"] - luck["old"]) / r.big_blind,
                    int(r.luck_net is not None),
                )
            )
    return out


def sprt_hands(draws, settings: Settings, max_samples: int) -> tuple[str, int]:
    """``SequentialTest`` fed one sample at a time until its verdict: (verdict, samples used).

    ``draws`` yields sample values (bb/100); the same arithmetic as ``dealer.stats.stats.SPRT`` (Welford's
    running mean and variance, the LLR with the sample variance), only faster.
    """
    a, b, m = settings.alpha / 2, settings.beta, settings.min_samples
    upper, lower = math.log((1 - b) / a), math.log(b / (1 - a))
    hi, lo = settings.better_than, settings.worse_than
    better = worse = None  # latched decisions: "h0" or "h1"
    n, mean, m2, informative = 0, 0.0, 0.0, 0
    for x in draws:
        n += 1
        informative += x != 0
        delta = x - mean
        mean += delta / n
        m2 += delta * (x - mean)
        if n < m or 0 < informative < settings.min_informative:  # as dealer.stats.compare's may_decide
            continue
        var = m2 / (n - 1)
        if better is None:
            num = hi * n * (mean - hi / 2)
            llr = num / var if var > 0 else (math.copysign(math.inf, num) if num else 0.0)
            better = "h1" if llr >= upper else "h0" if llr <= lower else None
        if worse is None:
            num = lo * n * (mean - lo / 2)
            llr = num / var if var > 0 else (math.copysign(math.inf, num) if num else 0.0)
            worse = "h1" if llr >= upper else "h0" if llr <= lower else None
        if better == "h1" and worse == "h1":
            return ("better" if mean > 0 else "worse"), n
        if better == "h1":
            return "better", n
        if worse == "h1":
            return "worse", n
        if worse == "h0" and better == "h0":
            return "not worse", n
        if n >= max_samples:
            break
    return ("not worse" if worse == "h0" else "inconclusive"), n


def reference_hands(draws, settings: Settings, max_samples: int) -> tuple[str, int]:
    """The same with ``dealer.stats.compare.SequentialTest`` itself (slow: for the check)."""
    test = SequentialTest(settings)  # the SPRTs (settings.test is ignored here)
    n = 0
    for x in draws:
        n += 1
        test.update([x])
        verdict = test.verdict()
        if verdict is not None:
            return verdict, n
        if n >= max_samples:
            break
    return test.verdict(final=True), n


def sign_flipped(draws, rng: random.Random):
    """The draws with random signs: the null of no difference (swapping which version is "new"
    in a deal flips its difference), keeping the deals that cancel exactly at zero."""
    for x in draws:
        yield x if rng.random() < 0.5 else -x


def resample(values: list[float], rng: random.Random, chunk: int = 8192):
    """Values drawn at random with replacement, forever."""
    while True:
        yield from rng.choices(values, k=chunk)


def variance_per_hand(values: list[float], hands: int) -> float:
    """Variance of a sample times hands per sample (so ratios compare per hand)."""
    return statistics.variance(values) * hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--weaker",
        default="leaky",
        choices=sorted(DEFAULTS),
        help="the old bot (sample_bots/python/NAME_bot.py); default leaky, strength_bot's v1",
    )
    parser.add_argument(
        "--deals",
        type=int,
        help="duplicate deals in the pool, 2 hands each (default 20000 for leaky, 3000 for the others)",
    )
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument(
        "--bound", type=float, help="better_than = -worse_than, bb/100 (default 15 for leaky, 300 for the others)"
    )
    parser.add_argument("--seed", default="compare-hands")
    parser.add_argument(
        "--min-samples",
        type=int,
        default=Settings.min_samples,
        help="samples before the SPRTs may decide (dealer compare: 100)",
    )
    args = parser.parse_args()
    deals, bound = DEFAULTS[args.weaker]
    deals = args.deals or deals
    bound = args.bound or bound

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        result = asyncio.run(play_pool(deals, args.tables, args.seed, Path(out), args.weaker))
    played = time.perf_counter() - started
    if any(result.faults.values()):
        print(f"warning: faults during the pool: {result.faults}")
    duplicate = paired_samples([result], "new", "old")
    plain = plain_samples(result)
    settings = Settings(
        worse_than=-bound,
        better_than=bound,
        alpha=0.05,
        beta=0.05,
        until_significant=True,
        min_samples=args.min_samples,
    )
    methods = [
        ("plain", plain, "raw"),
        ("duplicate", duplicate, "raw"),
        ("duplicate + all-in adj.", duplicate, "all-in"),
        ("duplicate + aivat", duplicate, "aivat"),
    ]
    values = {label: [s.value(estimator) for s in samples] for label, samples, estimator in methods}
    edge = statistics.fmean(values["duplicate + all-in adj."])
    stderr = statistics.stdev(values["duplicate + all-in adj."]) / math.sqrt(len(duplicate))
    changed = sum(1 for v in values["duplicate"] if v != 0)
    print(
        f"pool: {result.hands} hands ({len(duplicate)} duplicate deals) of strength_bot vs {args.weaker}_bot "
        f"in {played:.0f} s; {sum(s.all_in for s in duplicate)} hands all-in adjusted; "
        f"{changed} deals ({100 * changed / len(duplicate):.0f}%) where the seatings did not cancel exactly"
    )
    print(
        f"edge (duplicate, adjusted): {edge:+.1f} +- {stderr:.1f} bb/100 (difference new - old, +- 1 s.e.); "
        f"pool means: " + ", ".join(f"{label} {statistics.fmean(v):+.0f}" for label, v in values.items())
    )
    print(
        f"sequential bounds +-{bound:g} bb/100, alpha = beta = 0.05, min_samples {args.min_samples}; "
        f"{args.reps} resamplings per method, each method's samples centred on the edge above"
    )
    if edge - 2 * stderr <= bound:
        print(f"warning: the edge is not clearly beyond better_than = {bound:g}: choose a smaller --bound")

    rows = []
    for (label, samples, _), vals in zip(methods, values.values(), strict=True):
        shift = edge - statistics.fmean(vals)
        centred = [v + shift for v in vals]
        per = samples[0].hands
        rng = random.Random(f"{args.seed}/{label}")
        limit = MAX_HANDS // per
        runs = []
        t0 = time.perf_counter()
        for rep in range(args.reps):
            state = rng.getstate()
            runs.append(sprt_hands(resample(centred, rng), settings, limit))
            if rep == 0:  # the fast loop must agree with dealer compare's own test
                check = random.Random()
                check.setstate(state)
                ref = reference_hands(resample(centred, check), settings, limit)
                assert ref == runs[0], f"{label}: fast SPRT {runs[0]} != SequentialTest {ref}"
        hands = [n * per for _, n in runs]
        verdicts = {v: sum(1 for w, _ in runs if w == v) for v in ("better", "not worse", "worse", "inconclusive")}
        rows.append(
            (
                label,
                statistics.median(hands),
                statistics.fmean(hands),
                variance_per_hand(vals, per),
                verdicts,
                time.perf_counter() - t0,
            )
        )
    base_hands, base_mean, base_var = rows[0][1], rows[0][2], rows[0][3]
    print(
        f"{'':24} {'median hands':>12} {'ratio':>6} {'mean hands':>10} {'ratio':>6} {'var/hand':>10} "
        f"{'var left':>8} {'1/left':>6}  verdicts"
    )
    for label, median, mean, var, verdicts, _ in rows:
        print(
            f"{label:24} {median:12.0f} {base_hands / median:6.2f} {mean:10.0f} {base_mean / mean:6.2f} "
            f"{var:10.3g} {var / base_var:8.1%} {base_var / var:6.2f}  "
            + ", ".join(f"{k} {v}" for k, v in verdicts.items() if v)
        )
    for label, samples, _ in methods[1:]:  # heavy-tailed samples (most deals cancel exactly): are errors kept?
        rng = random.Random(f"{args.seed}/{label}/zero")
        runs = [
            sprt_hands(sign_flipped(resample(values[label], rng), rng), settings, MAX_HANDS // samples[0].hands)
            for _ in range(args.reps)
        ]
        wrong = sum(1 for v, _ in runs if v in ("better", "worse"))
        print(
            f"{label} with no edge (random signs): better or worse {wrong} of {args.reps} "
            f"(nominal alpha 5%), median hands {statistics.median(n * samples[0].hands for _, n in runs):.0f}"
        )
    plain_adj = variance_per_hand([s.value("all-in") for s in plain], 1)
    print(
        f"variance per hand left: after duplicate {rows[1][3] / base_var:.1%}, after duplicate + all-in "
        f"adjustment {rows[2][3] / base_var:.1%} (all-in adjustment alone, plain: {plain_adj / base_var:.1%})"
    )
    print(
        f"total {time.perf_counter() - started:.0f} s (pool {played:.0f} s, resampling "
        + ", ".join(f"{r[0]} {r[5]:.0f} s" for r in rows)
        + ")"
    )


if __name__ == "__main__":
    main()
