"""Hands to a verdict: plain play against duplicate + luck correction (aivat, full), SPRT against CS.

Run ``python benchmarks/compare_verdicts.py [--quick] [--pairs leaky,mixed] [--reps 200]``. For each
pair, a new version of a bot against an older one, one pool of heads-up duplicate deals is played
for real, every hand recorded with its actual, all-in adjusted, luck-corrected (``dealer.stats.aivat``)
and, where the bots report their strategies, fully corrected net (AIVAT's decision terms too):

* ``leaky``: strength_bot against sample_bots/python/leaky_bot.py (calls too often after the flop);
* ``loose``: strength_bot against benchmarks/loose_bot.py (the same leak, much worse);
* ``mixed``: sample_bots/python/mixed_bot.py against benchmarks/loose_mixed_bot.py, both playing
  mixed strategies and reporting them (``pokerbot.mixed``): the pair with known strategies.

The pools are played in this process, on one core: ``dealer.league.match.Match`` with every rule, clock and
record as over the wire, each bot's requests answered by the Python SDK's own ``pokerbot.answer``
with the bot's ``decide`` (only gRPC and the bot processes are left out).

Then each method runs ``dealer compare``'s sequential test (checked every ``--batch`` paired deals,
the same minimum samples) on deals drawn from the pool at random with replacement until it
decides, ``--reps`` times:

* plain: only the first seating of each deal (a non-duplicate match), raw chips, one hand a sample;
* duplicate, all-in adjusted: what ``dealer compare`` did before (with the two SPRTs);
* duplicate, aivat: the luck-corrected nets (bots as black boxes);
* duplicate, full: with the decision terms of the reported strategies (the default estimator);
* duplicate, learned: full minus the luck features (``dealer.stats.luck_features``) weighted by the
  cross-fitted ridge fit of ``dealer.stats.control`` (each fold of the draws by the fit on the others,
  refitted at every look; float sums checked against dealer.stats.control's exact ones on the first run),
  with the confidence sequence only;
* duplicate, tilted: full's figures on a second pool of the pair dealt on tilted deals
  (``dealer.stats.tilted_deals``: the hole cards, flop, turn and river drawn more often where the two
  hands meet, each deal weighted by p / q), with the confidence sequence only (``--only ...,tilted``; cached as
  ``PAIR-DEALS-SEED-tilted.pickle``); ``tilted-learned``: the learned correction on that pool
  (``dealer compare --deals tilted --estimator learned``);
each with the two SPRTs (bounds +-``--bound``, default 5 as ``dealer compare``) and with the
confidence sequence (``--test cs``, the default now). As in compare_hands.py, each method's samples
are shifted so that their mean is the pool's best estimate of the edge (duplicate, full), so
methods differ only by their spread; the learned and baseline methods' control columns are centred on
their pool means too, since their expectation is zero (by construction) but a pool's mean of them is not,
and a run's fitted weights would carry that mean into its own, away from the other methods'. The A/A
check: the same resampling with each difference's sign flipped at random (the null of no difference:
swapping which version is "new" flips it), ``--reps`` runs per method that uses the confidence
sequence or aivat/full, each cut at ``--aa-cap`` hands (20,000 by default, ``dealer compare``'s
default maximum): a "better" or "worse" verdict is false, and their share should stay within alpha
(0.05) plus sampling error.
The unbiasedness of the corrections is checked on the real pool: the mean over deals of each
estimator minus raw, with its standard error, should be within about 2 of them of 0. The fast
loops are checked against dealer.stats.compare's own test classes on the first repetition.
``--quick``: pools of 3,000 deals; ``--cache DIR`` keeps the pools for the next run; ``--skip-plain``
leaves out the plain-play baselines (their runs go on to ``--max-hands``: most of the time on a pair).

Issue 35's line per pair sets each method beside full looked at every ``--batch`` (100) deals, the
default before issue 35's fifth attempt, with its goals: the median hands to a verdict at most half
of full's, no run above 3x its median ("max/median", and how many runs are above 3x), plain variance
per hand left at most 2% on the deterministic pairs, A/A false verdicts at most 0.05. ``--only
full,full@20,tilted@20``: the same draws looked at every 20 deals (dealer compare's default now, for
every estimator; ``tilted-learned@20`` for ``--deals tilted --estimator learned``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import pickle
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from compare_hands import resample, sign_flipped, sprt_hands

from dealer.config.league_file import game_config
from dealer.connect.server import BotSession, DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan, instance_label
from dealer.league.runner import baseline_tables
from dealer.stats.compare import ConfidenceSequenceTest, SequentialTest, Settings
from dealer.stats.control import ControlSums
from dealer.stats.crossfit import FOLDS, cross_fit
from dealer.stats.paired import FITTED, Sample, learned_sums, paired_samples, sample_of
from dealer.stats.records import MatchResult
from dealer.stats.stats import ConfidenceSequence
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "sample_bots" / "python"), str(ROOT / "benchmarks")]
import leaky_bot  # noqa: E402
import loose_bot  # noqa: E402
import loose_mixed_bot  # noqa: E402
import mixed_bot  # noqa: E402
import strength_bot  # noqa: E402

import pokerbot  # noqa: E402

PAIRS = {
    "leaky": (strength_bot.decide, leaky_bot.decide),
    "loose": (strength_bot.decide, loose_bot.decide),
    "mixed": (mixed_bot.decide, loose_mixed_bot.decide),
}
REFERENCE = "reference"  # the baseline's reference bot: the sample strength bot, dealer compare's default
MAX_HANDS = 2_000_000  # per method and repetition: beyond it the run is "inconclusive"


async def _answer(session: BotSession, decide) -> None:
    """Stand in for a bot's process and stream: each batch's requests answered by the SDK with ``decide``."""
    loop = asyncio.get_running_loop()
    while session.live:
        await session.link._wake.wait()
        batch = session.link._take_batch(loop.time())
        replies = [
            pokerbot.answer(decide, item.table, item.request)
            for item in pb.DealerMessage.FromString(batch).items
            if item.WhichOneof("kind") == "request"
        ]
        if replies:
            session.link._receive(pb.BotMessage(actions=replies))


async def play_pool(
    pair: str, deals: int, tables: int, seed: str, out: Path, dealing: str = "plain", light: bool = False
) -> MatchResult:
    """Play ``deals`` duplicate deals of the pair's new version against its old one, in this
    process; luck and the compared versions' strategies recorded as ``dealer compare`` does, and the
    baseline's tables too (``dealer.league.runner.baseline_tables``: the reference bot, the sample
    strength bot, in new's seat against old on each deal and on its twin). ``dealing="tilted"``: the
    cards drawn by ``dealer.stats.tilted_deals``, each hand weighted, and no baseline's tables.
    ``light``: neither the baseline's tables nor the luck features (``full`` only, a third of the time)."""
    game = game_config(time={"per_action_ms": 60_000, "bank_ms": 0})  # in process: no clock to beat
    tables_played = plan_tables(["new", "old"], duplicate=True, tables=tables)
    plan = MatchPlan(
        "pool",
        tables_played if dealing == "tilted" or light else baseline_tables(tables_played, "new", REFERENCE),
        game,
        hands=deals // tables,
        seed=seed,
        luck=True,
        strategies=("new", "old"),
        features=not light,
        sealed=False,
        deals=dealing,
    )
    server = DealerServer("127.0.0.1:0", local_socket=False)
    sessions = {instance_label(name, 0): server.session(name) for name in ("new", "old", REFERENCE)}
    for session in sessions.values():
        session.link._attach(object(), "in-process")  # live, answered here
    decides = {**dict(zip(("new", "old"), PAIRS[pair], strict=True)), REFERENCE: strength_bot.decide}
    pumps = [asyncio.create_task(_answer(s, decides[s.name])) for s in sessions.values()]
    bots = {s.name: MatchBot(s.name, token=s.token) for s in sessions.values()}
    result = await Match(plan, server, bots, out=out, base=ROOT, sessions=sessions, records=True).run()
    for session in sessions.values():
        session.link._detach()
    await asyncio.gather(*pumps)
    return result


