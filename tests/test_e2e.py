"""End-to-end: real bot processes (Python and Node) over real gRPC against the real dealer.

Every match is checked the same way (``check_match``): it finishes with every planned hand;
chips are conserved hand by hand (the nets sum to minus the rake); well-behaved bots have no
faults; every written PHH hand replays in PokerKit with the same finishing stacks; duplicate
tables share their cards; no bot process outlives the match.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import (
    ROOT,
    VARIANTS,
    MatchRun,
    PhhHand,
    bot_command,
    history_path,
    processes_under,
    read_phhs,
    run_match,
)
from pokerkit_oracle import replay

PYTHON_BOTS = ("random", "strength", "call", "raise")
SIX = ("node", "random", "strength", "call", "raise", "random2")
ANTES = {"no-limit": 0, "pot-limit": 10, "fixed-limit": 0, "mixed": 25}


def six_bots() -> dict[str, tuple[str, ...]]:
    return {name: bot_command(name.rstrip("2")) for name in SIX}


def check_match(run: MatchRun) -> dict[tuple[str, int], list[PhhHand]]:
    """Check everything a finished match must satisfy; return its PHH hands by (deal set, rotation)."""
    plan, result, out = run.plan, run.result, run.out
    names = sorted({n for t in plan.tables for n in t.seats})

    # The match finished: every table played every hand, no bot forfeited, no bot was refused.
    assert result.hands == len(plan.tables) * plan.hands
    assert result.forfeited == []
    assert run.auth_failures == {}
    # Well-behaved bots: no fault of any kind, no log tail collected.
    assert result.faults == {name: {} for name in names}, result.log_tails
    assert result.log_tails == {}

    # Every history replays in PokerKit, and its chips add up.
    histories = {}
    for spec in plan.tables:
        hands = read_phhs(history_path(out, spec.deal_set, spec.rotation))
        assert [h.number for h in hands] == list(range(plan.hands))
        histories[spec.deal_set, spec.rotation] = hands
        for hand in hands:
            f = hand.fields
            context = f"{spec} hand {hand.number}:\n{hand.text}"
            assert f["players"] == [spec.seats[s] for s in hand.table_seats], context
            assert f["starting_stacks"] == [plan.game.stack] * len(spec.seats), context
            assert f["antes"] == [plan.game.ante] * len(spec.seats), context
            assert hand.rake >= 0
            assert sum(f["finishing_stacks"]) == sum(f["starting_stacks"]) - hand.rake, context
            theirs = replay(hand.text).finishing_stacks
            if hand.rake == 0:
                assert theirs == f["finishing_stacks"], context
            else:  # PokerKit knows no rake: the house's take comes out of what the winners got
                assert sum(theirs) - sum(f["finishing_stacks"]) == hand.rake, context
                assert all(t >= ours for t, ours in zip(theirs, f["finishing_stacks"], strict=True)), context

    # The dealer's hand records agree with the histories; nets sum to minus the rake, hand by hand.
    # Table ids are handed out in the plan's table order, when each table starts.
    by_table = defaultdict(list)
    for record in result.records:
        by_table[record.table].append(record)
    assert len(by_table) == len(plan.tables)
    for table_id, spec in zip(sorted(by_table), plan.tables, strict=True):
        records = by_table[table_id]
        hands = histories[spec.deal_set, spec.rotation]
        assert [r.hand for r in records] == list(range(plan.hands))
        for record, hand in zip(records, hands, strict=True):
            assert record.deal_set == spec.deal_set
            assert record.net == hand.net_by_player(), f"{spec} hand {record.hand}"
            assert sum(record.net.values()) == -hand.rake
    net = result.net()
    assert sum(net.values()) == -sum(h.rake for hands in histories.values() for h in hands)

    check_duplicates(run, histories)
    check_no_processes(run)
    return histories


def check_duplicates(run: MatchRun, histories: dict[tuple[str, int], list[PhhHand]]) -> None:
    """Tables of one deal set got the same cards: hole cards by position, and the board."""
    by_set = defaultdict(list)
    for (deal_set, _rotation), hands in histories.items():
        by_set[deal_set].append(hands)
    for deal_set, tables in by_set.items():
        first = tables[0]
        for other in tables[1:]:
            for a, b in zip(first, other, strict=True):
                context = f"deal set {deal_set} hand {a.number}"
                assert a.table_seats == b.table_seats, context  # same button, same positions
                assert a.hole_by_position() == b.hole_by_position(), context
                board_a, board_b = a.board(), b.board()
                shorter = min(len(board_a), len(board_b))
                assert board_a[:shorter] == board_b[:shorter], context
    # Different hands (and different deal sets) get different cards.
    all_holes = [h.hole_by_position()[0] for tables in by_set.values() for h in tables[0]]
    assert len(set(all_holes)) > len(all_holes) // 2


def check_no_processes(run: MatchRun) -> None:
    assert run.pids, "no bot process was launched"
    for pid in run.pids.values():
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # also fails for an unreaped zombie
    assert processes_under(run.out) == []


# ---------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("opponent", PYTHON_BOTS)
def test_heads_up_node_against_python_bot(tmp_path: Path, opponent: str, variant: str) -> None:
    run = run_match(
        tmp_path,
        {"node": bot_command("node"), opponent: bot_command(opponent)},
        variant=variant,
        hands=30,
        ante=ANTES[variant],
        seed=f"hu-{opponent}-{variant}",
    )
    histories = check_match(run)
    if variant == "mixed":  # blocks of table-size hands: fixed limit first, then no limit
        codes = [h.fields["variant"] for h in histories["m/0", 0]]
        assert codes[:4] == ["FT", "FT", "NT", "NT"]


@pytest.mark.parametrize(  # six-max pot and fixed limit are slow: fast, fixed limit six-max in "mixed", pot limit
    # at three tables (test_three_tables_not_duplicate), each variant heads-up (test_heads_up_node_against_python_bot)
    "variant",
    [pytest.param(v, marks=pytest.mark.slow) if v in ("pot-limit", "fixed-limit") else v for v in VARIANTS],
)
def test_six_max(tmp_path: Path, variant: str) -> None:
    run = run_match(tmp_path, six_bots(), variant=variant, hands=20, ante=ANTES[variant], seed=f"6max-{variant}")
    histories = check_match(run)
    assert len(histories) == 6
    codes = {h.fields["variant"] for hands in histories.values() for h in hands}
    expected = {"no-limit": {"NT"}, "pot-limit": {"PLT"}, "fixed-limit": {"FT"}, "mixed": {"FT", "NT"}}[variant]
    assert codes == expected


def test_three_handed_with_rake_and_two_deal_sets(tmp_path: Path) -> None:
    """Rake at a multi-way table with two deal sets (three seats: six seat rotations of six bots
    launched 72 processes to show the same thing; six-max play is test_six_max's)."""
    run = run_match(
        tmp_path,
        {name: bot_command(name) for name in ("node", "strength", "random")},
        variant="no-limit",
        hands=12,
        tables=2,
        rake_percent=5,
        rake_cap=300,
        ante=20,
        seed="raked",
    )
    histories = check_match(run)
    assert len(histories) == 6  # two deal sets, three rotations each
    rakes = [h.rake for hands in histories.values() for h in hands]
    assert any(rakes) and max(rakes) <= 300


def test_three_tables_not_duplicate(tmp_path: Path) -> None:
    bots = {name: bot_command(name.rstrip("2")) for name in ("node", "strength", "random")}
    run = run_match(tmp_path, bots, variant="pot-limit", hands=40, tables=3, duplicate=False, seed="nodup")
    histories = check_match(run)
    # one table per deal set, deal set k in seat rotation k: each bot in each seat once
    assert sorted(histories) == [("m/0", 0), ("m/1", 1), ("m/2", 2)]
    seatings = {tuple(hands[0].fields["players"][k] for k in range(3)) for hands in histories.values()}
    assert len(seatings) == 3
    assert len({tuple(h.hole_by_position()) for hands in histories.values() for h in hands[:1]}) == 3


def deterministic_bots() -> dict[str, tuple[str, ...]]:
    """Bots whose every answer depends only on the request (so also on no table interleaving)."""
    return {
        "node": bot_command("node"),
        "strength": bot_command("strength", bot_seed="9"),
        "call": bot_command("call"),
        "raise": bot_command("raise"),
    }


def phhs_bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "hands").glob("*.phhs"))}


