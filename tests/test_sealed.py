"""Sealed rotations: tables that share cards (a deal set) are never played by one bot process.

The plan (pure): a bot's k-th table of a deal set goes to its instance k, in ``dealer match``,
``dealer compare`` (the field bot too) and ``dealer run``. The behaviour (real processes): an
honest seeded duplicate match gives exactly the hands of the same match unsealed
(``data/sealed_reference.json``: first recorded on main at b0de816, before sealing existed;
recorded again with ``run_match(sealed=False)`` when the random bot began drawing from the
dealer's decision seeds, issue 35, and when their derivation changed, issue 32; the same bots,
seeds and plans); the "memory across
rotations" attack (tests/bots/rotation_memory.py) never sees two
rotations of one deal in one process, while the same bot unsealed does and reads its opponent's
cards; a restart restarts only the instance that failed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT, MatchRun, bot_command, history_path, read_phhs, run_match
from dealer.config.league_file import game_config, parse_league
from dealer.connect.server import DealerServer, Fault
from dealer.engine.scheduler import compare_tables, plan_tables, sealed_instances
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.league.run import build_jobs, instance_counts
from dealer.stats.records import MatchResult

REFERENCE = Path(__file__).parent / "data" / "sealed_reference.json"
BOT = ROOT / "sample_bots" / "python" / "call_bot.py"
MEMORY_BOT = (sys.executable, str(ROOT / "tests" / "bots" / "rotation_memory.py"))


def by_instance(plan: MatchPlan) -> dict[str, list[str]]:
    """The deal sets each instance plays, one entry per table."""
    played: dict[str, list[str]] = {}
    for spec, labels in zip(plan.tables, plan.instance_labels(), strict=True):
        for label in labels:
            played.setdefault(label, []).append(spec.deal_set)
    return played


# ------------------------------------------------------------------------------------ the plan


def test_a_bots_kth_table_of_each_deal_set_goes_to_its_instance_k() -> None:
    tables = [(("a", "b"), 0), (("b", "a"), 0), (("a", "b"), 1), (("b", "a"), 1), (("a", "c"), 2)]
    assert sealed_instances(tables) == [(0, 0), (1, 1), (0, 0), (1, 1), (0, 0)]
    assert sealed_instances([(("a", "b", "c"), "x"), (("b", "c", "a"), "x"), (("c", "a", "b"), "x")]) == [
        (0, 0, 0),
        (1, 1, 1),
        (2, 2, 2),
    ]


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_match_plans_seal_every_rotation_and_keep_many_tables_per_instance(seats: int) -> None:
    names = [f"bot{k}" for k in range(seats)]
    game = game_config()
    sealed = MatchPlan("m", plan_tables(names, duplicate=True, tables=4), game, 10)
    played = by_instance(sealed)
    assert len(played) == seats * seats  # n instances of each of n bots
    assert all(len(deal_sets) == len(set(deal_sets)) == 4 for deal_sets in played.values())
    unsealed = MatchPlan("m", sealed.tables, game, 10, sealed=False)
    assert {label: len(d) for label, d in by_instance(unsealed).items()} == {f"{n}.0": 4 * seats for n in names}
    plain = MatchPlan("m", plan_tables(names, duplicate=False, tables=4), game, 10)
    assert set(by_instance(plain)) == {f"{n}.0" for n in names}  # no shared deals: one process each


def test_compare_seals_both_versions_and_the_field_bot_which_plays_four_tables_of_each_deal() -> None:
    plan = MatchPlan("c", compare_tables("new", "old", ["f1", "f2"], deal_sets=3), game_config(), 10)
    played = by_instance(plan)
    assert all(len(deal_sets) == len(set(deal_sets)) for deal_sets in played.values()), played
    assert Counter(label.split(".")[0] for label in played) == {"new": 2, "old": 2, "f1": 4, "f2": 4}
    assert all(len(played[f"f1.{k}"]) == 3 for k in range(4))  # each instance: one table of each deal set


LEAGUE = """
name: sealed
seed: 1
sealed: {sealed}
bots:
  - {{name: a, command: [python, {bot}]}}
  - {{name: b, command: [python, {bot}]}}
  - {{name: c, remote: true}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 10}}
  - {{name: three, format: round-robin, table_size: 3, hands: 10}}
  - {{name: plain, format: round-robin, table_size: 2, hands: 10, duplicate: false}}
