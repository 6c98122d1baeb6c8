"""The cost of one refit of the learned correction (``ControlSums.moments()``, ``dealer.stats.control``):
what a ``learned`` comparison pays at every look of its sequential test.

The sums hold ``--samples`` paired samples of ``--columns`` control columns (the learned correction's
22 by default, with its prior), drawn from a fixed seed: a value correlated with the columns, some
columns rare (most samples zero) and one always zero, as the luck features are. A refit is what
``moments()`` does: each fold's exact sums rounded, then ``cross_fit``. With ``--against REV`` the
``cross_fit`` of git revision REV (``dealer/stats/crossfit.py``, or ``control.py`` before it existed)
is timed too, on the same sums, alternately with today's in the same run (so load hits both alike),
and both figures are printed (identical, or where they differ).

    python benchmarks/control_refit.py [--columns 22] [--samples 3000] [--rounds 7] [--against REV]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer.stats import control, crossfit  # noqa: E402


def module_at(revision: str) -> ModuleType:
    """The module that held ``cross_fit`` at git ``revision``, imported beside today's."""
    for path in ("dealer/stats/crossfit.py", "dealer/stats/control.py"):
        shown = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode == 0 and "def cross_fit(" in shown.stdout:
            spec = importlib.util.spec_from_loader(f"cross_fit_at_{revision}", loader=None)
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            exec(compile(shown.stdout, f"{revision}:{path}", "exec"), module.__dict__)
            return module
    raise SystemExit(f"no cross_fit at {revision}")


def samples(columns: int, count: int, seed: int) -> list[tuple[int, float, list[float]]]:
    """(fold, value, controls) of ``count`` samples: dense, rare and always-zero columns."""
    rng = random.Random(seed)
    truth = [rng.uniform(-2, 2) for _ in range(columns)]
    drawn = []
    for k in range(count):
        z = []
        for c in range(columns):
            if c == 0:
                z.append(0.0)  # a column that never occurs (the flop pot, which cancels in duplicate)
            elif c % 3 == 0:
                z.append(rng.gauss(0, 30) if rng.random() < 0.05 else 0.0)  # rare
            else:
                z.append(rng.gauss(0, 10))
        y = sum(t * x for t, x in zip(truth, z, strict=True)) + rng.gauss(0, 40)
        drawn.append((k % crossfit.FOLDS, y, z))
    return drawn


def filled(columns: int, drawn: list[tuple[int, float, list[float]]]) -> control.ControlSums:
    """ControlSums holding ``drawn`` (with the learned prior where the columns are its)."""
    sums = control.ControlSums(columns, control.LEARNED_PRIOR if columns == len(control.LEARNED_PRIOR) else None)
    for fold, y, z in drawn:
        sums.add(fold, y, z)
    return sums


def refit(sums: control.ControlSums, module: Any) -> tuple[int, float, float]:
    """``sums.moments()``, with ``module``'s ``cross_fit``."""
    folds = [sums._fold_moments(f) for f in range(crossfit.FOLDS)]
    return module.cross_fit(sums.counts, [f[0] for f in folds], [f[1] for f in folds], sums.prior)


def timed(sums: control.ControlSums, module: Any, repeats: int) -> tuple[float, tuple[int, float, float]]:
    """CPU seconds of one refit (the least of ``repeats``) and its figures."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        figures = refit(sums, module)
        best = min(best, time.process_time() - start)
    return best, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=len(control.LEARNED_PRIOR))
    parser.add_argument("--samples", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7, help="alternations (each the best of --repeats)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--against", metavar="REV", help="time control.py at git revision REV too, alternately")
    args = parser.parse_args()
    drawn = samples(args.columns, args.samples, args.seed)
    modules: dict[str, Any] = {"today": crossfit}
    if args.against:
        modules[args.against] = module_at(args.against)
    sums = filled(args.columns, drawn)
    assert sums.moments() == refit(sums, crossfit)
    compiled = crossfit.__file__ is not None and not crossfit.__file__.endswith(".py")
    print(
        f"load before: {os.getloadavg()[0]:.2f}; {args.columns} columns, {args.samples} samples;"
        f" today's crossfit compiled: {compiled}"
    )
    times: dict[str, list[float]] = {name: [] for name in modules}
    figures: dict[str, tuple[int, float, float]] = {}
    for _ in range(args.rounds):
        for name, module in modules.items():
            seconds, figures[name] = timed(sums, module, args.repeats)
            times[name].append(seconds)
    for name, row in times.items():
        ordered = sorted(row)
        print(f"{name:>12}: median {ordered[len(ordered) // 2] * 1000:7.2f} ms, best {ordered[0] * 1000:7.2f} ms CPU")
    if args.against:
        before, now = times[args.against], times["today"]
        print(f"ratio {args.against}/today: {sorted(before)[len(before) // 2] / sorted(now)[len(now) // 2]:.1f}x")
        same = figures["today"] == figures[args.against]
        print(
            f"figures {'identical' if same else 'differ'}: today {figures['today']},"
            f" {args.against} {figures[args.against]}"
        )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
