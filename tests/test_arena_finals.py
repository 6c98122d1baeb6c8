"""The arena's freeze and finals: ``dealer arena freeze`` closes submissions and activations (one
line each, over the API too), and a small two-stage finals of three teams' built versions plays
through the league machinery on a fresh seed whose SHA-256 is on disk before the first hand; at
the end ``dealer verify`` re-deals every hand from the revealed seed, which matches the
commitment, one entry per team sat at every table, the best two of the first stage alone played
the second, and the API publishes the record and the histories but no bot's log."""

from __future__ import annotations

import asyncio
import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from typer.testing import CliRunner

from conftest import ROOT
from dealer.arena.archive import unpack
from dealer.arena.builds import Builder
from dealer.arena.config import ArenaConfig, BuildLimits
from dealer.arena.finals import run_finals
from dealer.arena.finals_config import load_finals, parse_finals, stage_problems
from dealer.arena.http import API, make_app
from dealer.arena.layout import is_public
from dealer.arena.model import ArenaError, BuildState
from dealer.arena.store.schema import migrate
from dealer.arena.store.teams import open_repository
from dealer.cli.main import app
from dealer.config.league_file import LeagueConfigError, game_config
from dealer.league.seeds import commitment, revealed_seed
from test_arena_builds import C_BOT, FAST, PYTHON_BOT, archive
from test_arena_http import form

RUNNER = CliRunner()
FINALS = """\
name: final
jobs: 2
stages:
  - {name: groups, table_size: 2, hands: 3, top: 2}
  - {name: final, table_size: 2, hands: 4}
"""
TEAMS = {"alpha": PYTHON_BOT, "beta": C_BOT, "gamma": {**PYTHON_BOT, "notes.txt": b"gamma's copy"}}


def _arena(tmp_path: Path) -> tuple[ArenaConfig, Path]:
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = tmp_path / "arena.yaml"
    config.write_text(f"storage: storage\ndatabase: '{database}'\n", encoding="utf-8")
    arena = ArenaConfig(
        storage=tmp_path / "storage", database=database, build=BuildLimits(smoke_hands=1), game=game_config(time=FAST)
    )
    return arena, config


async def _three_teams(arena: ArenaConfig, teams: dict[str, dict[str, bytes]] = TEAMS) -> dict[str, str]:
    """Three teams, each with a built, active version; their tokens."""
    tokens = {}
    async with open_repository(arena.database) as repository:
        builder = Builder(repository, arena)
        for name, files in teams.items():
            team, tokens[name] = await repository.add_team(name)
            stored = unpack(archive(files), arena.storage, arena.submissions)
            version, _ = await repository.add_version(
                team,
                digest=stored.digest,
                files=stored.files,
                size=stored.size,
                protocol=stored.manifest.protocol,
                run=stored.manifest.run,
                build=stored.manifest.build,
            )
            built = await builder.build(version)
            assert built.state is BuildState.READY, name
            await repository.activate(team, version.number)
    return tokens