def pool(cache: Path | None, pair: str, deals: int, seed: str, dealing: str, light: bool = False) -> MatchResult:
    """The pair's pool of ``deals`` deals under ``seed``, played (or read from ``cache``, where it is kept);
    ``light``: ``play_pool``'s, kept apart (``-light``)."""
    suffix = ("" if dealing == "plain" else f"-{dealing}") + ("-light" if light else "")
    cached = cache / f"{pair}-{deals}-{seed}{suffix}.pickle" if cache else None
    if cached is not None and cached.exists():
        return pickle.loads(cached.read_bytes())
    with tempfile.TemporaryDirectory() as out:
        result = asyncio.run(play_pool(pair, deals, 8, f"{seed}/{pair}", Path(out), dealing, light))
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(pickle.dumps(result))
    return result


def plain_samples(result: MatchResult) -> list[Sample]:
    """The first seating only (the deal set's first table: new in seat 0): one hand per sample."""
    first_table: dict[str, int] = {}
    for r in result.records:
        first_table[r.deal_set] = min(first_table.get(r.deal_set, r.table), r.table)
    out = []
    for r in result.records:
        if r.table == first_table[r.deal_set] and REFERENCE not in r.net:  # the baseline's tables are not plain play
            sample = sample_of(("pool", r.deal_set, r.hand), [r], "new", "old")
            assert sample is not None  # one hand of each version
            out.append(sample)
    return out


