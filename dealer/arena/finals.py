"""``dealer arena finals``: the frozen arena's active ready versions, one entry per team, played
through the league machinery, stage after stage, on one fresh secret seed.

Each stage is a league of one sealed duplicate round-robin event (``dealer.league.run.run_league``)
whose output is ``storage/finals/NAME/<stage>/`` (results.json, standings.txt, hand histories,
the bots' logs); the best ``top`` of a stage's event standings play the next. The seed is drawn
when the finals start, kept in ``seed`` (0600, the organiser's alone; a stopped finals go on
from it) and committed to in ``finals.json`` before the first hand: its SHA-256 is public from
then on, the seed itself is written there only once the last stage has ended. ``finals.json`` (the
entrants, each stage's ranking, the standings, the commitment, then the seed) is what the API
shows; ``dealer verify storage/finals/NAME`` re-deals every hand of every stage from it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from dealer.arena.config import ArenaConfig
from dealer.arena.finals_config import FinalsConfig, Stage, stage_problems
from dealer.arena.layout import (
    FINALS_JSON,
    RESULTS_JSON,
    SEED_FILE,
    STANDINGS_TXT,
    finals_folder,
    public_files,
    run_command,
)
from dealer.arena.model import ArenaError, Team, Version
from dealer.arena.store.teams import Repository
from dealer.config.choices import BotProtocol, FaultPolicy
from dealer.config.events import RoundRobin
from dealer.config.league_file import LeagueBot, LeagueConfig, LeagueConfigError
from dealer.connect.server import DealerServer
from dealer.files import PRIVATE, write_atomically
from dealer.league.jobs import Executor
from dealer.league.run import run_league
from dealer.league.runner import LocalExecutor
from dealer.league.seeds import commitment, draw_seed
from dealer.league.summary import summary_text


def _entry(arena: ArenaConfig, team: Team, version: Version) -> LeagueBot:
    """A team's finalist as a league bot: its active version, run from its build folder."""
    command = run_command(arena.storage, version, team.name)
    return LeagueBot(
        team.name,
        command,
        version=version.label,
        limits=arena.limits_for(team.id),
        protocol=BotProtocol(version.protocol),
    )


def stage_league(
    arena: ArenaConfig, finals: FinalsConfig, stage: Stage, bots: list[LeagueBot], seed: str
) -> LeagueConfig:
    """The league one stage is: its entrants in one sealed duplicate round robin on the finals' seed."""
    names = tuple(bot.name for bot in bots)
    event = RoundRobin(
        name=stage.name,
        bots=names,
        game=arena.game,
        line=stage.line,
        table_size=stage.table_size,
        hands=stage.hands,
        duplicate=True,
        meetings=stage.meetings,
    )
    return LeagueConfig(
        name=f"{finals.name} {stage.name}",
        seed=seed,
        jobs=finals.jobs,
        out=finals_folder(arena.storage, finals.name) / stage.name,
        listen="127.0.0.1:0",
        tls_cert=None,
        tls_key=None,
        tokens_file=None,
        fault_policy=FaultPolicy.FOLD,
        sealed=True,
        bots=tuple(bots),
        game=arena.game,
        events=(event,),
        path=None,
    )


def _seed(folder: Path, record: dict[str, Any]) -> tuple[str, bool]:
    """The finals' seed: the one a stopped run drew (True: go on), else a fresh one, kept private."""
    kept = folder / SEED_FILE
    if kept.is_file():
        seed = kept.read_text(encoding="utf-8").strip()
        previous = json.loads((folder / FINALS_JSON).read_text(encoding="utf-8"))
        if previous.get("state") == "done":
            raise ArenaError(f"the finals {record['name']!r} were played already: their results are in {folder}")
        if previous.get("entrants") != record["entrants"] or commitment(seed) != previous.get("seed_sha256"):
            raise ArenaError(f"{folder} holds other finals (other entrants or seed): give these finals another name")
        return seed, True
    folder.mkdir(parents=True, exist_ok=True)
    seed = draw_seed()
    write_atomically(kept, seed + "\n", mode=PRIVATE)
    return seed, False


