"""The league report folded once per finished match (``dealer.league.report``): the same whatever order the
matches finish in, and a league's finish path that no longer rates or sums the league again after
every match."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from dealer.config.league_file import LeagueConfig, parse_league
from dealer.league.jobs import MatchJob
from dealer.league.run import build_jobs, league_report, run_league
from dealer.stats.ratings import RatingFold, openskill_ratings
from dealer.stats.records import HandRecord, MatchResult, result_of


def _league(out: Path, meetings: int = 1) -> LeagueConfig:
    bots = "".join(f"  - {{name: {n}, command: [{sys.executable}, -c, pass]}}\n" for n in "abcde")
    return parse_league(
        f"name: t\nseed: 5\nout: {out}\nbots:\n{bots}events:\n"
        f"  - {{name: a-hu, format: round-robin, table_size: 2, hands: 3, meetings: {meetings}}}\n"
        f"  - {{name: b-3max, format: round-robin, table_size: 3, hands: 3, duplicate: false, meetings: {meetings}}}\n"
        "  - {name: c-final, format: freezeout, table_size: 3, blind_levels: [[50, 100]], hands_per_level: 10}\n"
    )


def _result(job: MatchJob) -> MatchResult:
    """A match's result without playing it: seeded random chips on every table, some faults and tails."""
    rng = random.Random(job.plan.match_id)
    records = []
    for k, table in enumerate(job.plan.tables):
        for hand in range(3):
            net = {name: rng.randrange(-5, 6) * 100 for name in table.seats[1:]}
            net[table.seats[0]] = -sum(net.values())
            records.append(HandRecord(k, table.deal_set, hand, 100, net))
    seats = tuple(dict.fromkeys(name for table in job.plan.tables for name in table.seats))
    bad = rng.choice(seats)
    fields: dict = {"places": rng.sample(seats, len(seats))} if job.event == "c-final" else {}
    if rng.random() < 0.3:
        fields |= {"faults": {bad: {"crash": 1}}, "forfeited": [bad], "log_tails": {bad: "gone\n"}}
    return result_of(job.plan.match_id, seats, records, attempt=rng.choice((0, 0, 1)), **fields)


class _Instant:
    """An executor that plays nothing: each job's result comes back at once."""

    async def run(self, job: MatchJob) -> MatchResult:
        """The job's made-up result."""
        return _result(job)


def test_the_report_is_the_same_whatever_order_the_matches_finish_in(tmp_path: Path) -> None:
    config = _league(tmp_path)
    jobs = build_jobs(config)
    results = [_result(job) for job in jobs]
    in_order = json.dumps(league_report(config, sorted(results, key=lambda r: r.match_id), len(jobs)).data())
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    report = league_report(config, [], len(jobs))
    for result in shuffled:
        report.add(result)
        report.data()  # read between matches too: what is cached must follow
    assert json.dumps(report.data()) == in_order
    data = report.data()
    assert data["failures"] and data["forfeits"] and data["log_tails"] and data["replayed"]  # all exercised
    assert set(data["events"]) == {"a-hu", "b-3max", "c-final"} and data["seed"] is not None


def test_the_rating_fold_rates_as_the_whole_league_in_match_id_order() -> None:
    results = [
        result_of(f"e/{k:04d}", names, [HandRecord(0, "d", 0, 100, {names[0]: 100 * k, names[1]: -100 * k})])
        for k, names in enumerate([("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")] * 10)
    ]
    fold = RatingFold(every=3)
    for k in random.Random(2).sample(range(len(results)), len(results)):
        fold.add(results[k])
        fold.ratings()
    assert fold.ratings() == openskill_ratings(results) == openskill_ratings(results[::-1])


def test_a_league_rates_each_finished_match_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After every finished match the league used to rate (and sum) every match again: 165 matches
    cost 14,730 OpenSkill rates; folded, each is rated once overall and once in its event
    (events listed in name order, the order ratings take: see ``dealer.league.report`` for the others)."""
    config = _league(tmp_path, meetings=12)
    jobs = build_jobs(config)
    rates = 0
    rate = PlackettLuce.rate

    def counted(self: PlackettLuce, *args: object, **kwargs: object) -> object:
        nonlocal rates
        rates += 1
        return rate(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PlackettLuce, "rate", counted)
    results = asyncio.run(run_league(config, _Instant()))
    rated_in_event = sum(1 for r in results if not r.match_id.startswith("a-hu/"))
    assert len(results) == len(jobs) >= 150
    assert rates <= len(results) + rated_in_event + 64, (rates, len(results))