def batched(draws: Iterable[float], batch: int) -> Iterator[list[float]]:
    """Draws in lists of ``batch``."""
    it = iter(draws)
    while True:
        yield [next(it) for _ in range(batch)]


def may_decide(n: int, informative: int, settings: Settings) -> bool:
    """As ``dealer.stats.compare``'s tests: at least ``min_samples`` deals, and enough that did not
    cancel exactly to estimate a variance, or none at all (zero variance, the interval [0, 0])."""
    if n < max(2, settings.min_samples):
        return False
    return informative >= settings.min_informative or informative == 0


def cs_hands(draws: Iterable[float], settings: Settings, max_samples: int, batch: int) -> tuple[str, int]:
    """``ConfidenceSequenceTest`` fed ``batch`` samples at a time until its verdict: (verdict, samples)."""
    cs = ConfidenceSequence(settings.alpha, settings.cs_horizon, settings.min_samples)
    rho2, alpha = cs.rho2, settings.alpha
    lo_bound, hi_bound = settings.worse_than, settings.better_than
    n, mean, m2, informative = 0, 0.0, 0.0, 0
    low = -math.inf
    for chunk in batched(draws, batch):
        for x in chunk:
            n += 1
            informative += x != 0
            delta = x - mean
            mean += delta / n
            m2 += delta * (x - mean)
        low = -math.inf
        if may_decide(n, informative, settings):
            t = n * rho2 + 1
            half = math.sqrt(m2 / (n - 1)) * math.sqrt(2 * t * math.log(math.sqrt(t) / alpha) / (n * n * rho2))
            low, high = mean - half, mean + half
            if low > 0:
                return "better", n
            if high < 0:
                return "worse", n
            if low > lo_bound and high < hi_bound:
                return "not worse", n
        if n >= max_samples:
            break
    return ("not worse" if low > lo_bound else "inconclusive"), n


Draw = tuple[float, tuple[float, ...]]  # a deal's full value and its luck features (bb/100): the learned estimator's


def pair_flipped(draws: Iterable[Draw], rng: random.Random) -> Iterator[Draw]:
    """``sign_flipped`` for the learned estimator: swapping which version is new flips the value and the features."""
    for y, z in draws:
        yield (y, z) if rng.random() < 0.5 else (-y, tuple(-v for v in z))


