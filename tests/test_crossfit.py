"""dealer.stats.crossfit: the factored, shared refit is the cross-fit the docs describe (checked against a
plain restatement of it on the samples themselves), gives the same bits compiled and from its Python
source, and the same figures whatever order and merge the samples come in."""

from __future__ import annotations

import importlib.util
import json
import math
import random
from pathlib import Path
from types import ModuleType

import pytest

from dealer.stats import crossfit
from dealer.stats.control import ControlSums
from dealer.stats.crossfit import FOLDS, MIN_FIT, RIDGE, cross_fit, solve

Samples = list[tuple[int, float, list[float]]]


def _samples(rng: random.Random, n: int, columns: int, noise: float = 20.0) -> Samples:
    """(fold, value, controls): dense, heavy-tailed, rare and never-seen columns, the value their weighted
    sum plus noise (much noise: a fit the inner cross-validation shrinks)."""
    out = []
    for i in range(n):
        z = []
        for c in range(columns):
            if c == 0:
                z.append(0.0)  # never seen
            elif c % 3 == 0:
                z.append(rng.gauss(0, 30) if rng.random() < 0.03 else 0.0)  # rare
            else:
                z.append(rng.gauss(0, 5) ** 3 / 25 if c % 2 else rng.gauss(0, 10))
        y = sum((-1) ** c * (1 + c % 4) * x for c, x in enumerate(z)) + rng.gauss(0, noise)
        out.append((i % FOLDS, y, z))
    return out


def _dot(x: list[float], y: list[float]) -> float:
    return math.fsum(a * b for a, b in zip(x, y, strict=True))


def _fit(samples: Samples, out: set[int], prior: list[float]) -> list[float]:
    """The ridge fit on the samples of the folds not in ``out`` (``solve``, as the docs state it)."""
    rows = [(y, z) for f, y, z in samples if f not in out]
    m = len(prior)
    szz = [[math.fsum(z[i] * z[j] for _, z in rows) for j in range(m)] for i in range(m)]
    a = [[szz[i][j] * (1 + RIDGE * (i == j)) for j in range(m)] for i in range(m)]
    b = [math.fsum(z[i] * y for y, z in rows) + RIDGE * szz[i][i] * prior[i] for i in range(m)]
    return solve(a, b)


def _reference_weights(samples: Samples, fold: int, prior: list[float] | None, columns: int) -> list[float]:
    """``fold_weights`` restated on the samples: the fit on the other folds, shrunk towards the prior by
    the factor that best predicts each other fold from the fit on the rest."""
    counts = [sum(f == k for f, _, _ in samples) for k in range(FOLDS)]
    n = len(samples)
    w0 = list(prior) if prior is not None else [0.0] * columns
    if n - counts[fold] < MIN_FIT:
        return w0
    others = [(y, z) for f, y, z in samples if f != fold]
    if prior is not None and math.fsum((y - _dot(w0, z)) ** 2 for y, z in others) > math.fsum(y * y for y, _ in others):
        w0 = [0.0] * columns
    w = _fit(samples, {fold}, w0)
    gain = spread = 0.0
    for j in range(FOLDS):
        if j == fold or not counts[j] or n - counts[fold] - counts[j] < MIN_FIT:
            continue
        inner = [x - x0 for x, x0 in zip(_fit(samples, {fold, j}, w0), w0, strict=True)]
        for f, y, z in samples:
            if f == j:
                p = _dot(inner, z)  # the inner prediction's change
                gain += (y - _dot(w0, z)) * p
                spread += p * p
    shrink = min(1.0, max(0.0, gain / spread)) if spread > 0 else 0.0
    return [x0 + shrink * (x - x0) for x, x0 in zip(w, w0, strict=True)]


@pytest.mark.parametrize(
    ("n", "noise", "with_prior", "shrunk"),
    [(900, 1000.0, False, True), (900, 1000.0, True, None), (240, 20.0, True, None), (2500, 300.0, False, False)],
)
def test_each_folds_weights_are_the_documented_cross_fit_restated_on_the_samples(
    n: int, noise: float, with_prior: bool, shrunk: bool | None
) -> None:
    columns = 6
    samples = _samples(random.Random(n), n, columns, noise)
    prior = [0.0, 1.0, -2.0, 0.5, 1.0, -2.0] if with_prior else None
    sums = ControlSums(columns, prior)
    for s in samples:
        sums.add(*s)
    corrected, ratios = [], []
    for fold in range(FOLDS):
        expected = _reference_weights(samples, fold, prior, columns)
        got = sums.weights(fold)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), fold
        ratios.append(got[1] / _fit(samples, {fold}, [0.0] * columns)[1])  # the shrink, without a prior
        corrected += [y - _dot(got, z) for f, y, z in samples if f == fold]
    if shrunk is not None:  # with much noise the inner cross-validation shrinks the fit, else keeps it
        assert any(0.05 < r < 0.95 for r in ratios) == shrunk, ratios
    count, mean, m2 = sums.moments()
    assert count == n and mean == pytest.approx(math.fsum(corrected) / n, rel=1e-9)
    assert m2 == pytest.approx(math.fsum((x - mean) ** 2 for x in corrected), rel=1e-9)


