"""The cross-fitted ridge fit of ``dealer.stats.control``: each fold's weights from the other folds'
sums of ``u u^T`` (``u = (y, z)``), and the corrected values' count, mean and sum of squares (pure: no I/O,
clock or RNG; ``dealer.stats.control``'s doc says what is fitted and why).

A ``learned`` comparison refits at every look of its sequential test, so a refit is made cheap: the sums
over all folds are taken once, the ridge system of all folds but one (a fold's fit) or but two (the
inner cross-validation's, the same for both folds) is built and factored (Cholesky) once and solved for
each prior it is asked with. Plain float arithmetic in a fixed order (no numpy, no ``sum`` of floats,
whose rounding changed in Python 3.12): the same bits on any machine, and compiled by mypyc
(``setup.py``, without fused multiply-add) the same bits as this source.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

FOLDS = 10
MIN_FIT = 200  # samples the other folds must hold before a fold is corrected
RIDGE = 0.1  # ridge penalty, a share of each column's own sum of squares


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a x = b`` (Gaussian elimination with partial pivoting); a column with no pivot
    (all zero: a feature that never occurred) gets 0."""
    m = len(b)
    rows = [[*a[i], b[i]] for i in range(m)]
    scale = max((abs(v) for row in a for v in row), default=0.0)
    pivots: list[int] = []
    r = 0
    for c in range(m):
        p = max(range(r, m), key=lambda i: abs(rows[i][c]), default=r)
        if r >= m or abs(rows[p][c]) <= 1e-12 * scale:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        for i in range(m):
            if i != r and rows[i][c] != 0.0:
                f = rows[i][c] / rows[r][c]
                rows[i] = [vi - f * vr for vi, vr in zip(rows[i], rows[r], strict=True)]
        pivots.append(c)
        r += 1
    x = [0.0] * m
    for k, c in enumerate(pivots):
        x[c] = rows[k][m] / rows[k][c]
    return x


def _dot(x: Sequence[float], y: Sequence[float]) -> float:
    """``x . y``, summed in order."""
    total = 0.0
    for a, b in zip(x, y, strict=True):
        total += a * b
    return total


def _lower(square: list[list[float]]) -> list[list[float]]:
    """A symmetric matrix's lower triangle, by rows (row ``i`` holds columns ``0..i``)."""
    return [row[: i + 1] for i, row in enumerate(square)]


def _square(lower: list[list[float]]) -> list[list[float]]:
    """The symmetric matrix whose lower triangle ``lower`` is."""
    return [[*row, *(below[i] for below in lower[i + 1 :])] for i, row in enumerate(lower)]


def _form(c: list[float], square: list[list[float]]) -> float:
    """``c^T S c`` for the symmetric ``S``: ``c . (S c)``, each dot product summed in order."""
    total = 0.0
    for i, row in enumerate(square):
        total += c[i] * _dot(c, row)
    return total


class _Ridge:
    """The ridge system of one set of folds' sums: ``(Szz + R) w = Szy + R prior``, ``R`` ``RIDGE`` times
    the diagonal of ``Szz``, factored once (Cholesky) and solved for any prior. A column whose sum of
    squares is at most ``1e-12`` of the largest entry (a feature that never occurred in these folds) gets
    0, as in ``solve``, which solves the system where it is not numerically positive definite."""

    __slots__ = ("factor", "sums", "used")

    def __init__(self, sums: list[list[float]]) -> None:
        """``sums``: the lower triangle of the folds' sums of ``u u^T``, ``u = (y, z)``."""
        self.sums = sums
        scale = 0.0
        for i in range(1, len(sums)):
            row = sums[i]
            for j in range(1, i):
                scale = max(scale, abs(row[j]))
            scale = max(scale, abs(row[i] * (1 + RIDGE)))
        self.used = [i for i in range(1, len(sums)) if sums[i][i] * (1 + RIDGE) > 1e-12 * scale]
        self.factor = _cholesky(sums, self.used, 1e-12 * scale)

    def fit(self, prior: Sequence[float]) -> list[float]:
        """The weights: the ridge fit of ``y`` on ``z`` pulled towards ``prior``."""
        sums = self.sums
        b = [sums[i + 1][0] + RIDGE * sums[i + 1][i + 1] * p for i, p in enumerate(prior)]
        if self.factor is None:
            a = [[*row[1:-1], row[-1] * (1 + RIDGE)] for row in sums[1:]]
            return solve(_square(a), b)
        w = [0.0] * len(b)
        for i, x in zip(self.used, _substitute(self.factor, [b[i - 1] for i in self.used]), strict=True):
            w[i - 1] = x
        return w


Factor = tuple[list[list[float]], list[float]]
"""A Cholesky factor ``L`` (``L L^T = a``): its rows below the diagonal, and its diagonal."""


def _cholesky(sums: list[list[float]], used: list[int], limit: float) -> Factor | None:
    """The Cholesky factor of the ridge matrix ``Szz + R`` (``_Ridge``) on the columns ``used`` of the sums
    ``sums`` (by the rows of their lower triangle); None where a pivot falls to ``limit`` or below (the
    matrix not numerically positive definite)."""
    rows: list[list[float]] = []
    diag: list[float] = []
    for i, ui in enumerate(used):
        si = sums[ui]
        row: list[float] = []
        for j in range(i):
            lj = rows[j]
            s = si[used[j]]
            for k in range(j):
                s -= row[k] * lj[k]
            row.append(s / diag[j])
        s = si[ui] * (1 + RIDGE)
        for x in row:
            s -= x * x
        if not s > limit:
            return None
        rows.append(row)
        diag.append(math.sqrt(s))
    return rows, diag


