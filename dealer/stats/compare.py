"""Regression testing: is the new version of a bot better than the old one?

A comparison plays the two versions on the same deals, either against each other (heads-up
duplicate: every deal is played twice with the seats swapped) or both against the same field
(each opponent ``f`` meets ``new`` and ``old`` on the same deals, duplicate as well).

The measured quantity is the **difference** ``new - old`` in big blinds per 100 hands:

* against each other, a duplicate group (one deal in both seatings) gives new's big blinds won
  minus old's over the two hands each played; heads-up without rake old's result is minus
  new's, so the difference is twice new's win rate against old (+10 bb/100 means new takes
  5 bb/100 from old);
* against a field, a group (one deal, one opponent, both versions in both seatings) gives new's
  big blinds won against ``f`` minus old's against ``f`` on the same cards: the difference of
  their win rates against the field.

Each group is one paired sample; the estimate is ``100 * sum(differences) / sum(hands each
version played)`` (``stats.bb_per_100_grouped``) with a normal confidence interval and a two-sided
p-value for "no difference". Every figure is given by five estimators (``ESTIMATORS``): ``raw``
(chips actually won), ``all-in`` (a hand all-in before the river scored by the players' equity,
``dealer.engine.equity``), ``aivat`` (every hand's result minus its card luck at the deal, flop, turn
and river, ``dealer.stats.aivat``: bots as black boxes) and ``full`` (``aivat`` minus the luck of the
two versions' own draws at the decisions where they reported their strategy, AIVAT with known
strategies; the same as ``aivat`` when neither reports one) and ``learned`` (``full`` minus the
hands' luck features, ``dealer.stats.luck_features``, weighted by a fit on the other folds of deals,
``dealer.stats.control``). All five are unbiased (``full`` as long as the versions draw their actions
from the strategies they report), and the verdict is taken from ``Settings.estimator`` (``full``
by default). A comparison also says what it cost: the hands a plain run would have needed for the
same precision (``Comparison.plain_hands``).

Verdicts (``verdict_from_ci``, or ``sequential_test`` with ``until_significant``):

* with a fixed number of hands, from the two-sided ``1 - alpha`` interval (95% by default):
  ``better`` if it lies above 0, ``worse`` if below 0, ``not worse`` if its lower end is above
  ``worse_than``, else ``inconclusive``;
* sequentially with ``test="cs"`` (the default, ``ConfidenceSequenceTest``), a two-sided
  ``1 - alpha`` confidence sequence, valid however often it is looked at: ``better`` or ``worse``
  as soon as it clears 0 (so a large difference stops early, whatever the bounds), ``not worse``
  once it lies between ``worse_than`` and ``better_than``;
* sequentially with ``test="sprt"`` (``SequentialTest``), two one-sided SPRTs on the paired
  differences in bb/100, each at ``alpha / 2``:
  "better" tests H0: diff = 0 against H1: diff = ``better_than``; "worse" tests H0: diff = 0
  against H1: diff = ``worse_than``. ``better`` when the first accepts H1, ``worse`` when the
  second accepts H1, ``not worse`` when both accept H0 (or the second has accepted H0 when the
  hands run out), else ``inconclusive`` at the maximum. So with no true difference a verdict of
  better or worse comes with probability at most about ``alpha``; a new version that is worse by
  ``worse_than`` is called ``not worse`` with probability at most about ``beta``, and one better
  by ``better_than`` misses ``better`` with probability at most about ``beta``.

Exit codes (``EXIT_CODES``): better 0, not worse 10, worse 11, inconclusive 12; 13 (``VOID``)
when a bot could not play (``faults.VOIDING``), whatever the figures say: a comparison played
or read from a league's matches alike (2 stays typer's usage error, 1 an unexpected failure).
"""

from __future__ import annotations

import collections
import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from dealer.config.choices import Deals, Estimator, TestKind
from dealer.config.league_file import CompareSettings as Settings
from dealer.engine.scheduler import compare_tables
from dealer.stats.control import stderr_of
from dealer.stats.faults import voided
from dealer.stats.paired import ESTIMATORS, FITTED, PairedSums, PairedTally, Pairing
from dealer.stats.records import MatchResult, fault_totals
from dealer.stats.stats import SPRT, ConfidenceSequence, Estimate, GroupedSums, two_sided_p_value
from dealer.stats.tilted_deals import PROPOSAL_VERSION

