"""The baseline estimator: a reference bot plays each deal in the new version's seat against the same
opponent, and again on a twin deal; its result there minus on the twin is a control variate of the
versions' difference (``dealer.stats.paired``), fitted on other folds (``dealer.stats.control``)."""

from __future__ import annotations

import collections
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PY_BOTS, ROOT
from dealer.engine.cards import parse_cards
from dealer.engine.evaluator import evaluate
from dealer.engine.rules import Hand, TableConfig
from dealer.engine.scheduler import compare_tables
from dealer.league.runner import baseline_tables
from dealer.league.workers import _deal_set_runs
from dealer.stats.compare import deal_sets_for
from dealer.stats.paired import TWIN, PairedTally, Pairing, sample_of
from dealer.stats.records import HandRecord

HU = TableConfig(stacks=(10_000, 10_000), button=1, small_blind=50, big_blind=100)
HOLES, FLOP = [parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2h7hJc")


def _deck(holes: list[list[int]], board: list[int]) -> list[int]:
    """A heads-up deck dealing ``holes`` by position and ``board`` (as tests/test_aivat.py)."""
    rest = [c for c in range(52) if c not in set(board) | {c for h in holes for c in h}]
    deck = [holes[0][0], holes[1][0], holes[0][1], holes[1][1], rest.pop(), *board[:3], rest.pop()]
    return [*deck, board[3], rest.pop(), board[4], *rest]


def _bot(bet_from: int, call_from: int):
    """A reactive bot: bets half the pot from hand category ``bet_from``, calls from ``call_from``."""

    def act(hand: Hand) -> None:
        s, legal = hand.actor, hand.legal()
        assert s is not None
        category = _category(hand, s)
        if category >= bet_from and legal.can_raise:
            hand.raise_to(min(legal.max_to, max(legal.min_to, hand.total_pot() // 2)))
        elif category >= call_from or legal.call == 0:
            hand.check_call()
        else:
            hand.fold()

    return act


def _category(hand: Hand, seat: int) -> int:
    return evaluate((*hand.hole[seat], *hand.board)) >> 20 if hand.board else 0


BOTS = {"new": _bot(2, 1), "old": _bot(1, 0), "reference": _bot(3, 1)}  # old calls anything, bets a pair


def _play(seats: tuple[str, str], board: list[int], deal_set: str, table: int) -> HandRecord:
    """One hand on the deal ``board`` (holes fixed), seat 0 on the small blind, with the bots of ``seats``."""
    hand = Hand(HU, _deck(HOLES, board))
    hand.check_call()  # the small blind limps, the big blind checks: the flop comes
    hand.check_call()
    while hand.actor is not None:
        BOTS[seats[hand.actor]](hand)
    net = {name: hand.final_stacks()[s] - HU.stacks[s] for s, name in enumerate(seats)}
    return HandRecord(table, deal_set, 0, 100, net, None, None, None, None)


def test_baseline_control_keeps_the_raw_mean_over_every_deal_and_twin_whatever_its_weights():
    # The deals: a fixed flop and holes, then every turn and river (each equally likely). A sample is
    # a deal D (new against old, both seatings; the reference in new's seat against old, both
    # seatings) and its twin D' (the reference's tables again): every pair (D, D') of the tree. The
    # control averages to exactly zero over the tree, whatever the bots do, so the versions'
    # difference minus any weights times it keeps the raw mean; and it is far from zero on some pairs.
    unseen = [c for c in range(52) if c not in set(FLOP) | {c for h in HOLES for c in h}]
    rng = random.Random(5)
    turns = rng.sample(unseen, 6)  # six turns and every river after each: 6 x 44 deals, 69,696 pairs
    deals = [[*FLOP, t, r] for t in turns for r in unseen if r != t]
    own = []  # by deal: the versions' two hands and the reference's two
    twin = []  # by deal: the reference's two hands, as the twin of another deal
    for board in deals:
        versions = [_play(("new", "old"), board, "d", 0), _play(("old", "new"), board, "d", 1)]
        reference = [_play(("reference", "old"), board, "d", 2), _play(("old", "reference"), board, "d", 3)]
        own.append(versions + reference)
        twin.append([_play(r, board, "d" + TWIN, k) for k, r in ((4, ("reference", "old")), (5, ("old", "reference")))])
    weights = [(rng.uniform(-3, 3), rng.uniform(-3, 3)) for _ in range(3)]
    raw = controlled = 0.0
    corrected = [0.0] * len(weights)
    largest = 0.0
    count = 0
    for mine in own:
        for other in twin:
            sample = sample_of(("m", "d", 0), [*mine, *other], "new", "old", "reference")
            assert sample is not None and sample.baseline is not None and sample.reference_hands == 4
            count += 1
            raw += sample.value("raw")
            controlled += sum(sample.baseline)
            largest = max(largest, *map(abs, sample.baseline))
            for k, (a, b) in enumerate(weights):
                corrected[k] += sample.value("full") - a * sample.baseline[0] - b * sample.baseline[1]
    assert count == len(deals) ** 2
    assert abs(controlled / count) < 1e-9  # the control's mean over the tree: zero
    assert largest > 100  # bb/100: far from zero on some pairs (the test is not vacuous)
    assert [c / count for c in corrected] == pytest.approx([raw / count] * len(weights), abs=1e-9)
    # the reference's hands make the control only: the versions' figures are those without them
    alone = sample_of(("m", "d", 0), own[0][:2], "new", "old")
    joined = sample_of(("m", "d", 0), [*own[0], *twin[1]], "new", "old", "reference")
    assert alone is not None and joined is not None and alone.baseline is None
    assert (alone.raw, alone.hands, alone.plain) == (joined.raw, joined.hands, joined.plain)
    assert sample_of(("m", "d", 0), own[0], "new", "old", "reference").baseline is None  # no twin: no control


def test_baseline_tables_put_the_reference_in_new_seat_on_the_deal_and_its_twin_and_pair_them():
    tables = baseline_tables(compare_tables("new", "old", [], 2), "new", "reference")
    assert [(t.seats, t.deal_set, t.rotation) for t in tables[:6]] == [
        (("new", "old"), "c/0", 0),
        (("old", "new"), "c/0", 1),
        (("reference", "old"), "c/0", 0),  # the same seat against the same opponent, on the same cards
        (("old", "reference"), "c/0", 1),
        (("reference", "old"), "c/0" + TWIN, 0),  # again on the twin deal
        (("old", "reference"), "c/0" + TWIN, 1),
    ]
    assert _deal_set_runs(tables) == [(0, 6), (6, 12)]  # workers never part a deal from its twin
    field = baseline_tables(compare_tables("new", "old", ["f"], 1), "new", "reference")
    assert (
        sorted(t.seats for t in field if "reference" in t.seats) == [("f", "reference")] * 2 + [("reference", "f")] * 2
    )  # against a field: the reference plays the field bot where new did
    assert deal_sets_for(24, 4, baseline=True) == 2 and deal_sets_for(24, 4) == 4  # 6 tables a deal, not 2
    with pytest.raises(ValueError, match="at the 6 tables of its duplicate group, so at least 12 hands"):
        deal_sets_for(11, 4, baseline=True)
    # a twin's hands join their deal's group: one sample per deal, with its control
    pairing = Pairing("new", "old", "baseline", 1, "reference")
    sizes = collections.Counter(t.deal_set for t in tables)
    tally = PairedTally(pairing, sizes)
    board = [*FLOP, *parse_cards("9s3d")]
    for k, t in enumerate(tables):
        record = _play(t.seats, board, t.deal_set, k)  # type: ignore[arg-type]
        tally.add(record)
    sums = tally.finish()
    assert sums.deals == 2 and sums.reference_hands == 8 and sums.baseline is not None and sums.baseline.n == 2


def _compare(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    strength = f"{sys.executable} {PY_BOTS / 'strength_bot.py'}"
    rand = f"{sys.executable} {PY_BOTS / 'random_bot.py'}"
    return subprocess.run(
        [str(Path(sys.executable).parent / "dealer"), "compare", strength, rand, "--out", str(tmp_path), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "DEALER_SEED": "3"},
    )


def test_cli_compare_with_the_baseline_plays_the_reference_and_says_what_it_cost(tmp_path):
    run = _compare(tmp_path, "--estimator", "baseline", "--hands", "600", "--json")
    data = json.loads(run.stdout.strip().splitlines()[-1])
    assert run.returncode in (0, 10, 12), run.stderr[-2000:]
    assert data["verdict_from"] == "baseline" and data["deals"] == 100
    assert data["hands"] == 600 and data["cost"]["reference_hands"] == 400  # 4 of its 6 hands a deal
    cost = data["cost"]  # the other estimators needed only the versions' hands
    assert cost["variance_left_per_hand"]["full"] == pytest.approx(200 / cost["plain_hands"]["full"], rel=1e-2)
    assert cost["variance_left_per_hand"]["baseline"] == pytest.approx(600 / cost["plain_hands"]["baseline"], rel=1e-2)
    assert data["baseline_bot"].endswith("strength_bot.py")  # the default reference: the sample strength bot
    assert {"baseline", "learned"} <= set(data["variance_removed"])
    hands = sorted(p.name for p in (tmp_path / "hands").iterdir())
    assert any(TWIN in name for name in hands)  # the twin deals were played
    wrong = _compare(tmp_path / "wrong", "--baseline-bot", "python x.py", "--hands", "600")
    assert wrong.returncode == 2 and wrong.stderr.splitlines() == [  # refused before a seed is committed to
        "error: --baseline-bot names the reference bot of --estimator baseline, which is not chosen"
    ]