def _substitute(factor: Factor, b: list[float]) -> list[float]:
    """``x`` with ``L L^T x = b`` (``L`` the factor): forward, then back substitution."""
    rows, diag = factor
    m = len(b)
    x: list[float] = []
    for i in range(m):
        row = rows[i]
        s = b[i]
        for k in range(i):
            s -= row[k] * x[k]
        x.append(s / diag[i])
    for i in range(m - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, m):
            s -= rows[k][i] * x[k]
        x[i] = s / diag[i]
    return x


def _without(total: list[list[float]], first: list[list[float]], *second: list[list[float]]) -> list[list[float]]:
    """``total`` minus one fold's sums or two folds' (each entry rounded once: ``t - (p + q)``)."""
    out: list[list[float]] = []
    for i, row in enumerate(total):
        p = first[i]
        if second:
            q = second[0][i]
            out.append([row[j] - (p[j] + q[j]) for j in range(len(row))])
        else:
            out.append([row[j] - p[j] for j in range(len(row))])
    return out


class _CrossFit:
    """``cross_fit``'s fits, each computed once: the sums over all folds, the ridge system of all folds
    but one (each fold's fit) and of all folds but two (which both folds' inner cross-validations use)."""

    __slots__ = ("counts", "folds", "n", "prior", "residuals", "seconds", "systems", "total")

    def __init__(self, counts: Sequence[int], seconds: Sequence[list[list[float]]], prior: Sequence[float] | None):
        """Each fold's count and sums of ``u u^T`` (``u = (y, z)``), and the prior (None: zeros)."""
        self.counts, self.n, self.prior, self.seconds = counts, sum(counts), prior, seconds
        self.folds = [_lower(s) for s in seconds]
        self.total = [[math.fsum(v) for v in zip(*rows, strict=True)] for rows in zip(*self.folds, strict=True)]
        self.systems: dict[tuple[int, ...], _Ridge] = {}
        self.residuals: dict[tuple[float, ...], list[float]] = {}

    def system(self, *out: int) -> _Ridge:
        """The ridge system of all folds but ``out`` (one fold or two)."""
        key = tuple(sorted(out))
        if key not in self.systems:
            self.systems[key] = _Ridge(_without(self.total, *(self.folds[f] for f in key)))
        return self.systems[key]

    def residual(self, fold: int, w0: list[float]) -> list[float]:
        """``fold``'s sums of ``z (y - z . w0)``."""
        key = (fold, *w0)
        if key not in self.residuals:
            self.residuals[key] = [row[0] - _dot(w0, row[1:]) for row in self.seconds[fold][1:]]
        return self.residuals[key]

    def weights(self, fold: int) -> list[float]:
        """``fold_weights``."""
        counts, n = self.counts, self.n
        columns = len(self.total) - 1
        w0 = list(self.prior) if self.prior is not None else [0.0] * columns
        if n - counts[fold] < MIN_FIT:
            return w0
        outer = self.system(fold)
        if self.prior is not None and _form([1.0, *(-x for x in w0)], _square(outer.sums)) > outer.sums[0][0]:
            w0 = [0.0] * columns  # the prior does not fit these bots
        w = outer.fit(w0)
        # Over the other folds, r . p and p . p: r = y - z . w0, p the inner prediction's change.
        gains: list[float] = []
        spreads: list[float] = []
        for j in range(FOLDS):
            if j == fold or not counts[j] or n - counts[fold] - counts[j] < MIN_FIT:
                continue
            inner = [x - x0 for x, x0 in zip(self.system(fold, j).fit(w0), w0, strict=True)]
            gains.append(_dot(inner, self.residual(j, w0)))
            spreads.append(_form([0.0, *inner], self.seconds[j]))
        gain, spread = math.fsum(gains), math.fsum(spreads)
        shrink = min(1.0, max(0.0, gain / spread)) if spread > 0 else 0.0
        return [x0 + shrink * (x - x0) for x, x0 in zip(w, w0, strict=True)]


def fold_weights(
    counts: Sequence[int], seconds: Sequence[list[list[float]]], fold: int, prior: Sequence[float] | None = None
) -> list[float]:
    """The weights fold ``fold`` is corrected by, from the other folds only: their ridge fit (``_Ridge``),
    shrunk towards the prior by the factor in [0, 1] that best predicts each of them from the fit on
    the rest (an inner cross-validation, so a fit that would add variance, on rare extreme deals, is not
    trusted); the prior (zeros without one) while the other folds hold fewer than ``MIN_FIT`` samples,
    zeros instead of a prior that adds variance on the other folds."""
    return _CrossFit(counts, seconds, prior).weights(fold)


def cross_fit(
    counts: Sequence[int],
    firsts: Sequence[list[float]],
    seconds: Sequence[list[list[float]]],
    prior: Sequence[float] | None = None,
) -> tuple[int, float, float]:
    """Count, mean and sum of squared deviations of the values ``x = y - w_k . z``, each fold ``k`` by
    ``fold_weights`` (with ``prior``), from each fold's count and sums of ``u`` and ``u u^T`` (``u = (y, z)``)."""
    n = sum(counts)
    if not n:
        return 0, 0.0, 0.0
    fits = _CrossFit(counts, seconds, prior)
    totals: list[float] = []
    squares: list[float] = []
    for fold in range(FOLDS):
        if not counts[fold]:
            continue
        c = [1.0, *(-x for x in fits.weights(fold))]  # x = c . u
        totals.append(_dot(c, firsts[fold]))
        squares.append(_form(c, seconds[fold]))
    mean = math.fsum(totals) / n
    return n, mean, max(0.0, math.fsum(squares) - n * mean * mean)
