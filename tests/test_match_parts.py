"""The match as the join of a roster and tables: a caller follows each hand's record and stops the
match at a verdict of its own (``Match(on_record=..., stop=...)``), and the tables stop after the
hands in play, as a comparison's sequential test stops them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import ROOT, bot_command
from dealer.config.league_file import game_config
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.stats.records import HandRecord, MatchResult


def test_on_record_sees_each_hand_and_stop_ends_the_match_after_the_hands_in_play(tmp_path: Path) -> None:
    plan = MatchPlan("stops", plan_tables(["a", "b"], duplicate=False, tables=1), game_config(), 40, seed="stop")
    entries = {name: MatchBot(name, bot_command("call")) for name in ("a", "b")}
    seen: list[HandRecord] = []

    async def main() -> MatchResult:
        async with DealerServer("127.0.0.1:0") as server:
            match = Match(
                plan, server, entries, out=tmp_path, base=ROOT, on_record=seen.append, stop=lambda: len(seen) >= 5
            )
            return await match.run()

    result = asyncio.run(main())
    assert not any(result.faults.values()), result.log_tails
    assert [record.hand for record in seen] == [0, 1, 2, 3, 4]  # one table: no hand was in play at the verdict
    assert result.hands == 5  # the result holds what was played, the verdict's hands
