"""CPU microseconds per ``phh_text`` call (the PHH writer runs once per hand in the dealer's loop).

Each shape is written as ``dealer/league/match.py`` writes it (names, hand number, table seats, match
fields). The figure is the median over several runs of the mean CPU time (``process_time``: the
load of other processes counts less) of many calls. Alongside, interleaved in the same process,
the figure of the writer at ``--baseline`` (a git revision; by default the last one before the
faster writer) when git can show it, so that a noisy machine still compares like with like.

Run: ``python benchmarks/history.py [--runs 9] [--calls 2000] [--baseline REV]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from dealer.engine import history
from dealer.engine.cards import shuffled_deck
from dealer.engine.rules import Hand, TableConfig

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "bfa7648"  # the generic writer (a dict of fields, one JSON encoder call per list)


def heads_up_check_down() -> Hand:
    """A heads-up no-limit hand checked and called down to a showdown."""
    hand = Hand(TableConfig(stacks=(200, 200), button=0, small_blind=1, big_blind=2), shuffled_deck(1))
    while hand.actor is not None:
        hand.check_call()
    return hand


def six_max_side_pots() -> Hand:
    """A six-max hand with antes and rake: a raise, a shove, five calls all-in for less: side pots."""
    config = TableConfig(stacks=(40, 300, 90, 1000, 150, 600), button=5, small_blind=5, big_blind=10, ante=1,
                         rake_bps=500, rake_cap=30)  # fmt: skip
    hand = Hand(config, shuffled_deck(7))
    hand.raise_to(30)
    while hand.actor is not None:
        legal = hand.legal()
        hand.raise_to(legal.max_to) if legal.can_raise else hand.check_call()
    return hand


def writer(module: ModuleType, hand: Hand) -> Callable[[], str]:
    """Return a call of ``module.phh_text`` with the arguments the match passes."""
    names = [f"bot-{s}" for s in range(hand.n)]
    live = list(range(hand.n))
    extra = {"_match": "m-20240601", "_table": "ds/0", "_rotation": 1}

    def call() -> str:
        return module.phh_text(hand, names=names, hand_number=17, table_seats=live, seat_count=hand.n, extra=extra)

    return call


def micros(call: Callable[[], str], calls: int) -> float:
    """Return the mean CPU µs of ``calls`` calls."""
    start = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - start) / calls * 1e6


def baseline(revision: str) -> ModuleType | None:
    """Return the history writer at ``revision`` as a module (``dealer/engine/history.py``, or
    ``dealer/history.py`` before the core's folders), or ``None`` if git cannot show it."""
    for where in ("dealer/engine/history.py", "dealer/history.py"):  # now, and before the core's folders
        try:
            source = subprocess.run(["git", "show", f"{revision}:{where}"], cwd=ROOT, capture_output=True,
                                    check=True, text=True).stdout  # fmt: skip
            break
        except (OSError, subprocess.CalledProcessError):
            continue
    else:
        return None
    path = Path(tempfile.mkdtemp()) / "history_baseline.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("history_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses and annotations look their module up)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Print the median µs per call of each shape, the baseline's beside it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the writer to compare with")
    args = parser.parse_args()
    old = baseline(args.baseline)
    for name, make in (("heads-up check-down", heads_up_check_down), ("6-max all-in, side pots", six_max_side_pots)):
        hand = make()
        modules = {"new": history} | ({"baseline": old} if old else {})
        calls = {label: writer(module, hand) for label, module in modules.items()}
        texts = {label: call() for label, call in calls.items()}
        if len(set(texts.values())) != 1:
            print(f"{name}: the texts differ from the baseline's")
        times: dict[str, list[float]] = {label: [] for label in calls}
        for _ in range(args.runs):
            for label, call in calls.items():  # interleaved: both see the same machine load
                times[label].append(micros(call, args.calls))
        medians = {label: statistics.median(values) for label, values in times.items()}
        line = f"{name:26} {medians['new']:7.2f} µs/hand"
        if "baseline" in medians:
            ratio = medians["baseline"] / medians["new"]
            line += f"   baseline {args.baseline} {medians['baseline']:7.2f} µs   {ratio:.1f}x"
        print(line)


if __name__ == "__main__":
    main()
