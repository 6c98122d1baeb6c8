"""The cross-fitted ridge fit of ``dealer.stats.control``: each fold's weights from the other folds'
sums of ``u u^T`` (``u = (y, z)``), and the corrected values' count, mean and sum of squares (pure: no I/O,
clock or RNG; ``dealer.stats.control``'s doc says what is fitted and why).
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


def _fit(second: list[list[float]], columns: int, prior: Sequence[float]) -> list[float]:
    """The ridge least-squares fit of ``y`` on ``z`` from the sums of ``u u^T`` (``u = (y, z)``), its
    penalty pulling towards ``prior``: it solves ``(Szz + R) w = Szy + R prior``, ``R`` ``RIDGE`` times
    the diagonal of ``Szz``."""
    a = [[second[i + 1][j + 1] * (1 + RIDGE * (i == j)) for j in range(columns)] for i in range(columns)]
    b = [second[i + 1][0] + RIDGE * second[i + 1][i + 1] * prior[i] for i in range(columns)]
    return solve(a, b)


def _squares(second: list[list[float]], w: Sequence[float]) -> float:
    """The sum of squares of ``y - z . w`` from the sums of ``u u^T``."""
    c = [1.0] + [-x for x in w]
    return sum(c[i] * c[j] * second[i][j] for i in range(len(c)) for j in range(len(c)))


def _without(total: list[list[float]], *parts: list[list[float]]) -> list[list[float]]:
    """``total`` minus ``parts`` (the sums over all folds but some)."""
    return [[t - math.fsum(p[i][j] for p in parts) for j, t in enumerate(row)] for i, row in enumerate(total)]


def fold_weights(
    counts: Sequence[int], seconds: Sequence[list[list[float]]], fold: int, prior: Sequence[float] | None = None
) -> list[float]:
    """The weights fold ``fold`` is corrected by, from the other folds only: their fit (``_fit``),
    shrunk towards the prior by the factor in [0, 1] that best predicts each of them from the fit on
    the rest (an inner cross-validation, so a fit that would add variance, on rare extreme deals, is not
    trusted); the prior (zeros without one) while the other folds hold fewer than ``MIN_FIT`` samples,
    zeros instead of a prior that adds variance on the other folds."""
    columns = len(seconds[0]) - 1
    w0 = list(prior) if prior is not None else [0.0] * columns
    if sum(counts) - counts[fold] < MIN_FIT:
        return w0
    total = [[math.fsum(s[i][j] for s in seconds) for j in range(columns + 1)] for i in range(columns + 1)]
    outer = _without(total, seconds[fold])
    if prior is not None and _squares(outer, w0) > outer[0][0]:
        w0 = [0.0] * columns  # the prior does not fit these bots
    w = _fit(outer, columns, w0)
    gain = spread = 0.0  # sum over the other folds of r . p and p . p, r = y - z . w0, p the inner prediction's change
    for j in range(FOLDS):
        if j == fold or not counts[j] or sum(counts) - counts[fold] - counts[j] < MIN_FIT:
            continue
        inner = [
            x - x0 for x, x0 in zip(_fit(_without(total, seconds[fold], seconds[j]), columns, w0), w0, strict=True)
        ]
        second = seconds[j]
        residual = [
            second[a + 1][0] - sum(w0[b] * second[a + 1][b + 1] for b in range(columns)) for a in range(columns)
        ]
        gain += sum(inner[a] * residual[a] for a in range(columns))
        spread += sum(inner[a] * inner[b] * second[a + 1][b + 1] for a in range(columns) for b in range(columns))
    shrink = min(1.0, max(0.0, gain / spread)) if spread > 0 else 0.0
    return [x0 + shrink * (x - x0) for x, x0 in zip(w, w0, strict=True)]


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
    total = squares = 0.0
    for fold in range(FOLDS):
        if not counts[fold]:
            continue
        c = [1.0] + [-x for x in fold_weights(counts, seconds, fold, prior)]  # x = c . u
        first, second = firsts[fold], seconds[fold]
        total += sum(ci * fi for ci, fi in zip(c, first, strict=True))
        squares += sum(c[i] * c[j] * second[i][j] for i in range(len(c)) for j in range(len(c)))
    mean = total / n
    return n, mean, max(0.0, squares - n * mean * mean)
