"""The result records (dealer.stats.records): a match keeps running sums, not a record per hand, and
its statistics are the ones computed from every hand's record; journals old and new read back."""

from __future__ import annotations

import collections
import copy
import dataclasses
import json
import pickle
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import MatchRun, bot_command, run_match
from dealer.errors import RunError
from dealer.league.journal import Journal, result_to_json
from dealer.stats.ratings import match_ranks
from dealer.stats.records import HandRecord, MatchResult, Tally, result_of
from dealer.stats.standings import standings
from dealer.stats.stats import Estimate, bb_per_100_grouped


def test_results_ratings_and_records_import_no_grpc():
    """Standings, ratings and the records load without the match machinery (gRPC, protobuf)."""
    code = (
        "import sys, dealer.stats.records, dealer.stats.standings, dealer.stats.ratings; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'poker') or m == 'dealer.league.match'))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> MatchRun:
    """A real duplicate match on 2 deal sets (4 tables, rotations of a deal finishing at their own pace)
    in mixed no-limit / fixed-limit blocks, so that big blinds change from hand to hand."""
    out = tmp_path_factory.mktemp("records")
    return run_match(
        out,
        {"strength": bot_command("strength"), "random": bot_command("random")},
        hands=40,
        tables=2,
        variant="mixed",
        mixed={"block_hands": 5, "fixed_limit_blinds": [100, 200], "no_limit_blinds": [50, 100]},
    )


def _from_every_hand(records: list[HandRecord]) -> dict[str, Estimate]:
    """bb/100 by bot as computed before the tally: every duplicate group's totals listed."""
    groups: dict[tuple[str, int], dict[str, list[float]]] = collections.defaultdict(dict)
    for record in records:
        group = groups[(record.deal_set, record.hand)]
        for name, chips in record.net.items():
            total = group.setdefault(name, [0.0, 0])
            total[0] += chips / record.big_blind
            total[1] += 1
    listed: dict[str, tuple[list[float], list[int]]] = collections.defaultdict(lambda: ([], []))
    for group in groups.values():
        for name, (total, hands) in group.items():
            listed[name][0].append(total)
            listed[name][1].append(int(hands))
    return {name: bb_per_100_grouped(totals, counts, 1) for name, (totals, counts) in listed.items()}


def test_streamed_statistics_equal_those_of_every_hand(played: MatchRun) -> None:
    result, records = played.result, played.result.records
    assert records is not None and result.hands == len(records) == 4 * 40
    assert len({r.big_blind for r in records}) > 1 and {r.hand for r in records} == set(range(40))
    lines = {s.name: s for s in standings([result])}
    expected = _from_every_hand(records)
    for name in ("strength", "random"):
        assert lines[name].bb100 == expected[name]
        assert lines[name].bb100.n == 2 * 40  # 2 deal sets x 40 hands, a group each
        assert lines[name].chips == sum(r.net[name] for r in records)
        assert lines[name].hands == sum(name in r.net for r in records)
    # Folded at the end from the records, in the order the hands ended: the very same sums.
    again = result_of(result.match_id, result.bots, records)
    assert again.tally.as_json() == result.tally.as_json()
    assert match_ranks(again) == match_ranks(result)


def test_a_tally_keeps_only_the_groups_in_play() -> None:
    """A group goes into the bots' sums once every table of its deal set played the hand."""
    tally = Tally({"d": 2})
    for hand in range(1000):
        tally.add(HandRecord(1, "d", hand, 100, {"a": 50, "b": -50}))
        assert len(tally._open) == 1
        tally.add(HandRecord(2, "d", hand, 100, {"a": -150, "b": 150}))
        assert not tally._open
    tally.add(HandRecord(1, "d", 1000, 100, {"a": 100, "b": -100}))  # its other table stopped (forfeit)
    tally.close()
    a = tally.bots["a"]
    assert (a.hands, a.chips, a.groups.groups, a.groups.hands) == (2001, -99900, 1001, 2001)
    assert a.groups.bb_per_100(1) == bb_per_100_grouped([-1.0] * 1000 + [1.0], [2] * 1000 + [1], 1)


def test_a_tally_is_the_same_whatever_order_the_hands_end_in() -> None:
    """Tables finish hands in any order: the sums (raw, adjusted, squares, groups) and the
    journal's JSON must not depend on it, though floats summed in order would (0.1 + 0.2 + 0.3)."""
    rng = random.Random(7)
    records = [
        HandRecord(t, "d", hand, 30, {"a": won, "b": -won}, ev_net={"a": won / 3 + 0.1, "b": -won / 3 - 0.1})
        for hand in range(300)
        for t, won in ((1, rng.randrange(-997, 998)), (2, rng.randrange(-997, 998)))
    ]
    rows = set()
    for _ in range(5):
        rng.shuffle(records)
        tally = Tally({"d": 2})
        for record in records:
            tally.add(record)
        tally.close()
        rows.add(json.dumps(tally.as_json()))
    assert len(rows) == 1
    a = Tally.from_json(json.loads(rows.pop())).bots["a"]
    assert a.raw == float(sum(Fraction(r.net["a"] / 30) for r in records))  # the exact sum, rounded once


def _record_row(h: HandRecord) -> list[object]:
    """A hand as journal rows of format 1 and 2 listed it: [table, deal_set, hand, bb, net(, ev_net(,
    luck_net(, full_net)))], the optional tail only as far as needed."""
    tail = [h.ev_net, h.luck_net, h.full_net]
    while tail and tail[-1] is None:
        tail.pop()
    return [h.table, h.deal_set, h.hand, h.big_blind, h.net, *tail]


def _format_1_row(result: MatchResult) -> str:
    """A journal row as dealers before the tally wrote it: every hand listed."""
    assert result.records is not None
    data = {**dataclasses.asdict(dataclasses.replace(result, records=None)), "bots": list(result.bots)}
    del data["tally"], data["records"], data["paired"]
    data["hands"] = [_record_row(h) for h in result.records]  # the rows of format 1 and 2 are alike
    return json.dumps(data)


def _journal(path: Path, rows: list[tuple[str, str]]) -> Journal:
    journal = Journal(path, "fp")
    with journal.db:
        journal.db.executemany("INSERT INTO matches VALUES (?, 'e', ?)", rows)
    return journal


def test_an_older_journal_reads_back_to_the_same_results(played: MatchRun, tmp_path: Path) -> None:
    result = played.result
    old, new = (dataclasses.replace(result, match_id=name) for name in ("old", "new"))
    journal = _journal(
        tmp_path / "journal.sqlite", [("old", _format_1_row(old)), ("new", json.dumps(result_to_json(new)))]
    )
    done = journal.done()
    assert done["old"].tally.as_json() == done["new"].tally.as_json() == result.tally.as_json()
    assert standings([done["old"]]) == standings([done["new"]]) == standings([result])
    assert (done["old"].faults, done["old"].bots) == (result.faults, result.bots)
    assert done["old"].records is None  # kept only for comparisons (hands with a luck-corrected result)


def test_a_journal_of_an_unknown_format_is_refused(tmp_path: Path) -> None:
    row = {
        **result_to_json(result_of("m/1", ("a", "b"), [HandRecord(1, "d", 0, 100, {"a": 1, "b": -1})])),
        "format": 99,
    }
    path = tmp_path / "journal.sqlite"
    journal = _journal(path, [("m/1", json.dumps(row))])
    with pytest.raises(RunError) as refused:
        journal.done()
    message = str(refused.value)
    assert "\n" not in message and str(path) in message and "match m/1" in message and "format 99" in message


def test_a_result_and_its_records_cross_processes_pickled() -> None:
    """A match's parts come back from worker processes and Dask workers pickled, hand records (frozen,
    with slots) and running sums included."""
    records = [
        HandRecord(1, "t1", 0, 100, {"a": 50, "b": -50}, ev_net={"a": 12.5, "b": -12.5}),
        HandRecord(2, "t1", 0, 100, {"a": -20, "b": 20}, luck_net={"a": -3.25, "b": 3.25}, features={"a": (1.0,)}),
    ]
    result = result_of("m", ("a", "b"), records, keep=True, faults={"b": {"timeout": 1}})
    back = pickle.loads(pickle.dumps(result))
    assert back.records == records and back.records[1].features == {"a": (1.0,)}
    assert back.tally.as_json() == result.tally.as_json() and back.net() == {"a": 30, "b": -30}
    assert (back.match_id, back.bots, back.faults) == ("m", ("a", "b"), {"b": {"timeout": 1}})


def test_a_tally_pickled_with_groups_open_folds_on_as_one_never_pickled() -> None:
    """``dealer.stats.tally`` is compiled: its sums, open duplicate groups included, still cross
    processes pickled and copy, and every sum is the exact one rounded once (raw, adjusted, squares)."""
    rng = random.Random(11)
    records = [
        HandRecord(t, "d", hand, 40, {"a": won, "b": -won}, ev_net={"a": won / 7, "b": -won / 7} if hand % 3 else None)
        for hand in range(200)
        for t, won in ((1, rng.randrange(-3001, 3002)), (2, rng.randrange(-3001, 3002)))
    ]
    kept = Tally({"d": 2})
    for record in records[:201]:  # hand 100's second table still to come: its group is open
        kept.add(record)
    assert len(kept._open) == 1
    tallies = [kept, pickle.loads(pickle.dumps(kept)), copy.deepcopy(kept)]
    for tally in tallies:
        for record in records[201:]:
            tally.add(record)
        tally.close()
    assert tallies[0].as_json() == tallies[1].as_json() == tallies[2].as_json()
    a = tallies[1].bots["a"]
    won = [Fraction(r.net["a"] / 40) for r in records]
    adjusted = [Fraction(r.ev_net["a"] / 40) if r.ev_net else w for r, w in zip(records, won, strict=True)]
    assert (a.hands, a.chips) == (400, sum(r.net["a"] for r in records))
    assert (a.raw, a.adjusted) == (float(sum(won)), float(sum(adjusted)))
    assert a.squares == float(sum(Fraction(float(w) * float(w)) for w in won))
