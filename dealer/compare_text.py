"""``dealer compare``'s text output: the figures by estimator as a table, the hands and the verdict,
and what decided it; the running estimate of its progress line. A view: it reads a ``Comparison``
(or the running pairing) and starts nothing."""

from __future__ import annotations

from tabulate import tabulate

from dealer.choices import Estimator
from dealer.compare import Comparison, figures, number
from dealer.paired import PairedTally

LABELS = {
    Estimator.LEARNED: "learned luck correction (learned)",
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
    return "\n".join([table, hands, comparison.decided_text(), comparison.cost_text()])


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