def test_a_frozen_arenas_finals_are_verified_and_their_seed_matches_its_commitment(tmp_path: Path) -> None:
    arena, config = _arena(tmp_path)
    asyncio.run(migrate(arena.database))
    tokens = asyncio.run(asyncio.wait_for(_three_teams(arena), 120))
    finals_file = tmp_path / "finals.yaml"
    finals_file.write_text(FINALS, encoding="utf-8")
    folder = arena.storage / "finals" / "final"

    async def not_frozen() -> None:
        async with open_repository(arena.database) as repository:
            await run_finals(arena, load_finals(finals_file), repository, print)

    with pytest.raises(ArenaError, match="the arena is not frozen: run `dealer arena freeze` first"):
        asyncio.run(not_frozen())
    frozen = RUNNER.invoke(app, ["arena", "freeze", str(config)])
    assert frozen.exit_code == 0 and "arena frozen at " in frozen.stdout, frozen.output
    again = RUNNER.invoke(app, ["arena", "freeze", str(config)])
    assert again.exit_code == 0 and "arena already frozen at " in again.stdout

    published: list[tuple[str, dict[str, Any], list[Path]]] = []

    def on_commitment(sha: str) -> None:  # before the first hand: the commitment is public, no hand dealt
        published.append((sha, json.loads((folder / "finals.json").read_text()), list(folder.rglob("*.phhs"))))

    async def play(dask: tuple[int | None, str | None] | None = None) -> dict[str, Any]:
        async with open_repository(arena.database) as repository:
            return await run_finals(arena, load_finals(finals_file), repository, on_commitment, dask)

    record = asyncio.run(asyncio.wait_for(play(), 240))
    ((sha, early, hands_then),) = published
    assert hands_then == [] and early["seed_sha256"] == sha and early["seed"] is None and early["state"] == "playing"
    assert (folder / "seed").stat().st_mode & 0o077 == 0, "the secret seed is the organiser's alone"
    assert record["state"] == "done" and commitment(record["seed"]) == sha == record["seed_sha256"]
    assert revealed_seed(folder) == record["seed"] and len(record["seed"]) == 64
    assert record["entrants"] == {"alpha": "v1", "beta": "v1", "gamma": "v1"}

    verified = RUNNER.invoke(app, ["verify", str(folder)])
    assert verified.exit_code == 0, verified.output
    assert f"{3 * 2 * 3 + 2 * 4} hands" in verified.stdout and f"seed sha256 {sha}: ok" in verified.stdout

    first, second = record["ranking"]["groups"], record["ranking"]["final"]
    assert sorted(first) == ["alpha", "beta", "gamma"] and sorted(second) == sorted(first[:2])
    for stage, teams in (("groups", set(first)), ("final", set(first[:2]))):
        results = json.loads((folder / stage / "results.json").read_text())
        assert results["seed"] == record["seed"] and results["seed_sha256"] == sha
        for path in (folder / stage).rglob("table-*.phhs"):
            for hand in tomllib.loads(path.read_text()).values():
                assert len(set(hand["players"])) == len(hand["players"]) and set(hand["players"]) <= teams
    assert {line["name"] for line in record["standings"]} == set(first[:2])

    async def api() -> None:
        async with (
            open_repository(arena.database) as repository,
            TestClient(TestServer(make_app(repository, arena, lambda _v: None))) as client,
        ):
            beta = {"Authorization": f"Bearer {tokens['beta']}"}
            listed = await (await client.get(f"{API}/finals", headers=beta)).json()
            assert listed == [{"name": "final", "state": "done", "seed_sha256": sha, "seed": record["seed"]}]
            shown = await (await client.get(f"{API}/finals/final", headers=beta)).json()
            assert shown == record and any(f.endswith(".phhs") for f in shown["files"])
            history = next(f for f in shown["files"] if f.endswith(".phhs"))
            got = await client.get(f"{API}/finals/final/files/{history}", headers=beta)
            assert got.status == 200 and "hand = " in await got.text()
            logs = [p.relative_to(folder).as_posix() for p in folder.rglob("*.log")]
            assert logs, "the stages keep the bots' logs"
            for private in (*logs, "seed", "../../arena.db"):
                refused = await client.get(f"{API}/finals/final/files/{private}", headers=beta)
                assert refused.status == 404, private
            for closed in (
                client.post(f"{API}/submissions", data=form(archive(PYTHON_BOT)), headers=beta),
                client.put(f"{API}/active", json={"version": 1}, headers=beta),
            ):
                response = await closed
                assert response.status == 409
                assert (await response.json())["error"].startswith(
                    "submissions are closed: the arena was frozen for its finals at "
                )

    asyncio.run(api())

    # A finals stopped during its last stage goes on from its kept seed: the first stage from its
    # journal, the last played again, here on a Dask cluster of one worker process; the same seed,
    # the same commitment, byte for byte the same results, every hand verified.
    local_results = (folder / "final" / "results.json").read_bytes()
    shutil.rmtree(folder / "final")
    stopped = {**record, "state": "playing", "seed": None, "files": []}
    (folder / "finals.json").write_text(json.dumps(stopped), encoding="utf-8")
    published.clear()
    again_record = asyncio.run(asyncio.wait_for(play(dask=(1, None)), 240))
    assert published[0][0] == sha and again_record["seed"] == record["seed"]
    assert (folder / "final" / "results.json").read_bytes() == local_results
    assert list((folder / "final").glob("dealer.worker-*.log")), "the last stage was played by the Dask worker"
    assert again_record["ranking"] == record["ranking"], "the same seed and versions: the same finals"
    assert RUNNER.invoke(app, ["verify", str(folder)]).exit_code == 0
    replay = RUNNER.invoke(app, ["arena", "finals", str(config), str(finals_file)])
    assert replay.exit_code == 2 and replay.stderr.startswith("error: the finals 'final' were played already")


STRENGTH = {  # the Python sample bot that bets its strong hands: a calling station loses to it
    "bot.yaml": b"protocol: grpc\nrun: python3 strength_bot.py\n",
    "strength_bot.py": (ROOT / "sample_bots" / "python" / "strength_bot.py").read_bytes(),
}
CRASHER = {  # a stdio bot that checks or calls 8 requests, then exits 3: it passes a 1-hand smoke test
    "bot.yaml": b"protocol: stdio\nrun: python3 bot.py\n",
    "bot.py": (
        b"import json, sys\n"
        b"answered = 0\n"
        b"for line in sys.stdin:\n"
        b"    message = json.loads(line)\n"
        b"    if message['type'] == 'request':\n"
        b"        if answered == 8:\n"
        b"            sys.exit(3)\n"
        b"        answered += 1\n"
        b"        asked = message['request']['request_id']\n"
        b"        reply = {'table': message['table'], 'request_id': asked, 'action': 'check_call'}\n"
        b"        print(json.dumps(reply), flush=True)\n"
    ),
}