def test_a_prior_that_adds_variance_is_dropped_as_the_restatement_drops_it() -> None:
    samples = _samples(random.Random(3), 900, 6)
    prior = [0.0, 0.0, 40.0, 0.0, 0.0, 0.0]  # far from the values' weights
    sums, plain = ControlSums(6, prior), ControlSums(6)
    for s in samples:
        sums.add(*s)
        plain.add(*s)
    assert sums.weights(2) == plain.weights(2)  # fitted from zero, as without a prior
    assert sums.weights(2) == pytest.approx(_reference_weights(samples, 2, prior, 6), rel=1e-9)


def _source_module() -> ModuleType:
    """dealer/stats/crossfit.py run from its Python source, whatever build is imported."""
    path = Path(crossfit.__file__).with_name("crossfit.py")
    spec = importlib.util.spec_from_file_location("crossfit_from_source", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_compiled_fit_gives_the_bits_of_its_python_source() -> None:
    # setup.py compiles crossfit.py (mypyc, with no fused multiply-add): a verdict must not depend on
    # whether a machine could compile it. 18 columns, as the learned correction's, with a prior.
    source = _source_module()
    for n, seed in ((3000, 1), (450, 2)):
        sums = ControlSums(18, [0.1 * (c % 5) for c in range(18)])
        for s in _samples(random.Random(seed), n, 18):
            sums.add(*s)
        folds = [sums._fold_moments(f) for f in range(FOLDS)]
        args = (sums.counts, [f[0] for f in folds], [f[1] for f in folds], sums.prior)
        assert cross_fit(*args) == source.cross_fit(*args) == sums.moments()  # exactly
        assert [sums.weights(f) for f in range(FOLDS)] == [
            source.fold_weights(sums.counts, args[2], f, sums.prior) for f in range(FOLDS)
        ]


def test_the_learned_columns_give_the_same_figures_whatever_order_and_merge() -> None:
    samples = _samples(random.Random(4), 1200, 18)
    prior = [0.05 * c for c in range(18)]
    whole = ControlSums(18, prior)
    for s in samples:
        whole.add(*s)
    shuffled = samples[:]
    random.Random(5).shuffle(shuffled)
    parts = [ControlSums(18, prior) for _ in range(4)]
    for k, s in enumerate(shuffled):
        parts[k % 4].add(*s)
    merged = ControlSums(18, prior)
    for part in reversed(parts):
        merged.merge(part)
    again = ControlSums.from_json(json.loads(json.dumps(merged.as_json())), prior)
    assert whole.moments() == merged.moments() == again.moments()  # exactly, not approximately
    assert [whole.weights(f) for f in range(FOLDS)] == [again.weights(f) for f in range(FOLDS)]


def test_a_ridge_system_that_is_not_positive_definite_is_solved_by_elimination() -> None:
    # Sums no set of samples gives (off the diagonal above it): no Cholesky factor, so the weights are
    # those of solve(); and one whose column never occurred gets 0 for it, as solve() gives.
    sums = [[9.0], [2.0, 1.0], [3.0, 5.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
    system = crossfit._Ridge(sums)
    assert system.factor is None
    a = [[1.1, 5.0, 0.0], [5.0, 1.1, 0.0], [0.0, 0.0, 0.0]]
    assert system.fit([1.0, 0.0, 0.0]) == solve(a, [2.0 + RIDGE * 1.0, 3.0, 0.0])
    good = crossfit._Ridge([[9.0], [2.0, 4.0], [3.0, 1.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
    assert good.factor is not None and good.used == [1, 2]
    expected = solve([[4.4, 1.0, 0.0], [1.0, 2.2, 0.0], [0.0, 0.0, 0.0]], [2.0, 3.0, 0.0])
    assert good.fit([0.0, 0.0, 0.0]) == pytest.approx(expected, rel=1e-12) and good.fit([0.0] * 3)[2] == 0.0