class FloatControls:
    """``dealer.stats.control.ControlSums`` in floats (fast enough for thousands of resampled runs; checked
    against it on each method's first run): each fold's sums of u and u u^T, fold = draw index mod FOLDS."""

    def __init__(self, columns: int, prior: tuple[float, ...] | None) -> None:
        self.prior = prior
        self.size = columns + 1
        self.counts = [0] * FOLDS
        self.first = [[0.0] * self.size for _ in range(FOLDS)]
        self.second = [[[0.0] * self.size for _ in range(self.size)] for _ in range(FOLDS)]
        self.n = 0

    def add(self, y: float, z: tuple[float, ...]) -> None:
        fold = self.n % FOLDS
        self.n += 1
        self.counts[fold] += 1
        u = (y, *z)
        first, second = self.first[fold], self.second[fold]
        for i, ui in enumerate(u):
            if ui == 0.0:
                continue
            first[i] += ui
            row = second[i]
            for j in range(i, self.size):
                row[j] += ui * u[j]

    def moments(self) -> tuple[int, float, float]:
        """Count, mean and sum of squared deviations of the cross-fitted values (dealer.stats.crossfit.cross_fit)."""
        seconds = []
        for sec in self.second:
            full = [[sec[min(i, j)][max(i, j)] for j in range(self.size)] for i in range(self.size)]
            seconds.append(full)
        return cross_fit(self.counts, self.first, seconds, self.prior)


def learned_cs_hands(
    draws: Iterable[Draw], settings: Settings, max_samples: int, batch: int, columns: int, prior: tuple | None
) -> tuple[str, int, tuple[int, float, float]]:
    """``cs_hands`` on the learned figures, refitted at every look: (verdict, samples, final moments)."""
    cs = ConfidenceSequence(settings.alpha, settings.cs_horizon, settings.min_samples)
    rho2, alpha = cs.rho2, settings.alpha
    sums = FloatControls(columns, prior)
    informative = 0
    low = -math.inf
    moments = (0, 0.0, 0.0)
    for chunk in batched(draws, batch):
        for y, z in chunk:
            sums.add(y, z)
            informative += y != 0
        n = sums.n
        low = -math.inf
        if may_decide(n, informative, settings):
            moments = sums.moments()
            _, mean, m2 = moments
            t = n * rho2 + 1
            half = math.sqrt(m2 / (n - 1)) * math.sqrt(2 * t * math.log(math.sqrt(t) / alpha) / (n * n * rho2))
            low, high = mean - half, mean + half
            if low > 0:
                return "better", n, moments
            if high < 0:
                return "worse", n, moments
            if low > settings.worse_than and high < settings.better_than:
                return "not worse", n, moments
        if n >= max_samples:
            break
    return ("not worse" if low > settings.worse_than else "inconclusive"), sums.n, moments


def check_learned(drawn: list[Draw], moments: tuple[int, float, float], columns: int, prior: tuple | None) -> None:
    """The float sums agree with dealer.stats.control's exact ones on a run's draws (folds by draw index)."""
    exact = ControlSums(columns, prior)
    for k, (y, z) in enumerate(drawn):
        exact.add(k % FOLDS, y, z)
    n, mean, m2 = exact.moments()
    assert n == moments[0] and math.isclose(mean, moments[1], rel_tol=1e-6, abs_tol=1e-6), (mean, moments)
    assert math.isclose(m2, moments[2], rel_tol=1e-6), (m2, moments)


def reference(draws: Iterable[float], settings: Settings, max_samples: int, batch: int) -> tuple[str, int]:
    """dealer.stats.compare's own test class on the same draws (slow: the check of the fast loops)."""
    test = ConfidenceSequenceTest(settings) if settings.test == "cs" else SequentialTest(settings)
    n = 0
    for chunk in batched(draws, batch):
        test.update(chunk)
        n += len(chunk)
        verdict = test.verdict()
        if verdict is not None:
            return verdict, n
        if n >= max_samples:
            break
    return test.verdict(final=True), n


