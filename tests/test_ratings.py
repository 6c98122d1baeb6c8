"""OpenSkill ratings of matches, and freezeout points that a crashed bot does not earn."""

from __future__ import annotations

from dealer.config.league_file import parse_league
from dealer.league.report import LeagueReport, match_points
from dealer.stats.ratings import match_ranks, openskill_ratings
from dealer.stats.records import HandRecord, MatchResult, result_of


def cash(match_id: str, net: dict[str, int], faults: dict[str, dict[str, int]] | None = None) -> MatchResult:
    """A one-hand cash match with these net chips (big blind 100)."""
    return result_of(match_id, tuple(sorted(net)), [HandRecord(1, match_id, 0, 100, net)], faults=faults or {})


def test_match_ranks_by_big_blinds_places_and_faults() -> None:
    assert match_ranks(cash("e/0", {"a": 300, "b": -300, "c": 0})) == {"a": 1, "c": 2, "b": 3}
    assert match_ranks(cash("e/0", {"a": 100, "b": 100, "c": -200})) == {"a": 1, "b": 1, "c": 2}
    # A bot that crashed ranks last even when its seat won chips.
    assert match_ranks(cash("e/0", {"a": 500, "b": -500}, {"a": {"crash": 1}})) == {"b": 1, "a": 2}
    placed = MatchResult("f/0", ("a", "b", "c"), places=["c", "a", "b"], faults={"c": {"disconnect": 1}})
    assert match_ranks(placed) == {"a": 1, "b": 2, "c": 3}


def test_ratings_order_uncertainty_and_determinism() -> None:
    results = [cash(f"e/{k:04d}", {"a": 300, "b": 0, "c": -300}) for k in range(6)]
    ratings = openskill_ratings(results)
    assert ratings["a"].mu > ratings["b"].mu > ratings["c"].mu
    assert all(r.matches == 6 for r in ratings.values())
    low, high = ratings["a"].ci95()
    assert low < ratings["a"].mu < high and ratings["a"].sigma < openskill_ratings(results[:1])["a"].sigma
    assert openskill_ratings(list(reversed(results))) == ratings  # rated in match_id order


LEAGUE = """\
name: t
bots:
  - {name: a, command: [python3, -c, pass]}
  - {name: b, command: [python3, -c, pass]}
  - {name: c, command: [python3, -c, pass]}
events:
  - {name: final, format: freezeout, table_size: 3, blind_levels: [[50, 100]], hands_per_level: 10}
"""


def test_a_crashed_bot_earns_no_freezeout_points() -> None:
    config = parse_league(LEAGUE)
    honest = MatchResult("final/0000", ("a", "b", "c"), places=["a", "b", "c"])
    crashed = MatchResult("final/0001", ("a", "b", "c"), places=["a", "b", "c"], faults={"a": {"crash": 1}})
    assert match_points(config.events[0], honest) == {"a": 2, "b": 1, "c": 0}
    assert match_points(config.events[0], crashed) == {"b": 1, "c": 0}
    report = LeagueReport(config, 2)
    report.extend([honest, crashed])
    lines = report.event_standings("final")
    assert [s.points for s in lines] == [2, 2, 0] and lines[2].name == "c"
    first, second = (s.rating for s in lines[:2])
    assert first is not None and second is not None and first.mu >= second.mu  # ties on points go by rating