Verdict = Literal["better", "not worse", "worse", "inconclusive"]
EXIT_CODES: dict[str, int] = {"better": 0, "not worse": 10, "worse": 11, "inconclusive": 12}
VOID = 13  # the exit code of a comparison whose figures a failed bot made meaningless
BATCH = 20  # paired samples between two looks of the sequential test (``dealer compare --batch``, a league's)


def look_every(batch: int | None = None) -> int:
    """The paired samples between two looks of a comparison's sequential test: ``batch`` where one
    is asked, else ``BATCH``, whatever the estimator (a fitted one's look refits ten folds,
    ``dealer.stats.crossfit``: about 4 ms at ``learned``'s 18 columns). The confidence sequence holds
    however often it is looked at, so a look every 20 deals instead of 100 stops nearer where it
    first clears 0 (40 deals sooner on average) at no cost in false verdicts; the SPRTs look as often."""
    return batch if batch is not None else BATCH


@dataclass(frozen=True)
class Figures:
    """The difference new - old in bb/100 with its interval and p-value."""

    estimate: Estimate
    ci: tuple[float, float]
    p_value: float

    def as_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "bb_per_100": _r(self.estimate.mean),
            "stderr": _r(self.estimate.stderr),
            "ci": [_r(self.ci[0]), _r(self.ci[1])],
            "p_value": _r(self.p_value, 6),
        }


def _r(x: float, digits: int = 3) -> float | None:
    return round(x, digits) if math.isfinite(x) else None


def figures(sums: PairedSums, estimator: str, level: float = 0.95) -> Figures:
    """Estimate, two-sided ``level`` interval and p-value (H0: no difference) from paired samples' sums."""
    if not sums.deals:
        nan = float("nan")
        return Figures(Estimate(nan, math.inf, 0), (nan, nan), nan)
    moments = sums.fitted_moments(estimator)
    if moments is not None:
        n, mean, m2 = moments
        est = Estimate(mean, stderr_of(n, mean, m2), n)
    else:
        est = sums.totals[Estimator.FULL if estimator in FITTED else estimator].bb_per_100(1)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    ci = (est.mean - z * est.stderr, est.mean + z * est.stderr)
    if est.stderr == 0:
        p = 1.0 if est.mean == 0 else 0.0
    elif math.isinf(est.stderr):
        p = 1.0
    else:
        p = two_sided_p_value(est.mean / est.stderr)
    return Figures(est, ci, p)


def verdict_from_ci(ci: tuple[float, float], worse_than: float) -> Verdict:
    """The fixed-sample verdict from a two-sided interval of the difference."""
    low, high = ci
    if not (math.isfinite(low) and math.isfinite(high)):
        return "inconclusive"
    if low > 0:
        return "better"
    if high < 0:
        return "worse"
    if low > worse_than:
        return "not worse"
    return "inconclusive"


class _Looking:
    """What both sequential tests share: samples fed with ``update`` or shown as sums with
    ``observe``, each then looked at by the test's own ``_look``."""

    def __init__(self, settings: Settings) -> None:
        settings.check()
        self.settings = settings
        self.sums = GroupedSums()  # the samples fed by ``update``, each one unit
        self.informative = 0  # samples that are not exactly zero

    def update(self, values: Iterable[float]) -> None:
        """Add samples (bb/100 units), then latch any decision (call at batch ends)."""
        self.informative += _extend(self.sums, values)
        self._look(self.sums.moments())

    def observe(self, sums: PairedSums) -> None:
        """Look at every sample so far, summed elsewhere (a comparison's stream), and latch any decision."""
        self.informative = sums.informative
        self._look(sums.test_moments())

    def may_decide(self, deals: int) -> bool:
        """Whether the samples so far may decide: enough that did not cancel exactly to estimate a
        variance, or ``min_samples`` deals that all cancelled exactly (zero variance: the versions
        did exactly the same on every deal, no difference to estimate)."""
        informative = self.informative
        return informative >= self.settings.min_informative or (informative == 0 and deals >= self.settings.min_samples)

    def _look(self, moments: tuple[int, float, float]) -> None:
        """Look at the samples so far: their count, mean and sum of squared deviations."""
        raise NotImplementedError