"""


def test_league_duplicate_groups_are_sealed_and_count_the_instances_remote_bots_need() -> None:
    jobs = build_jobs(parse_league(LEAGUE.format(sealed="true", bot=BOT)))
    for job in jobs:
        assert all(len(d) == len(set(d)) for d in by_instance(job.plan).values()), job.plan.match_id
    assert instance_counts(jobs) == {"a": 3, "b": 3, "c": 3}  # the three-seat groups: one per rotation
    assert instance_counts(build_jobs(parse_league(LEAGUE.format(sealed="false", bot=BOT)))) == {"a": 1, "b": 1, "c": 1}


# ------------------------------------------------------------------------------------ results


def outcome(run: MatchRun) -> list[dict[str, object]]:
    """Per table of the plan: its seats, deal set, rotation and every hand's nets in seat order.
    (Table ids are handed out in the plan's table order.)"""
    ids = sorted({r.table for r in run.result.records})
    index = {t: k for k, t in enumerate(ids)}
    nets: list[list[list[int]]] = [[] for _ in run.plan.tables]
    for record in sorted(run.result.records, key=lambda r: (index[r.table], r.hand)):
        spec = run.plan.tables[index[record.table]]
        nets[index[record.table]].append([record.net[name] for name in spec.seats])
    return [
        {"seats": list(spec.seats), "deal_set": spec.deal_set, "rotation": spec.rotation, "nets": n}
        for spec, n in zip(run.plan.tables, nets, strict=True)
    ]


CASES = {
    "heads_up": (
        lambda: {"strength": bot_command("strength"), "random": bot_command("random", bot_seed="7")},
        {"hands": 40, "tables": 3, "seed": "sealed-reference-hu"},
    ),
    "three_seats": (
        lambda: {
            "strength": bot_command("strength"),
            "random": bot_command("random", bot_seed="3"),
            "raise": bot_command("raise"),
        },
        {"variant": "mixed", "hands": 20, "tables": 2, "seed": "sealed-reference-3"},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_honest_seeded_duplicate_match_gives_the_results_recorded_before_sealing(tmp_path: Path, case: str) -> None:
    bots, options = CASES[case]
    run = run_match(tmp_path, bots(), **options)
    assert run.plan.sealed and len(run.pids) == len(bots()) ** 2  # n instances of each of n bots
    assert len(set(run.pids.values())) == len(run.pids)
    assert not any(run.result.faults.values()), run.result.log_tails
    assert outcome(run) == json.loads(REFERENCE.read_text())[case]


# ------------------------------------------------------------------------------------ the attack


def memory_facts(out: Path) -> dict[str, list[list[str]]]:
    """What each process of the memory bot wrote, by instance label."""
    return {
        path.parent.name: [line.split() for line in path.read_text().splitlines()]
        for path in sorted((out / "scratch").glob("memory.*/memory.txt"))
    }


def deal_of_table(run: MatchRun, facts: list[list[str]]) -> dict[str, tuple[str, int]]:
    """Which (deal set, rotation) each table id the memory bot's process played is, from the
    hole cards it was dealt at hand 0 and its seat: one history has them with the bot in that seat."""
    histories = {
        (spec.deal_set, spec.rotation): (spec, read_phhs(history_path(run.out, spec.deal_set, spec.rotation)))
        for spec in run.plan.tables
    }
    found = {}
    for kind, table, hand, *rest in facts:
        if kind == "hole" and hand == "0":
            seat, cards = int(rest[0]), rest[1]
            (deal,) = [
                key
                for key, (spec, hands) in histories.items()
                if spec.seats[seat] == "memory" and "".join(hands[0].hole_by_seat()[seat]) == cards
            ]
            found[table] = deal
    return found


def play_memory_bot(out: Path, *, sealed: bool) -> tuple[MatchRun, dict[str, list[list[str]]]]:
    game = game_config(time={"per_action_ms": 5000, "bank_ms": 60000, "grace_ms": 200, "startup_ms": 30000})
    plan = MatchPlan(
        "attack",
        plan_tables(["memory", "caller"], duplicate=True, tables=2),
        game,
        30,
        seed="rotation-memory",
        sealed=sealed,
    )
    entries = {"memory": MatchBot("memory", MEMORY_BOT), "caller": MatchBot("caller", bot_command("call"))}

    async def main() -> MatchResult:
        async with DealerServer("127.0.0.1:0") as server:
            return await Match(plan, server, entries, out=out, base=ROOT).run()

    result = asyncio.run(main())
    assert not any(result.faults.values()), result.log_tails
    return MatchRun(plan, result, out, {}, {}, {}), memory_facts(out)


def test_memory_across_rotations_never_sees_a_deal_twice_in_one_process(tmp_path: Path) -> None:
    run, facts = play_memory_bot(tmp_path / "sealed", sealed=True)
    assert sorted(facts) == ["memory.0", "memory.1"]
    for label, lines in facts.items():
        deals = deal_of_table(run, lines)
        assert len(deals) == 2, deals  # two tables at once in this process ...
        assert len({deal_set for deal_set, _ in deals.values()}) == 2, deals  # ... never of the same deal
        guesses = [line for line in lines if line[0] == "guess"]
        for _, table, _, source, _ in guesses:  # what it remembered came from another deal: worthless
            assert deals[source][0] != deals[table][0], (label, deals)

    # The contrast: unsealed, the one process plays both rotations and reads its opponent's cards.
    run, facts = play_memory_bot(tmp_path / "unsealed", sealed=False)
    ((label, lines),) = facts.items()
    deals = deal_of_table(run, lines)
    histories = {key: read_phhs(history_path(run.out, *key)) for key in deals.values()}
    read = 0
    for _, table, hand, source, cards in (line for line in lines if line[0] == "guess"):
        if deals[source][0] == deals[table][0]:
            phh = histories[deals[table]][int(hand)]
            opponent = phh.fields["players"].index("caller")
            assert "".join(phh.hole_by_position()[opponent]) == cards  # it knew the opponent's cards
            read += 1
    assert read > 0, f"{label} never met the other rotation of a deal: the contrast shows nothing"


# ------------------------------------------------------------------------------------ restarts


def test_a_restart_restarts_only_the_instance_that_failed(tmp_path: Path) -> None:
    game = game_config(time={"per_action_ms": 2000, "bank_ms": 2000, "grace_ms": 200, "startup_ms": 30000})
    plan = MatchPlan(
        "restart", plan_tables(["bad", "caller"], duplicate=True, tables=1), game, 8, seed=5, fault_policy="restart"
    )
    crashes = ("python", str(ROOT / "tests" / "bots" / "crashes.py"), "3")
    entries = {"bad": MatchBot("bad", crashes), "caller": MatchBot("caller", bot_command("call"))}

    async def main() -> MatchResult:
        async with DealerServer("127.0.0.1:0") as server:
            return await Match(plan, server, entries, out=tmp_path, base=ROOT).run()

    result = asyncio.run(main())
    assert result.hands == 16 and result.forfeited == []
    logs = sorted(p.name for p in (tmp_path / "logs").glob("*.log"))
    assert {"bad.0.1.log", "bad.1.1.log", "caller.0.log", "caller.1.log"} <= set(logs), logs
    assert not [name for name in logs if name.startswith("caller.") and name.count(".") > 2], logs
    assert result.faults["caller"] == {}
    assert result.faults["bad"][Fault.CRASH] >= 2  # at least once in each instance