def test_same_seed_gives_identical_histories(tmp_path: Path) -> None:
    runs = [
        run_match(tmp_path / f"run{k}", deterministic_bots(), variant="mixed", hands=20, ante=10, seed="same-seed")
        for k in range(2)
    ]
    for run in runs:
        check_match(run)
    first, second = (phhs_bytes(run.out) for run in runs)
    assert len(first) == 4 and first == second
    other = run_match(tmp_path / "other", deterministic_bots(), variant="mixed", hands=20, ante=10, seed="other-seed")
    check_match(other)
    assert phhs_bytes(other.out).keys() == first.keys() and phhs_bytes(other.out) != first


def test_same_seed_random_bot_single_table(tmp_path: Path) -> None:
    """A seeded random bot is deterministic when it plays one table at a time."""
    bots = {"random": bot_command("random", bot_seed="3"), "node": bot_command("node")}
    runs = [
        run_match(tmp_path / f"run{k}", bots, variant="no-limit", hands=100, duplicate=False, seed=12345)
        for k in range(2)
    ]
    for run in runs:
        check_match(run)
    assert phhs_bytes(runs[0].out) == phhs_bytes(runs[1].out)


def test_cli_match(tmp_path: Path) -> None:
    """`dealer match` end to end: results.json, histories that replay, no bot left behind."""
    out = tmp_path / "out"
    dealer = Path(sys.executable).with_name("dealer")
    command = [
        str(dealer),
        "match",
        "python sample_bots/python/random_bot.py",
        "node sample_bots/node/bot.js",
        "python sample_bots/python/strength_bot.py",
        "--hands",
        "60",
        "--variant",
        "pot-limit",
        "--ante",
        "5",
        "--out",
        str(out),
    ]
    seed = {**os.environ, "DEALER_SEED": "cli-1"}  # never on the command line, where every process can read it
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=seed)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "results.json").read_text())
    assert summary["hands"] == 60 and summary["seed"] == "cli-1" and summary["forfeited"] == []
    standings = {s["name"]: s for s in summary["standings"]}
    assert set(standings) == {"random_bot", "node", "strength_bot"}
    assert all(s["faults"] == {} for s in standings.values())
    assert sum(s["chips"] for s in standings.values()) == 0
    files = sorted((out / "hands").glob("*.phhs"))
    assert len(files) == 3
    for path in files:
        for hand in read_phhs(path):
            assert replay(hand.text).finishing_stacks == hand.fields["finishing_stacks"]
    assert processes_under(out) == []