class SequentialTest(_Looking):
    """Two one-sided SPRTs (each at alpha / 2) on paired differences in bb/100; see the module doc.

    Feed samples with ``update`` (or show it the sums of samples with ``observe``); ``decision`` is
    latched per test at its first decision, and ``verdict`` says better / worse / not worse once the
    question is answered, else ``None``. Its state is the exact sums of the samples (``GroupedSums``):
    the same whatever order they were summed in, so sums merged from several matches look the same.
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        a, b, m = settings.alpha / 2, settings.beta, settings.min_samples
        self.tests = {
            "better": SPRT(0.0, settings.better_than, a, b, m),
            "worse": SPRT(0.0, settings.worse_than, a, b, m),
        }
        self.decisions: dict[str, str | None] = {"better": None, "worse": None}

    def _look(self, moments: tuple[int, float, float]) -> None:
        for name, test in self.tests.items():
            if self.decisions[name] is None:
                test.load(*moments)
                if not self.may_decide(moments[0]):
                    continue
                status = test.status
                if status != "continue":
                    self.decisions[name] = status

    def verdict(self, final: bool = False) -> Verdict | None:
        """The verdict so far (``None``: keep playing); ``final``: the hands have run out."""
        better, worse = self.decisions["better"], self.decisions["worse"]
        if better == "accept_h1" and worse == "accept_h1":  # only with absurd settings: by the mean
            return "better" if self.tests["better"].mean > 0 else "worse"
        if better == "accept_h1":
            return "better"
        if worse == "accept_h1":
            return "worse"
        if worse == "accept_h0" and (better == "accept_h0" or final):
            return "not worse"
        return "inconclusive" if final else None

    def as_json(self) -> dict[str, object]:
        """The state of both tests."""
        return {
            name: {
                "h0": 0.0,
                "h1": test.mu1,
                "alpha": test.alpha,
                "beta": test.beta,
                "samples": test.n,
                "llr": _r(test.llr),
                "bounds": [_r(test.lower_bound), _r(test.upper_bound)],
                "decision": self.decisions[name],
            }
            for name, test in self.tests.items()
        }


class ConfidenceSequenceTest(_Looking):
    """The confidence-sequence test (``test="cs"``): a two-sided ``1 - alpha`` confidence sequence of
    the difference in bb/100 (``stats.ConfidenceSequence``), looked at after every update.

    ``better`` as soon as it lies above 0, ``worse`` below 0, ``not worse`` once it lies inside
    (``worse_than``, ``better_than``); at the maximum, ``not worse`` if its lower end is above
    ``worse_than``, else ``inconclusive``. Valid however often it is looked at: with no true
    difference, better or worse comes with chance at most about alpha; a large difference is
    answered as soon as the interval clears 0, whatever the bounds.
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.sequence = ConfidenceSequence(settings.alpha, settings.cs_horizon, settings.min_samples)
        self.decision: Verdict | None = None

    def _look(self, moments: tuple[int, float, float]) -> None:
        if self.decision is not None:
            return
        self.sequence.load(*moments)
        if not self.may_decide(moments[0]):
            return
        low, high = self.sequence.interval
        if low > 0:
            self.decision = "better"
        elif high < 0:
            self.decision = "worse"
        elif low > self.settings.worse_than and high < self.settings.better_than:
            self.decision = "not worse"

    def verdict(self, final: bool = False) -> Verdict | None:
        """The verdict so far (``None``: keep playing); ``final``: the hands have run out."""
        if self.decision is not None or not final:
            return self.decision
        low = self.sequence.interval[0] if self.may_decide(self.sequence.n) else -math.inf
        return "not worse" if low > self.settings.worse_than else "inconclusive"

    def as_json(self) -> dict[str, object]:
        """The state of the confidence sequence."""
        low, high = self.sequence.interval
        return {
            "alpha": self.sequence.alpha,
            "horizon": self.sequence.horizon,
            "samples": self.sequence.n,
            "mean": _r(self.sequence.mean),
            "interval": [_r(low), _r(high)],
            "decision": self.decision,
        }


AnyTest = SequentialTest | ConfidenceSequenceTest