def run_method(
    values: list,
    per: int,
    settings: Settings,
    reps: int,
    batch: int,
    seed: str,
    null: bool,
    cap: int = MAX_HANDS,
    use_prior: bool = True,
) -> list[tuple[str, int]]:
    """``reps`` sequential runs on resampled ``values`` (sign-flipped when ``null``), each cut at
    ``cap`` hands: (verdict, hands)."""
    rng = random.Random(seed)
    limit = cap // per
    runs = []
    for rep in range(reps):
        state = rng.getstate()
        if settings.estimator in FITTED:
            columns = len(values[0][1])
            prior = learned_sums(columns).prior if settings.estimator == "learned" and use_prior else None
            kept: list[Draw] = []
            pulled = pair_flipped(resample(values, rng), rng) if null else resample(values, rng)
            verdict, n, moments = learned_cs_hands(
                (kept.append(d) or d for d in pulled), settings, limit, batch, columns, prior
            )
            if rep == 0 and moments[0] == n:  # the float loop must agree with dealer.stats.control's exact sums
                check_learned(kept[:n], moments, columns, prior)
            runs.append((verdict, n * per))
            continue
        draws = sign_flipped(resample(values, rng), rng) if null else resample(values, rng)
        if settings.test == "cs":
            verdict, n = cs_hands(draws, settings, limit, batch)
        else:
            verdict, n = sprt_hands(draws, settings, limit)  # looked at after every sample: a lower bound
        if rep == 0 and settings.test == "cs":  # the fast loop must agree with dealer compare's own test
            check = random.Random()
            check.setstate(state)
            again = sign_flipped(resample(values, check), check) if null else resample(values, check)
            assert reference(again, settings, limit, batch) == (verdict, n), "fast CS loop != ConfidenceSequenceTest"
        runs.append((verdict, n * per))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="leaky,mixed", help="comma-separated: leaky, loose, mixed")
    parser.add_argument(
        "--power-reps", type=int, help="resamplings per method for the hands to a verdict (default --reps)"
    )
    parser.add_argument("--max-hands", type=int, default=MAX_HANDS, help="hands at which a run with the edge stops")
    parser.add_argument("--aa-cap", type=int, default=20_000, help="hands at which an A/A run stops (inconclusive)")
    parser.add_argument("--deals", type=int, help="duplicate deals per pool (default 12000; --quick 3000)")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument(
        "--baseline-reps",
        type=int,
        help="repetitions of the slow plain-play SPRT baseline (default --reps; --quick 20)",
    )
    parser.add_argument(
        "--bound", type=float, default=5.0, help="better_than = -worse_than, bb/100 (as dealer compare)"
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=100,
        help="paired deals between looks (100: dealer compare's before issue 35's fifth attempt, today's row)",
    )
    parser.add_argument("--seed", default="verdicts")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--skip-plain",
        action="store_true",
        help="leave out the plain-play baselines (slow: their runs go to --max-hands); the duplicate methods only",
    )
    parser.add_argument("--cache", type=Path, help="folder keeping each played pool (pickled) for the next run")
    parser.add_argument(
        "--only",
        help="comma-separated estimators, each NAME or NAME@DEALS (looked at every DEALS paired deals, else --batch): "
        "only their duplicate confidence-sequence runs (e.g. full,full@20,tilted@20,tilted-learned)",
    )
    args = parser.parse_args()
    deals = args.deals or (3000 if args.quick else 12000)
    power_reps = args.power_reps or args.reps
    baseline_reps = args.baseline_reps or (20 if args.quick else power_reps)
    started = time.perf_counter()
    for pair in args.pairs.split(","):
        t0 = time.perf_counter()
        result = pool(args.cache, pair, deals, args.seed, "plain")
        played = time.perf_counter() - t0
        if any(result.faults.values()):
            print(f"warning: faults during the pool: {result.faults}")
        duplicate = paired_samples([result], "new", "old", REFERENCE)
        plain = plain_samples(result)
        edge_values = [s.value("full") for s in duplicate]
        edge = statistics.fmean(edge_values)
        se = statistics.stdev(edge_values) / math.sqrt(len(edge_values))
        known = sum(s.known for s in duplicate)
        print(
            f"\n== {pair}: pool of {result.hands} hands ({len(duplicate)} duplicate deals, {known} hands "
            f"with a known strategy) played in {played:.0f} s; edge (duplicate, full) {edge:+.1f} +- {se:.1f} "
            "bb/100; pool means: "
            + ", ".join(
                f"{label} {statistics.fmean(s.value(e) for s in samples):+.1f}"
                for label, samples, e in (
                    ("plain raw", plain, "raw"),
                    ("dup raw", duplicate, "raw"),
                    ("dup all-in", duplicate, "all-in"),
                    ("dup aivat", duplicate, "aivat"),
                    ("dup full", duplicate, "full"),
                )
            )
        )
        for estimator in ("aivat", "full"):  # unbiasedness on real play: estimator - raw, deal by deal
            gaps = [s.value(estimator) - s.value("raw") for s in duplicate]
            gap_se = statistics.stdev(gaps) / math.sqrt(len(gaps))
            print(
                f"bias check, duplicate {estimator} - raw: {statistics.fmean(gaps):+.2f} +- {gap_se:.2f} bb/100 "
                f"({statistics.fmean(gaps) / gap_se:+.1f} s.e.)"
            )
        base_var = statistics.variance([s.value("raw") for s in plain])
        pool_controls = learned_sums(len(duplicate[0].controls or ()))
        for s in duplicate:
            pool_controls.add(s.key[2] % FOLDS, s.value("full"), s.controls or ())
        n_pool, _, m2_pool = pool_controls.moments()
        learned_left = m2_pool / (n_pool - 1) * duplicate[0].hands / base_var
        unprimed = ControlSums(len(duplicate[0].controls or ()))  # learned without its prior
        for s in duplicate:
            unprimed.add(s.key[2] % FOLDS, s.value("full"), s.controls or ())
        n_pool, _, m2_pool = unprimed.moments()
        unprimed_left = m2_pool / (n_pool - 1) * duplicate[0].hands / base_var
        pool_baseline = ControlSums(len(duplicate[0].baseline or ()))
        for s in duplicate:
            pool_baseline.add(s.key[2] % FOLDS, s.value("full"), s.baseline or ())
        n_pool, _, m2_pool = pool_baseline.moments()
        per_baseline = duplicate[0].hands + duplicate[0].reference_hands  # the reference's hands counted
        baseline_left = m2_pool / (n_pool - 1) * per_baseline / base_var
        full_left = statistics.variance([s.value("full") for s in duplicate]) * duplicate[0].hands / base_var
        tilted: list[Sample] = []  # the same pair on tilted deals (dealer.stats.tilted_deals), each weighted
        tilted_left = tilted_learned_left = math.nan
        if not args.only or {"tilted", "tilted-learned"} & {e.split("@")[0] for e in args.only.split(",")}:
            tilted_pool = pool(args.cache, pair, deals, args.seed, "tilted")
            if any(tilted_pool.faults.values()):
                print(f"warning: faults during the tilted pool: {tilted_pool.faults}")
            tilted = paired_samples([tilted_pool], "new", "old")
            weighted = [s.value("full") for s in tilted]
            tilted_left = statistics.variance(weighted) * tilted[0].hands / base_var
            tilted_controls = learned_sums(len(tilted[0].controls or ()))
            for s in tilted:
                tilted_controls.add(s.key[2] % FOLDS, s.value("full"), s.controls or ())
            n_pool, _, m2_pool = tilted_controls.moments()
            tilted_learned_left = m2_pool / (n_pool - 1) * tilted[0].hands / base_var
            mean, spread = statistics.fmean(weighted), statistics.stdev(weighted) / math.sqrt(len(weighted))
            weights = [r.weight for r in tilted_pool.records or ()]
            print(
                f"tilted deals: {len(tilted)} deals (weights {min(weights):.3f} to {max(weights):.3f}, mean "
                f"{statistics.fmean(weights):.3f}); weighted edge {mean:+.1f} +- {spread:.1f} bb/100, the shuffle's "
                f"{edge:+.1f} +- {se:.1f} ({(mean - edge) / math.hypot(spread, se):+.1f} s.e. apart); variance per "
                f"hand left of plain raw {tilted_left:.1%} (dup full on the shuffle's deals {full_left:.1%}: "
                f"{tilted_left / full_left:.2f} of it); with the learned correction (cross-fitted on the pool) "
                f"{tilted_learned_left:.1%}"
            )
        print(
            "variance per hand, share of plain raw left: "
            + ", ".join(
                f"{label} {statistics.variance([s.value(e) for s in samples]) * samples[0].hands / base_var:.1%}"
                for label, samples, e in (
                    ("plain all-in", plain, "all-in"),
                    ("plain aivat", plain, "aivat"),
                    ("plain full", plain, "full"),
                    ("dup raw", duplicate, "raw"),
                    ("dup all-in", duplicate, "all-in"),
                    ("dup aivat", duplicate, "aivat"),
                    ("dup full", duplicate, "full"),
                )
            )
            + f", dup learned (cross-fitted on the pool) {learned_left:.1%} (without its prior "
            f"{unprimed_left:.1%}), dup baseline (cross-fitted, its "
            f"{per_baseline} hands a deal counted) {baseline_left:.1%}"
        )
        methods = [
            ("plain, raw", plain, "raw", "sprt"),
            ("plain, raw", plain, "raw", "cs"),
            ("plain, aivat", plain, "aivat", "cs"),
            ("plain, full", plain, "full", "cs"),
            ("duplicate, all-in", duplicate, "all-in", "sprt"),
            ("duplicate, all-in", duplicate, "all-in", "cs"),
            ("duplicate, aivat", duplicate, "aivat", "sprt"),
            ("duplicate, aivat", duplicate, "aivat", "cs"),
            ("duplicate, full", duplicate, "full", "sprt"),
            ("duplicate, full", duplicate, "full", "cs"),
            ("duplicate, learned", duplicate, "learned", "cs"),
            ("duplicate, learned, no prior", duplicate, "learned-0", "cs"),
            ("duplicate, baseline", duplicate, "baseline", "cs"),
            *([("duplicate, tilted", tilted, "tilted", "cs")] if tilted else []),
            *([("duplicate, tilted, learned", tilted, "tilted-learned", "cs")] if tilted else []),
        ]
        if args.skip_plain:
            methods = [m for m in methods if not m[0].startswith("plain")]
        looked = [(*m, args.batch) for m in methods]  # each method with the deals between its looks
        if args.only:  # NAME or NAME@DEALS: the duplicate confidence-sequence runs of NAME, looked at every DEALS
            asked = [(e.split("@")[0], int(e.split("@")[1]) if "@" in e else args.batch) for e in args.only.split(",")]
            by_name = {m[2]: m for m in methods if m[0].startswith("duplicate") and m[3] == "cs"}
            looked = [(*by_name[name], every) for name, every in asked if name in by_name]
        rows = []
        for label, samples, estimator, test, every in looked:
            key = estimator  # the method's name (its variance left, its issue-35 line)
            if every != args.batch:
                label = f"{label}, every {every}"
            use_prior = estimator != "learned-0"  # learned as before its prior (control.LEARNED_PRIOR)
            # learned as before its prior; tilted: full's figures on the tilted pool (weighted by sample_of)
            estimator = {"learned-0": "learned", "tilted": "full", "tilted-learned": "learned"}.get(
                estimator, estimator
            )
            settings = Settings(
                worse_than=-args.bound, better_than=args.bound, until_significant=True, estimator=estimator, test=test
            )
            values: list = [s.value(estimator) for s in samples]
            shift = edge - statistics.fmean(values)
            per = samples[0].hands + (samples[0].reference_hands if estimator == "baseline" else 0)
            t1 = time.perf_counter()
            reps = baseline_reps if (label, test) == ("plain, raw", "sprt") else power_reps
            draws = f"{args.seed}/{pair}/{label.split(',')[0]}/{test}"  # the same deals for every estimator
            if estimator in FITTED:  # the full values with their columns (the same shift as full's)
                z = [s.controls if estimator == "learned" else s.baseline for s in samples]
                null_values: list = [(v, c) for v, c in zip(values, z, strict=True)]
                centre = [statistics.fmean(column) for column in zip(*z, strict=True)]  # each column's mean to 0
                shifted: list = [
                    (v + shift, tuple(x - m for x, m in zip(c, centre, strict=True)))
                    for v, c in zip(values, z, strict=True)
                ]
            else:
                null_values, shifted = values, [v + shift for v in values]
            runs = run_method(
                shifted, per, settings, reps, every, draws, null=False, cap=args.max_hands, use_prior=use_prior
            )
            # A/A for the tests one would use now (the SPRT baselines with plain play take very long under the null)
            aa = test == "cs" or estimator in ("aivat", "full")
            null = (
                run_method(
                    null_values,
                    per,
                    settings,
                    args.reps,
                    every,
                    f"{draws}/aa",
                    null=True,
                    cap=args.aa_cap,
                    use_prior=use_prior,
                )
                if aa
                else []
            )
            hands = [h for _, h in runs]
            rows.append(
                (
                    f"{label}, {test}",
                    statistics.median(hands),
                    f"{sum(1 for v, _ in runs if v == 'better')}/{reps}",
                    sum(1 for v, _ in null if v in ("better", "worse")) / len(null) if null else None,
                    statistics.median(h for _, h in null) if null else None,
                    time.perf_counter() - t1,
                    max(hands) / statistics.median(hands),
                    key,
                    sum(h > 3 * statistics.median(hands) for h in hands),
                )
            )
        medians = {label: median for label, median, *_ in rows}
        base = medians.get("plain, raw, sprt", math.nan)  # nan with --skip-plain: printed as such
        plain_cs = medians.get("plain, raw, cs", math.nan)
        print(
            f"{power_reps} resamplings per method (plain sprt: {baseline_reps}), each cut at {args.max_hands} hands "
            "(a median at the cap is a lower bound)"
        )
        print(
            f"bounds +-{args.bound:g}, alpha 0.05, a look every {args.batch} deals (else as the method says); "
            f"A/A: the same with random signs ({args.reps} runs cut at {args.aa_cap} hands, nominal alpha 0.05, "
            f"+2 s.e. = {0.05 + 2 * math.sqrt(0.05 * 0.95 / args.reps):.3f})"
        )
        print(
            f"{'method':28} {'median hands':>12} {'vs plain sprt':>13} {'vs plain cs':>11} {'better':>7} "
            f"{'A/A false':>9} {'A/A median hands':>16} {'max/median':>10} {'runs > 3x':>9}"
        )
        for label, median, better, false, null_median, _, spread, _, above in rows:
            aa = f"{false:9.3f} {null_median:16.0f}" if false is not None else f"{'-':>9} {'-':>16}"
            print(
                f"{label:28} {median:12.0f} {base / median:12.1f}x {plain_cs / median:10.1f}x {better:>7} {aa} "
                f"{spread:9.1f}x {above:9d}"
            )
        verdicts = {label: median for label, median, *_ in rows}
        best = verdicts.get("duplicate, full, cs", math.nan)
        print(
            f"goal: duplicate + full + cs needs {best:.0f} hands (median), {plain_cs / best:.1f}x fewer than plain "
            f"play with the same test and {base / best:.1f}x fewer than plain play with the SPRTs "
            f"(goal: >= 10x, and <= 10,000 hands at about 40 bb/100)"
        )
        today = {r[0]: r for r in rows}.get("duplicate, full, cs")  # full looked at every --batch deals
        lefts = {
            "full": full_left,
            "learned": learned_left,
            "learned-0": unprimed_left,
            "baseline": baseline_left,
            "tilted": tilted_left,
            "tilted-learned": tilted_learned_left,
        }
        for new in rows:
            if today is None or new is today or new[7] not in lefts:
                continue
            print(
                f"issue 35: {new[0]} median {new[1]:.0f} hands vs {today[0]} (before issue 35's fifth attempt: a look "
                f"every {args.batch} deals) {today[1]:.0f}: {new[1] / today[1]:.2f} of it (goal <= 0.5); its longest "
                f"run {new[6]:.1f}x its median, {new[8]} of {power_reps} runs above 3x (goal <= 3; today's "
                f"{today[6]:.1f}x, {today[8]}); variance per hand left of plain raw {lefts[new[7]]:.1%} (today's "
                f"{full_left:.1%}; goal <= 2% on the deterministic pairs); A/A false {new[3]:.3f} over {args.reps} "
                f"runs (today's {today[3]:.3f}; goal <= 0.05)"
            )
        print(
            f"resampling {sum(r[5] for r in rows):.0f} s; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