async def _finalists(repository: Repository, finals: FinalsConfig) -> list[tuple[Team, Version]]:
    """Who plays: the frozen arena's teams with a ready active version (checked against the stages)."""
    if await repository.frozen_at() is None:
        raise ArenaError("the arena is not frozen: run `dealer arena freeze` first, so no version changes mid-finals")
    finalists = await repository.finalists()
    if len(finalists) < 2:
        raise ArenaError(f"the finals need two teams with a ready active version; the arena has {len(finalists)}")
    problems = stage_problems(finals, len(finalists))
    if problems:
        raise LeagueConfigError(problems)
    return finalists


@contextlib.asynccontextmanager
async def _executor(league: LeagueConfig, dask: tuple[int | None, str | None] | None) -> AsyncIterator[Executor]:
    """Where a stage's matches run: this process, or Dask (``dask``: a new local cluster of that many
    workers, or the cluster of a scheduler), as for ``dealer run``."""
    if dask is None:
        async with DealerServer(league.listen) as server:
            yield LocalExecutor(server, league.jobs)
        return
    from dealer.league.cluster import dask_executor  # imports Dask, which local finals do not need

    workers, scheduler = dask
    commands = {bot.name: bot.command for bot in league.bots}
    async with dask_executor(commands, league.folder, league.out, workers=workers, scheduler=scheduler) as executor:
        yield executor


async def run_finals(
    arena: ArenaConfig,
    finals: FinalsConfig,
    repository: Repository,
    on_commitment: Callable[[str], None],
    dask: tuple[int | None, str | None] | None = None,
) -> dict[str, Any]:
    """Play the finals to the end and return what ``finals.json`` then says; ``on_commitment`` gets
    the seed's SHA-256 before the first hand is dealt. ``dask`` (workers, scheduler): the stages'
    matches on a Dask cluster instead of this process (the same deals and results)."""
    finalists = await _finalists(repository, finals)
    folder = finals_folder(arena.storage, finals.name)
    frozen = await repository.frozen_at()
    record: dict[str, Any] = {
        "name": finals.name,
        "state": "playing",
        "frozen_at": None if frozen is None else frozen.isoformat(),
        "entrants": {team.name: version.label for team, version in finalists},
        "stages": [{"name": s.name, "table_size": s.table_size, "hands": s.hands, "top": s.top} for s in finals.stages],
        "ranking": {},
        "standings": [],
        "seed_sha256": None,
        "seed": None,
        "files": [],
    }
    seed, going_on = _seed(folder, record)
    record["seed_sha256"] = commitment(seed)
    write_atomically(folder / FINALS_JSON, json.dumps(record, indent=2) + "\n")
    on_commitment(record["seed_sha256"])
    bots = [_entry(arena, team, version) for team, version in finalists]
    for stage in finals.stages:
        league = stage_league(arena, finals, stage, bots, seed)
        async with _executor(league, dask) as executor:
            await run_league(league, executor, resume=going_on and league.out.exists())
        data = json.loads((league.out / RESULTS_JSON).read_text(encoding="utf-8"))
        ranking = [line["name"] for line in data["events"][stage.name]]
        record["ranking"][stage.name] = ranking
        record["standings"] = data["events"][stage.name]
        bots = [bot for name in ranking[: stage.top or len(ranking)] for bot in bots if bot.name == name]
        write_atomically(folder / FINALS_JSON, json.dumps(record, indent=2) + "\n")
    last = finals.stages[-1].name
    write_atomically(folder / STANDINGS_TXT, summary_text(json.loads((folder / last / RESULTS_JSON).read_text())))
    record.update(state="done", seed=seed, files=public_files(folder))
    write_atomically(folder / FINALS_JSON, json.dumps(record, indent=2) + "\n")
    return record