def _extend(sums: GroupedSums, values: Iterable[float]) -> int:
    """Add samples to sums, each one unit; return how many are not exactly zero."""
    informative = 0
    for value in values:
        sums.add(value, 1)
        informative += value != 0
    return informative


def sequential_test(settings: Settings) -> AnyTest:
    """The sequential test the settings name: a confidence sequence (``cs``) or two SPRTs (``sprt``)."""
    return ConfidenceSequenceTest(settings) if settings.test == TestKind.CS else SequentialTest(settings)


@dataclass
class Comparison:
    """Everything a comparison reports."""

    new: str
    old: str
    field: tuple[str, ...]
    settings: Settings
    sums: PairedSums  # the paired samples used, summed
    by_estimator: dict[str, Figures]
    verdict: Verdict
    decided_by: str  # "sprt", "confidence sequence" (either ": maximum hands"), "confidence interval"
    sequential: AnyTest | None = None
    hands_played: int = 0
    faults: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # by bot and reason
    extra: dict[str, object] = dataclasses.field(default_factory=dict)
    strategies_refused: dict[str, str] | None = None  # bot -> why its reported strategies were ignored
    result: MatchResult | None = None  # dealer compare's match (who never started, their log tails)
    dealing: str = Deals.PLAIN  # or tilted: the board tilted, each deal weighted (dealer.stats.tilted_deals)

    @property
    def hands(self) -> int:
        """Hands used: every hand of the samples (both versions' tables, the field's included, and the
        reference bot's of the ``baseline`` estimator)."""
        return self.sums.hands * (2 if self.field else 1) + self.sums.reference_hands

    @property
    def failed(self) -> dict[str, dict[str, int]]:
        """The bots that could not play (a voiding fault), with their faults: these void the figures."""
        return {name: reasons for name, reasons in self.faults.items() if voided(reasons)}

    @property
    def exit_code(self) -> int:
        """The process exit code: the verdict's, or ``VOID`` when a bot failed."""
        return VOID if self.failed else EXIT_CODES[self.verdict]

    @property
    def raw(self) -> Figures:
        """The figures from the chips actually won."""
        return self.by_estimator["raw"]

    @property
    def adjusted(self) -> Figures:
        """The all-in adjusted figures."""
        return self.by_estimator["all-in"]

    @property
    def used(self) -> Figures:
        """The figures the verdict is taken from."""
        return self.by_estimator[self.settings.estimator]

    def variance_removed(self, estimator: str) -> float | None:
        """The share of the raw figures' variance an estimator removes (1 - its stderr^2 / raw's)."""
        raw, other = self.raw.estimate.stderr, self.by_estimator[estimator].estimate.stderr
        if not (math.isfinite(raw) and math.isfinite(other)) or raw == 0:
            return None
        return 1 - (other / raw) ** 2

    def hands_factor(self, estimator: str) -> float | None:
        """How many times fewer hands an estimator needs than raw for the same precision (raw's
        variance over its own)."""
        raw, other = self.raw.estimate.stderr, self.by_estimator[estimator].estimate.stderr
        if not (math.isfinite(raw) and math.isfinite(other)) or other == 0:
            return None
        return (raw / other) ** 2

    @property
    def plain_variance(self) -> float | None:
        """The variance of one hand's difference new - old (bb/100 units) as plain play sees it: each
        hand played on its own, raw chips (from every hand of the samples, both seatings)."""
        n, _, m2 = self.sums.plain.moments()
        return m2 / (n - 1) if n >= 2 else None

    def plain_hands(self, estimator: str) -> float | None:
        """The hands a plain run (no duplicate, raw chips, one hand a sample) would need for the
        precision ``estimator`` reached here: plain variance per hand over its squared standard error
        (four times that against a field, where each version plays half the hands unpaired)."""
        plain, stderr = self.plain_variance, self.by_estimator[estimator].estimate.stderr
        if plain is None or not math.isfinite(stderr) or stderr == 0:
            return None
        return (4 if self.field else 1) * plain / stderr**2

    def variance_left(self, estimator: str) -> float | None:
        """The share of plain play's variance per hand that ``estimator`` leaves: the hands it needed over
        the hands a plain run would need for the same precision (its hands counted as this run's are;
        the reference bot's only for ``baseline``, the one estimator that needs them)."""
        plain = self.plain_hands(estimator)
        hands = self.hands - (self.sums.reference_hands if estimator != Estimator.BASELINE else 0)
        return None if plain is None or plain == 0 else hands / plain

    def as_json(self) -> dict[str, object]:
        """One JSON-ready dict (the ``--json`` output)."""
        s = self.settings
        return {
            "new": self.new,
            "old": self.old,
            "field": list(self.field),
            "mode": "field" if self.field else "head-to-head",
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "decided_by": self.decided_by,
            "hands": self.hands,
            "deals": self.sums.deals,
            "dealing": self.dealing,
            **({"tilted_proposal": PROPOSAL_VERSION} if self.dealing == Deals.TILTED else {}),
            "all_in_adjusted_hands": self.sums.all_in,
            "luck_corrected_hands": self.sums.corrected,
            "known_strategy_hands": self.sums.known,
            "strategies_refused": self.strategies_refused or {},
            "ci_level": round(1 - s.alpha, 6),
            "raw": self.raw.as_json(),
            "adjusted": self.adjusted.as_json(),
            **{e: self.by_estimator[e].as_json() for e in ("aivat", "full", "learned", "baseline")},
            "verdict_from": s.estimator,
            "variance_removed": {
                e: _r(v, 4) if (v := self.variance_removed(e)) is not None else None
                for e in ESTIMATORS
                if e != Estimator.RAW
            },
            "hands_factor": {
                e: _r(v, 2) if (v := self.hands_factor(e)) is not None else None
                for e in ESTIMATORS
                if e != Estimator.RAW
            },
            "cost": {
                "hands_used": self.hands,
                "reference_hands": self.sums.reference_hands,
                "plain_variance_per_hand": _r(v, 1) if (v := self.plain_variance) is not None else None,
                "plain_hands": {e: round(v) if (v := self.plain_hands(e)) is not None else None for e in ESTIMATORS},
                "variance_left_per_hand": {
                    e: _r(v, 4) if (v := self.variance_left(e)) is not None else None for e in ESTIMATORS
                },
            },
            "settings": {
                "worse_than": s.worse_than,
                "better_than": s.better_than,
                "alpha": s.alpha,
                "beta": s.beta,
                "until_significant": s.until_significant,
                "estimator": s.estimator,
                "test": s.test,
            },
            "sprt": self.sequential.as_json() if isinstance(self.sequential, SequentialTest) else None,
            "confidence_sequence": (
                self.sequential.as_json() if isinstance(self.sequential, ConfidenceSequenceTest) else None
            ),
            "faults": self.faults,
            **({"error": f"bots failed: {self.failed}"} if self.failed else {}),
            **self.extra,
        }


