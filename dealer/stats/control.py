"""Cross-fitted control variates: a comparison's learned luck correction (pure: no I/O, clock or RNG).

Each paired sample ``i`` comes with its value ``y_i`` (the ``full`` figure, bb/100) and control columns
``z_i`` (``dealer.stats.luck_features``, the same units) that have expectation zero whatever the bots do.
The learned estimate replaces ``y_i`` by ``x_i = y_i - w_k . z_i``: for any fixed ``w`` that keeps the
mean (``E[w . z_i] = w . E[z_i] = 0``), and the ``w`` that removes the most variance is the least
squares fit of ``y`` on ``z``. Fitted on the same samples it corrects, ``w`` would pick up their
noise and bias the estimate; so the samples are split into ``FOLDS`` folds by hand number (fixed
before play, not by any result), and fold ``k`` is corrected by ``w_k`` fitted on the other folds
only (cross-fitting): ``w_k`` is independent of fold ``k``'s samples, so ``E[x_i] = E[y_i]`` exactly.

The state is each fold's exact sums of ``u u^T`` with ``u = (y, z)`` (``stats.ExactSum``): memory that
does not grow with the comparison, the same figures whatever order samples are added or merged in,
and the corrected samples' count, mean and sum of squares follow from them for any ``w``. A fold
whose other folds hold fewer than ``MIN_FIT`` samples is corrected by the prior weights ``w0`` (zero
without a prior: the ``full`` value). The fit is ridge-regularised (``RIDGE`` times the diagonal) towards
``w0`` and shrunk towards it by an inner cross-validation on the other folds (``fold_weights``), so rare
extreme deals do not swing it: when the fit does not predict the folds it did not see, the prior stays.
The fitting arithmetic is ``dealer.stats.crossfit``'s.

A prior (``ControlSums(prior=...)``; the learned correction's is ``LEARNED_PRIOR``) is a fixed vector chosen
before the comparison, so ``w0 . z_i`` keeps the mean as any fixed weights do; it lets a comparison
correct from its first deal, where a fit on its own deals would have seen too few of the rare deals
that carry the variance. A fold whose other folds a prior does not help (their sum of squares
``|y - z . w0|^2`` above ``|y|^2``: bots unlike those it was fitted on) drops it for a prior of zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dealer.stats.crossfit import FOLDS, cross_fit, fold_weights
from dealer.stats.stats import ExactSum

# The learned correction's prior weights, by ``dealer.stats.paired.CONTROL_COLUMNS`` (luck_features.FEATURES,
# then its duel columns split by seat): the ridge fit above on 144,000 duplicate deals of the three pairs
# of benchmarks/compare_verdicts.py (the sample strength bot against leaky_bot and loose_bot, mixed_bot
# against loose_mixed_bot), shuffled and tilted pools of 6,000 deals of seeds verdicts37-eval, -eval2,
# verdicts38-eval and verdicts50-eval, pooled (``benchmarks/fit_prior.py``), never on the seed that
# measures it. Fitted on three of the seeds, it leaves 0.66 of the variance the prior before it left on
# the fourth (geometric mean of the 24 pools, the prior alone; less on every one).
LEARNED_PRIOR: tuple[float, ...] = (
    0.0,  # pot flop (cancels in duplicate)
    8.726,  # pot turn
    -0.0187,  # pot river
    0.0,  # behind deal
    0.0,  # behind flop
    0.01502,  # behind turn
    0.05598,  # behind river
    0.0,  # button flop
    0.03004,  # button turn
    0.112,  # button river
    0.1341,  # duel pair turn, new in the first seat
    0.1487,  # duel two pair turn
    0.1019,  # duel pair river
    0.1672,  # duel two pair river
    0.561,  # duel strength 70 river
    0.5625,  # duel strength 80 river
    0.1354,  # duel pair turn, new in the second seat
    0.178,  # duel two pair turn
    0.1036,  # duel pair river
    0.1682,  # duel two pair river
    0.5619,  # duel strength 70 river
    0.5499,  # duel strength 80 river
)


class ControlSums:
    """Each fold's exact sums of ``u`` and ``u u^T`` (``u = (y, z)``), from which the cross-fitted
    estimate follows (module doc)."""

    __slots__ = ("columns", "counts", "prior", "products", "sums")

    def __init__(self, columns: int, prior: Sequence[float] | None = None) -> None:
        """``columns``: the control columns each sample brings; ``prior``: the weights before any fit
        (module doc; None: zeros)."""
        if prior is not None and len(prior) != columns:
            raise ValueError(f"a prior of {len(prior)} weights for {columns} control columns")
        self.columns = columns
        self.prior = tuple(prior) if prior is not None else None
        size = columns + 1
        self.counts = [0] * FOLDS
        self.sums = [[ExactSum() for _ in range(size)] for _ in range(FOLDS)]
        self.products = [[ExactSum() for _ in range(size * (size + 1) // 2)] for _ in range(FOLDS)]

    def add(self, fold: int, value: float, controls: Sequence[float]) -> None:
        """One sample: its fold (``0 <= fold < FOLDS``), value and control columns."""
        if len(controls) != self.columns:
            raise ValueError(f"a sample brought {len(controls)} control columns, not {self.columns}")
        u = [value, *controls]
        self.counts[fold] += 1
        sums, products = self.sums[fold], self.products[fold]
        k = 0
        for i, ui in enumerate(u):
            sums[i].add(ui)
            for uj in u[i:]:
                products[k].add(ui * uj)
                k += 1

    def merge(self, other: ControlSums) -> None:
        """Add every sample of ``other``."""
        if other.columns != self.columns:
            raise ValueError(f"control sums of {other.columns} columns cannot join {self.columns}")
        for f in range(FOLDS):
            self.counts[f] += other.counts[f]
            for mine, theirs in zip(self.sums[f] + self.products[f], other.sums[f] + other.products[f], strict=True):
                mine.n, mine.shift = _exact_add(mine, theirs)

    @property
    def n(self) -> int:
        """Samples added."""
        return sum(self.counts)

    def _fold_moments(self, fold: int) -> tuple[list[float], list[list[float]]]:
        """Fold ``fold``'s sums of ``u`` and ``u u^T``, each exact and rounded once."""
        size = self.columns + 1
        matrix = [[0.0] * size for _ in range(size)]
        k = 0
        for i in range(size):
            for j in range(i, size):
                matrix[i][j] = matrix[j][i] = self.products[fold][k].value
                k += 1
        return [s.value for s in self.sums[fold]], matrix

    def moments(self) -> tuple[int, float, float]:
        """The corrected samples' count, mean and sum of squared deviations (``cross_fit``): the state
        of a sequential test, as ``GroupedSums.moments``."""
        folds = [self._fold_moments(f) for f in range(FOLDS)]
        return cross_fit(self.counts, [f[0] for f in folds], [f[1] for f in folds], self.prior)

    def weights(self, fold: int) -> list[float]:
        """The control weights ``cross_fit`` corrects ``fold`` with."""
        folds = [self._fold_moments(f) for f in range(FOLDS)]
        return fold_weights(self.counts, [f[1] for f in folds], fold, self.prior)

    def as_json(self) -> dict[str, Any]:
        """The sums as integers (JSON keeps them exactly)."""
        return {
            "columns": self.columns,
            "counts": self.counts,
            "sums": [[[s.n, s.shift] for s in row] for row in self.sums],
            "products": [[[s.n, s.shift] for s in row] for row in self.products],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], prior: Sequence[float] | None = None) -> ControlSums:
        """Sums written by ``as_json`` (a prior is the reader's: it is not data)."""
        sums = cls(int(data["columns"]), prior)
        sums.counts = [int(c) for c in data["counts"]]
        for mine, theirs in ((sums.sums, data["sums"]), (sums.products, data["products"])):
            for row, values in zip(mine, theirs, strict=True):
                for s, (n, shift) in zip(row, values, strict=True):
                    s.n, s.shift = int(n), int(shift)
        return sums


def _exact_add(a: ExactSum, b: ExactSum) -> tuple[int, int]:
    """The exact sum of two ``ExactSum`` as (numerator, shift)."""
    shift = max(a.shift, b.shift)
    return (a.n << (shift - a.shift)) + (b.n << (shift - b.shift)), shift


def stderr_of(n: int, mean: float, m2: float) -> float:
    """The standard error of a mean from its count and sum of squared deviations (inf below two)."""
    return math.sqrt(m2 / (n - 1) / n) if n >= 2 else math.inf
