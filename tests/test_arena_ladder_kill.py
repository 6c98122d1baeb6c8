"""No data lost (issue 25): the real ``dealer arena serve``, its ladder playing real bot processes,
is SIGKILLed mid-match and started again, on SQLite and on PostgreSQL. Every match finished before
the kill is kept as it was, none is counted twice, none is left half-rated (the standings are the
ratings of the applied results, replayed in order), and the matches cut off are played again."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from conftest import PY_BOTS
from dealer.arena.ladder import Standing
from dealer.arena.model import BuildState
from dealer.arena.store.schema import engine_for, match_versions, matches, migrate, standings, teams
from dealer.arena.store.teams import Repository
from dealer.league.journal import result_from_json
from test_arena_ladder import Rows, replay

DEALER = Path(sys.executable).parent / "dealer"
BOTS = {"calls": "call_bot.py", "raises": "raise_bot.py", "random": "random_bot.py"}


Found = dict[int, tuple[str, int, object]]  # match id -> state, attempt, result


async def _teams(database: str) -> None:
    """Three teams, each with one ready, active version running a Python sample bot."""
    repository = Repository(engine_for(database))
    try:
        for k, (name, script) in enumerate(BOTS.items()):
            team, _ = await repository.add_team(name)
            run = (sys.executable, str(PY_BOTS / script))
            version, _ = await repository.add_version(
                team, digest=f"{k + 1:064x}", files=1, size=1, protocol="grpc", run=run, build=None
            )
            await repository.set_state(version, BuildState.READY)
            await repository.activate(team, 1)
    finally:
        await repository.engine.dispose()


async def _state(database: str) -> tuple[Found, dict[int, Standing], Rows]:
    """The matches (id -> state, attempt, result), the standings by version and the applied rows."""
    engine = engine_for(database)
    try:
        async with engine.connect() as connection:
            rows = (await connection.execute(select(matches).order_by(matches.c.id))).all()
            seats = (await connection.execute(select(match_versions, teams.c.name).join(teams))).all()
            kept = (await connection.execute(select(standings))).all()
    finally:
        await engine.dispose()
    names: dict[int, dict[str, int]] = {}
    for seat in seats:
        names.setdefault(seat.match_id, {})[f"{seat.name}-v1"] = seat.version_id
    found = {row.id: (row.state, row.attempt, row.result) for row in rows}
    applied = [(r.seq, names[r.id], result_from_json(dict(r.result))) for r in rows if r.state == "applied"]
    stood = {r.version_id: Standing(r.version_id, 0, r.mu, r.sigma, r.games, r.faulty, r.paused) for r in kept}
    return found, stood, applied


def _serve(config: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start ``dealer arena serve`` on ``config``, its output appended to ``log``."""
    with open(log, "ab") as out:
        return subprocess.Popen([str(DEALER), "arena", "serve", str(config)], stderr=out, stdout=out)


def _wait(
    database: str, done: Callable[[Found], bool], server: subprocess.Popen[bytes], log: Path, timeout_s: float = 90
) -> None:
    """Wait until the matches in the database are ``done`` (failing with the server's log)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text(errors="replace")[-3000:]
        if done(asyncio.run(_state(database))[0]):
            return
        time.sleep(0.2)
    pytest.fail(f"the ladder did not get there in {timeout_s} s:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.mark.timeout(300)
# the same kill on SQLite is slow; fast: the kill on PostgreSQL, and SQLite's ladder in test_arena_ladder
@pytest.mark.parametrize(
    "arena_database", [pytest.param("sqlite", marks=pytest.mark.slow), "postgresql"], indirect=True
)
def test_a_server_killed_mid_match_loses_nothing_and_counts_nothing_twice(arena_database: str, tmp_path: Path) -> None:
    asyncio.run(migrate(arena_database))
    asyncio.run(_teams(arena_database))
    config = tmp_path / "arena.yaml"
    config.write_text(
        f"storage: {tmp_path / 'storage'}\ndatabase: '{arena_database}'\nlisten: 127.0.0.1:0\n"
        "ladder: {jobs: 2, hands: 4, house: false, seed: kill-test-seed-0123456789}\n",
        encoding="utf-8",
    )
    log = tmp_path / "serve.log"
    server = _serve(config, log)

    def applied_and_running(found: Found) -> bool:
        states = Counter(state for state, _, _ in found.values())
        return states["applied"] >= 3 and states["running"] >= 1

    _wait(arena_database, applied_and_running, server, log)
    server.send_signal(signal.SIGKILL)
    server.wait()
    before, _, _ = asyncio.run(_state(arena_database))
    cut = {mid for mid, (state, _, _) in before.items() if state == "running"}
    kept = {mid: entry for mid, entry in before.items() if entry[0] in ("finished", "applied")}
    assert cut and kept

    server = _serve(config, log)
    try:
        _wait(arena_database, lambda found: all(found[mid][0] == "applied" for mid in cut), server, log)
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0, log.read_text(errors="replace")[-3000:]
    after, stood, applied = asyncio.run(_state(arena_database))
    for mid, (_, attempt, result) in kept.items():
        assert after[mid][0] == "applied" and after[mid][1:] == (attempt, result), f"match {mid} changed"
    assert all(after[mid][1] == 1 for mid in cut), "a match cut off is played again, dealt afresh"
    games = Counter(v for _, names, _ in applied for v in names.values())
    assert {v: s.games for v, s in stood.items()} == dict(games), "every applied match counted once"
    replayed = replay(applied, [seq for seq, _, _ in applied])
    assert {v: (s.mu, s.sigma) for v, s in replayed.items()} == {v: (s.mu, s.sigma) for v, s in stood.items()}
    assert [seq for seq, _, _ in applied] == list(range(len(applied))), "applied in order, none skipped"
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert os.path.isdir(tmp_path / "storage" / "matches")