def freezeout(tmp_path: Path) -> MatchRun:
    bots = {name: bot_command(name) for name in ("random", "raise", "call", "node")}
    return run_match(
        tmp_path, bots, variant="no-limit", hands=300, seed="freeze", mode="freezeout", stack=2000, duplicate=False
    )


def test_freezeout(tmp_path: Path) -> None:
    """Stacks carry over until one bot has everything; busted seats are not dealt in."""
    run = freezeout(tmp_path)
    result, (spec,) = run.result, run.plan.tables
    assert result.faults == {name: {} for name in sorted(spec.seats)} and result.forfeited == []
    assert sorted(result.places) == sorted(spec.seats)
    hands = read_phhs(history_path(run.out, spec.deal_set, spec.rotation))
    assert len(hands) == result.hands < 300  # someone won everything
    chips = dict.fromkeys(spec.seats, 2000)
    for hand in hands:
        f = hand.fields
        assert f["starting_stacks"] == [chips[p] for p in f["players"]], hand.text
        assert all(chips[p] == 0 for p in spec.seats if p not in f["players"]), hand.text
        assert replay(hand.text).finishing_stacks == f["finishing_stacks"], hand.text
        chips.update(zip(f["players"], f["finishing_stacks"], strict=True))
        assert sum(chips.values()) == 4 * 2000
    assert [p for p, c in chips.items() if c] == [result.places[0]]
    check_no_processes(run)


def test_freezeout_history_names_table_seats(tmp_path: Path) -> None:
    run = freezeout(tmp_path)
    (spec,) = run.plan.tables
    for hand in read_phhs(history_path(run.out, spec.deal_set, spec.rotation)):
        assert hand.fields["players"] == [spec.seats[s] for s in hand.table_seats], hand.text
        assert hand.fields["seat_count"] == len(spec.seats), hand.text


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("variant", VARIANTS)
def test_six_max_long(tmp_path: Path, variant: str) -> None:
    run = run_match(tmp_path, six_bots(), variant=variant, hands=167, ante=ANTES[variant] or 5, seed=f"long-{variant}")
    check_match(run)
    assert run.result.hands >= 1000


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("opponent", PYTHON_BOTS)
def test_heads_up_long(tmp_path: Path, opponent: str) -> None:
    run = run_match(
        tmp_path,
        {"node": bot_command("node"), opponent: bot_command(opponent)},
        variant="mixed",
        hands=500,
        tables=2,
        ante=5,
        seed=f"hu-long-{opponent}",
    )
    check_match(run)