def summarize(
    sums: PairedSums,
    new: str,
    old: str,
    settings: Settings,
    field: Sequence[str] = (),
    sequential: AnyTest | None = None,
) -> Comparison:
    """The comparison from paired samples' sums; with ``sequential``, its verdict (final at this point;
    without it, a sequential test looks once, at the sums)."""
    level = 1 - settings.alpha
    by_estimator = {e: figures(sums, e, level) for e in ESTIMATORS}
    if settings.until_significant:
        if sequential is None:
            sequential = sequential_test(settings)
            sequential.observe(sums)
        verdict = sequential.verdict()
        decided_by = "sprt" if isinstance(sequential, SequentialTest) else "confidence sequence"
        if verdict is None:
            verdict, decided_by = sequential.verdict(final=True), f"{decided_by}: maximum hands"
    else:
        verdict = verdict_from_ci(by_estimator[settings.estimator].ci, settings.worse_than)
        decided_by = "confidence interval"
    assert verdict is not None
    return Comparison(new, old, tuple(field), settings, sums, by_estimator, verdict, decided_by, sequential)


def looker(test: AnyTest | None) -> Callable[[PairedSums], bool] | None:
    """What a comparison's stream calls at each look (``PairedTally``): show the sequential test the
    sums so far; True (stop) once it has a verdict."""
    if test is None:
        return None

    def look(sums: PairedSums) -> bool:
        test.observe(sums)
        return test.verdict() is not None

    return look


