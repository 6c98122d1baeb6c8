"""``dealer compare``'s text output: the figures by estimator as a table, the hands and the verdict,
and what decided it; the running estimate of its progress line. A view: it reads a ``Comparison``
(or the running pairing) and starts nothing."""

from __future__ import annotations

import math

from tabulate import tabulate

from dealer.config.choices import Deals, Estimator
from dealer.config.league_file import CompareSettings as Settings
from dealer.stats.compare import Comparison, ConfidenceSequenceTest, SequentialTest, Verdict, figures
from dealer.stats.paired import FITTED, PairedTally

LABELS = {
    Estimator.LEARNED: "learned luck correction (learned)",
    Estimator.BASELINE: "reference bot's baseline (baseline)",
    Estimator.FULL: "luck + known strategies (full)",
    Estimator.AIVAT: "luck corrected (aivat)",
    Estimator.ALL_IN: "all-in adjusted",
    Estimator.RAW: "raw",
}  # how the text output names the estimators


def comparison_text(comparison: Comparison) -> str:
    """The table of the difference new - old by estimator (raw first), then a line of hands and
    verdict and a line saying which interval or test decided."""
    level = f"{100 * (1 - comparison.settings.alpha):g}% CI"
    rows = []
    for name, label in reversed(LABELS.items()):
        if name in FITTED and comparison.sums.fitted_moments(name) is None:
            continue  # not fitted in this run (its figures would be full's): its --estimator fits it
        fig = comparison.by_estimator[name]
        low, high = fig.ci
        removed = comparison.variance_removed(name) if name != Estimator.RAW else None
        rows.append(
            [
                label,
                number(fig.estimate.mean),
                f"[{number(low)}, {number(high)}]",
                number(fig.estimate.stderr, ".2f"),
                number(fig.p_value, ".4g"),
                "" if removed is None else f"{100 * removed:.0f}%",
            ]
        )
    table = tabulate(
        rows,
        headers=["new - old", "bb/100", level, "stderr", "p-value", "variance removed"],
        disable_numparse=True,
    )
    hands = (
        f"{comparison.hands} hands used ({comparison.sums.deals} paired deals, "
        f"{comparison.sums.all_in} hands all-in adjusted, "
        f"{comparison.sums.known} with known strategies); "
        f"verdict: {comparison.verdict.upper()} (by {comparison.decided_by}, from the "
        f"{comparison.settings.estimator} figures); exit code {comparison.exit_code}"
    )
    return "\n".join([table, hands, decided_line(comparison), cost_line(comparison)])


class RunningEstimate:
    """A comparison's estimate so far, for its progress line: new - old in bb/100 by the test's
    estimator, with its 95% interval, over the paired deals closed so far (``paired``: the match's
    running pairing, set as hands end). A glimpse, not the verdict: the report reads the test's looks."""

    def __init__(self) -> None:
        self.paired: PairedTally | None = None

    def text(self) -> str:
        """The estimate, or why there is none yet (an interval needs two paired deals)."""
        sums = self.paired.sums if self.paired is not None else None
        if sums is None or sums.deals < 2:
            return "an estimate after two paired deals"
        fig = figures(sums, sums.estimator)
        low, high = fig.ci
        return f"new - old {fig.estimate.mean:+.1f} bb/100 [{low:+.1f}, {high:+.1f}] over {sums.deals:,} paired deals"


def cost_line(comparison: Comparison) -> str:
    """One line of what the verdict cost: hands played and used, and what plain play would have needed."""
    e = comparison.settings.estimator
    plain, left = comparison.plain_hands(e), comparison.variance_left(e)
    would = (
        f"a plain run (one seating per deal, raw chips) would have needed about {plain:,.0f} hands for the "
        f"same precision ({left:.1%} of its variance per hand left by {e})"
        if plain is not None and left is not None
        else "no estimate yet of the hands a plain run would have needed"
    )
    reference = comparison.sums.reference_hands
    by = f" ({reference:,} of them by the reference bot of the baseline)" if reference else ""
    tilted = " on tilted deals (each weighted by p / q)" if comparison.dealing == Deals.TILTED else ""
    return f"cost: {comparison.hands_played:,} hands played, {comparison.hands:,} used{by}{tilted}; {would}"


def decided_line(comparison: Comparison) -> str:
    """One line saying which interval or test decided, with its figures (the text output)."""
    s = comparison.settings
    level = f"{100 * (1 - s.alpha):g}%"
    test = comparison.sequential
    if isinstance(test, SequentialTest):
        parts = []
        for name, sprt in test.tests.items():
            decision = test.decisions[name] or "no decision"
            parts.append(
                f"{name} (0 against {sprt.mu1:+g}): LLR {number(sprt.llr)} in [{number(sprt.lower_bound)}, "
                f"{number(sprt.upper_bound)}] after {sprt.n} paired deals, {decision}"
            )
        return f"decided by the SPRTs on the {s.estimator} figures: " + "; ".join(parts)
    if isinstance(test, ConfidenceSequenceTest):
        low, high = test.sequence.interval
        what = f"the {level} confidence sequence of the {s.estimator} figures after {test.sequence.n} paired deals"
        if not test.may_decide(test.sequence.n):
            why = (
                f"undecided: {test.informative} of those deals did not cancel exactly, "
                f"{s.min_informative} needed to estimate a variance"
            )
        else:
            why = _why(comparison.verdict, low, high, s, test.decision is not None)
        return f"decided by {what}: {_interval(low, high)} bb/100, {why}"
    low, high = comparison.used.ci
    why = _why(comparison.verdict, low, high, s, False)
    what = f"the {level} confidence interval of the {s.estimator} figures"
    return f"decided by {what}: {_interval(low, high)} bb/100, {why}"


def number(x: float, spec: str = "+.2f") -> str:
    """A figure for the text output: ``n/a`` when there is none (no paired deal), never ``nan``."""
    return "n/a" if math.isnan(x) else format(x, spec)


def _interval(low: float, high: float) -> str:
    return f"[{number(low)}, {number(high)}]"


def _why(verdict: Verdict, low: float, high: float, s: Settings, sequence: bool) -> str:
    """Why an interval gave its verdict (``sequence``: a confidence sequence that decided before the end)."""
    if verdict == "better":
        return "above 0: BETTER"
    if verdict == "worse":
        return "below 0: WORSE"
    if verdict == "not worse" and sequence:
        return f"inside ({s.worse_than:+g}, {s.better_than:+g}): NOT WORSE"
    if verdict == "not worse":
        return f"its lower end above {s.worse_than:+g}: NOT WORSE"
    if math.isnan(low) or math.isinf(low) or math.isinf(high):
        return "no finite interval yet: INCONCLUSIVE"
    return f"neither above 0, below 0, nor its lower end above {s.worse_than:+g}: INCONCLUSIVE"