def test_a_bot_that_crashes_in_every_match_of_a_stage_does_not_reach_the_next(tmp_path: Path) -> None:
    """Issue 33 (7, 12): the finals' "best top" is the stage's standings, which rank the matches a
    bot stopped playing in before bb/100: a bot that crashed, and so folded the rest of each match,
    came second of five in its group and reached the final. (The finals' seed is fresh, so the
    chips vary: ranked by bb/100 alone the crasher beat the calling station in 6 of 7 runs.)"""
    arena, config = _arena(tmp_path)
    asyncio.run(migrate(arena.database))
    asyncio.run(
        asyncio.wait_for(_three_teams(arena, {"caller": PYTHON_BOT, "strength": STRENGTH, "crasher": CRASHER}), 120)
    )
    assert RUNNER.invoke(app, ["arena", "freeze", str(config)]).exit_code == 0
    finals_file = tmp_path / "finals.yaml"
    finals_file.write_text(FINALS.replace("hands: 3, top: 2", "hands: 30, top: 2"), encoding="utf-8")

    async def play() -> dict[str, Any]:
        async with open_repository(arena.database) as repository:
            return await run_finals(arena, load_finals(finals_file), repository, lambda _sha: None)

    record = asyncio.run(asyncio.wait_for(play(), 240))
    groups = json.loads((arena.storage / "finals" / "final" / "groups" / "results.json").read_text())
    lines = {line["name"]: line for line in groups["events"]["groups"]}
    assert lines["crasher"]["stopped"] == 2 and lines["caller"]["stopped"] == lines["strength"]["stopped"] == 0
    print(f"\ngroups: {[(n, round(line['bb_per_100'], 1), line['stopped']) for n, line in lines.items()]}")
    assert record["ranking"]["groups"][-1] == "crasher" and "crasher" not in record["ranking"]["final"]
    assert (
        "stopped in 2 matches: crash" in (arena.storage / "finals" / "final" / "groups" / "standings.txt").read_text()
    )


def test_a_finals_file_is_checked_with_its_lines() -> None:
    text = (
        "name: final\nseed: 7\nstages:\n"
        "  - {name: a, table_size: 2, hands: 0}\n"
        "  - {name: a, table_size: 11, hands: 5, top: 2}\n"
    )
    with pytest.raises(LeagueConfigError) as caught:
        parse_finals(text, "finals.yaml")
    assert caught.value.errors == [
        "finals.yaml:2: seed: unknown key",
        "finals.yaml:4: stages[0].top: missing (required): who goes on?",
        "finals.yaml:4: stages[0].hands: must be 1..1000000000, got 0",
        "finals.yaml:5: stages[1].top: the last stage has no top: its ranking is the finals'",
        "finals.yaml:5: stages[1].table_size: must be 2..10, got 11",
        "finals.yaml:5: stages[1].name: duplicate stage name 'a'",
    ]
    finals = parse_finals(FINALS.replace("table_size: 2, hands: 3", "table_size: 4, hands: 3"), "/srv/finals.yaml")
    assert stage_problems(finals, 3) == [
        "/srv/finals.yaml:4: stages[0].table_size: 4 seats, but only 3 teams play this stage",
    ]
    assert stage_problems(parse_finals(FINALS), 2) == [
        "<finals>:4: stages[0].top: 2 of 2 teams go on: a cut must leave some out"
    ]


@pytest.mark.parametrize(
    ("path", "public"),
    [
        ("finals.json", True),
        ("standings.txt", True),
        ("seed", False),
        ("groups/results.json", True),
        ("groups/journal.sqlite", False),
        ("groups/matches/groups/0000/hands/table-001-groups-0000-r0.phhs", True),
        ("groups/matches/groups/0000/table-001-groups-0000-r0.phhs", False),
        ("groups/matches/groups/0000/scratch/alpha.0/hands/table-001-groups-0000-r0.phhs", False),  # a bot's file
        ("groups/matches/groups/0000/logs/alpha.0.log", False),
        ("groups/matches/groups/0000/hands/notes.phhs", False),
        ("groups/../../arena.db", False),
        ("/etc/passwd", False),
    ],
)
def test_only_the_dealers_records_of_a_finals_are_published(path: str, public: bool) -> None:
    assert is_public(path) is public