def finish(tally: PairedTally, test: AnyTest | None) -> PairedSums:
    """The samples a comparison reports once its hands are over: all of them, or with a sequential
    test those it had seen at its verdict; an undecided test looks a last time at samples it has
    not seen (the stretch after its last look)."""
    total = tally.finish()
    if test is not None and test.verdict() is None and tally.rest.deals:
        test.observe(total)
        return total
    return tally.sums if test is not None else total


def compare_results(
    results: Sequence[MatchResult],
    new: str,
    old: str,
    settings: Settings,
    field: Sequence[str] = (),
    batch: int | None = None,
) -> Comparison:
    """The comparison of finished matches (a league's compare event, split into matches played
    anywhere, in any order): each match's stream (``MatchResult.paired``, or its hand records run
    through one) is merged, look by look, into the stream ``dealer compare`` would have seen on
    the same deals, and the sequential test looks where it would have looked."""
    pairings = {r.paired.pairing for r in results if r.paired is not None}
    if not pairings:  # hand records only (tests, older journals): a look every ``batch`` samples (``look_every``)
        groups = sum(len({h.deal_set for h in r.records or ()}) for r in results)
        pairings = {Pairing.looking(new, old, settings.estimator, look_every(batch), groups)}
    pairing = pairings.pop()
    if pairings or (pairing.new, pairing.old, pairing.estimator) != (new, old, settings.estimator):
        raise ValueError(f"the matches of {new} against {old} were paired differently: {pairing}, {pairings}")
    tallies = [_tally(r, pairing) for r in sorted(results, key=lambda r: r.match_id)]
    test = sequential_test(settings) if settings.until_significant else None
    merged = PairedTally(pairing, {}, look=looker(test))
    for k in range(max((len(t.checks) for t in tallies), default=0)):
        stretch = PairedSums(pairing.estimator)
        for tally in tallies:
            if k < len(tally.checks):
                stretch.merge(tally.checks[k])
        merged.close(stretch)
    for tally in tallies:
        merged.rest.merge(tally.rest)
    return reported(summarize(finish(merged, test), new, old, settings, field, test), results)


def reported(comparison: Comparison, results: Sequence[MatchResult]) -> Comparison:
    """The comparison with what its matches report beside the figures: hands played, refused
    strategies, faults (a voiding fault makes ``exit_code`` 13), forfeits."""
    comparison.hands_played = sum(r.hands for r in results)
    comparison.strategies_refused = {k: v for r in results for k, v in r.strategies_refused.items()}
    totals = fault_totals(results)
    comparison.faults = {name: dict(sorted(r.items())) for name, r in sorted(totals.items()) if r}
    forfeited = [name for r in results for name in r.forfeited]
    if forfeited:
        comparison.extra["forfeited"] = forfeited
    return comparison


def _tally(result: MatchResult, pairing: Pairing) -> PairedTally:
    """A finished match's stream: the one it kept, or its hand records (tests, older journals) run through one."""
    if result.paired is not None:
        return result.paired
    if result.records is None:
        raise ValueError(f"match {result.match_id} kept neither its paired samples nor its hand records")
    sizes = collections.Counter(d for d, _ in {(h.deal_set, h.table) for h in result.records})
    tally = PairedTally(pairing, sizes, match_id=result.match_id, keep=True)
    for record in result.records:
        tally.add(record)
    tally.finish()
    return tally


# --------------------------------------------------------------------------- the size of a comparison


def deal_sets_for(max_hands: int, deal_sets: int, field: Sequence[str] = (), baseline: bool = False) -> int:
    """The deal sets a comparison of at most ``max_hands`` hands plays at once: ``deal_sets``, fewer when
    the hands do not fill that many (so no more hands are played than asked). ValueError below two
    paired deals, each played at every table of its duplicate group (``baseline``: with the reference
    bot's tables on the deal and its twin): one deal gives no interval."""
    tables = compare_tables("new", "old", [f"f{k}" for k in range(len(field))], 1)
    per_set = len(tables) + (2 * sum("new" in t.seats for t in tables) if baseline else 0)  # its twin's too
    if max_hands < 2 * per_set:
        raise ValueError(
            f"{max_hands} hands cannot make two paired deals, the fewest that give an interval: each deal is "
            f"played at the {per_set} tables of its duplicate group, so at least {2 * per_set} hands"
        )
    return max(1, min(deal_sets, max_hands // (2 * per_set)))
