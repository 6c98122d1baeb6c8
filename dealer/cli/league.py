"""``dealer run`` and ``dealer serve``'s league: loaded, played on its executor (this process's
dealer server, or a Dask cluster) with the terminal's display and the live page, then reported."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import typer

from dealer.cli.options import LogLevelName, fail, interrupted, log_to, show_seed
from dealer.cli.terminal import LeagueDisplay
from dealer.config.choices import Switch
from dealer.config.league_file import LeagueConfig, load_league
from dealer.connect.server import BotSession, DealerServer
from dealer.errors import ConfigError, RunError
from dealer.isolation import sandbox
from dealer.league.jobs import Executor, MatchJob
from dealer.league.journal import finished_count
from dealer.league.match import instance_label
from dealer.league.report import Progress
from dealer.league.run import build_jobs, league_report, run_league
from dealer.league.runner import LocalExecutor, PoolExecutor
from dealer.league.summary import overall_text
from dealer.league.workers import Pool, cores
from dealer.stats.records import MatchResult
from dealer.text import counted, printable
from dealer.web import write_report
from dealer.web.live import Scheduled
from dealer.web.server import Snapshots, WebView
from dealer.web.view import LeagueView


def load(path: Path) -> LeagueConfig:
    """Load and validate a league file, or exit with every error on its own line."""
    try:
        return load_league(path)
    except ConfigError as error:
        fail(*str(error).splitlines())


async def _wait_remote(sessions: dict[str, BotSession], startup_ms: int, keep_going: bool) -> None:
    """Wait up to the start-up time for every remote instance to connect. Those that do not stop
    the league before it starts (a RunError naming them), or with ``keep_going`` are one warning:
    their matches then wait for them as for a launched bot and charge ``no_connect``."""
    for label in sessions:
        typer.echo(f"waiting for {label} to connect ...")
    waits = {label: asyncio.ensure_future(session.connected.wait()) for label, session in sessions.items()}
    if waits:
        await asyncio.wait(waits.values(), timeout=startup_ms / 1000)
    for label, session in sessions.items():
        waits[label].cancel()
        if session.connected.is_set():
            typer.echo(f"{label} connected (version {printable(session.version) or '?'})")
    missing = ", ".join(label for label, session in sessions.items() if not session.connected.is_set())
    if missing and not keep_going:
        raise RunError(
            f"{missing} did not connect within {startup_ms} ms (startup_ms): nothing was played; "
            "start them with their tokens, or pass --keep-going to play without them"
        )
    if missing:
        typer.echo(
            f"warning: {missing} did not connect within {startup_ms} ms (startup_ms): their matches charge no_connect",
            err=True,
        )


@contextlib.asynccontextmanager
async def _local_executor(
    league: LeagueConfig, remote_tokens: dict[str, list[str]] | None, options: LeagueOptions, view: LeagueView | None
) -> AsyncIterator[Executor]:
    """Matches played in this process on one dealer server; with ``remote_tokens``, its remote bots'
    sessions, waited for before the first match and said goodbye to after the last."""
    credentials = None
    if league.tls_cert and league.tls_key:
        credentials = grpc.ssl_server_credentials([(league.tls_key.read_bytes(), league.tls_cert.read_bytes())])
    async with DealerServer(league.listen, credentials=credentials) as server:
        sessions = {}
        if remote_tokens is not None:
            typer.echo(f"dealer listening on {server.address}")
            for name, instance_tokens in remote_tokens.items():  # one token per instance
                for k, token in enumerate(instance_tokens):
                    sessions[instance_label(name, k)] = server.session(name, token)
            await _wait_remote(sessions, max(event.game.time.startup_ms for event in league.events), options.keep_going)
        try:
            yield LocalExecutor(
                server,
                league.jobs,
                sessions,
                on_hand=view.on_hand if view else None,
                on_start=view.on_start if view else None,
            )
        finally:
            for session in sessions.values():
                session.goodbye("league over")
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def _pool_executor(processes: int, view: LeagueView | None) -> AsyncIterator[Executor]:
    """Matches played in ``processes`` worker processes, one at a time in each; with the live page,
    the workers send it their hands."""

    def on_message(message: tuple[object, ...]) -> None:
        kind, match_id, text = message
        if kind == "hand" and view is not None:
            view.on_hand(str(match_id), str(text))

    async with Pool(processes, on_message) as pool:
        yield PoolExecutor(pool, hands=view is not None, on_start=view.on_start if view else None)


@contextlib.asynccontextmanager
async def _dask_executor(league: LeagueConfig, options: LeagueOptions) -> AsyncIterator[Executor]:
    """Matches played on a Dask cluster: a new local one, or the cluster of a scheduler (the web
    view's hands then come from finished matches' files)."""
    from dealer.league.cluster import dask_executor  # imports Dask, which the local executor does not need

    assert options.dask is not None
    workers, scheduler = options.dask
    commands = {bot.name: bot.command for bot in league.bots}
    async with dask_executor(
        commands, league.folder, league.out, workers=workers, scheduler=scheduler, log_level=options.log_level
    ) as executor:
        yield executor


async def _league(
    league: LeagueConfig, resume: bool, remote_tokens: dict[str, list[str]] | None, options: LeagueOptions
) -> list[MatchResult]:
    """Play the league on its executor, with the terminal's display and, with ``--web``, the live page."""
    total = len(build_jobs(league))  # the seating waits for the seed (``on_jobs``), the count does not
    view = LeagueView(league, total) if options.web else None
    web = WebView(view, options.web) if view is not None and options.web else None
    processes = min(league.jobs, options.workers or cores())
    executors = (
        _dask_executor(league, options)
        if options.dask is not None
        else _pool_executor(processes, view)
        if remote_tokens is None and processes > 1
        else _local_executor(league, remote_tokens, options, view)
    )
    async with executors as executor:
        try:
            if web is not None:
                typer.echo(f"web view on {await web.start()}")
            with LeagueDisplay(league, total, standings_every=options.standings_every) as display:

                def progress(update: Progress) -> None:
                    display(update)
                    if view is not None:
                        view.on_progress(update)

                results = await run_league(
                    league,
                    executor,
                    resume=resume,
                    on_progress=progress,
                    keep_going=options.keep_going,
                    on_seed=show_seed,
                    on_jobs=None if view is None else lambda jobs: view.board.plan([scheduled(job) for job in jobs]),
                )
            _write_report(league, results, total)
            if web is not None and options.linger:
                typer.echo("the league is over: its final page is served until Ctrl-C")
                await until_interrupted()
            return results
        finally:
            if web is not None:
                await web.stop()


def scheduled(job: MatchJob) -> Scheduled:
    """A job as the live page lists it: its tables by number with their seats, the hands planned."""
    plan = job.plan
    tables = tuple((plan.first_table + k, spec.seats) for k, spec in enumerate(plan.tables))
    return Scheduled(plan.match_id, job.event, tables, plan.hands, plan.chip_unit)


@dataclasses.dataclass(frozen=True)
class LeagueOptions:
    """The options ``run`` and ``serve`` share (``serve`` always plays here: its bots dial this dealer)."""

    keep_going: bool = False
    standings_every: int = 0
    dask: tuple[int | None, str | None] | None = None  # (workers, scheduler): on a Dask cluster
    web: str | None = None
    log_level: LogLevelName = "info"
    linger: bool = False  # with web: serve the final page until Ctrl-C
    workers: int | None = None  # not on Dask: worker processes (default: the cores), jobs of them at most; 1: this one


def _write_report(league: LeagueConfig, results: list[MatchResult], total: int) -> None:
    """report.html in the output folder; a failure to write it is said, and loses nothing else."""
    try:
        write_report(league_report(league, results, total))
    except OSError as error:  # e.g. the vendored chart library is missing (no `make setup`)
        typer.echo(f"error: report.html not written: {error}", err=True)


async def until_interrupted() -> None:
    """Wait for Ctrl-C (SIGINT) or SIGTERM, then return (the caller stops what it serves)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


async def serve_view(view: Snapshots, address: str) -> None:
    """Serve ``view``'s page at ``address`` until Ctrl-C (``dealer view``)."""
    web = WebView(view, address)
    try:
        typer.echo(f"web view on {await web.start()}")
        await until_interrupted()
    finally:
        await web.stop()


def play_league(
    league: LeagueConfig, resume: bool, remote_tokens: dict[str, list[str]] | None, options: LeagueOptions
) -> None:
    """Run the league to the end and print the standings; a refused resume, a bot that cannot
    start or a Dask worker that cannot play is a DealerError (one line per problem, see ``entry``)."""
    unsandboxed = [b.name for b in league.bots if not b.remote and b.limits.sandbox == Switch.OFF]
    if unsandboxed:
        typer.echo(
            f"warning: sandbox: off for {', '.join(unsandboxed)}: these bots run without their sandbox "
            "(UNSAFE); recorded in results.json",
            err=True,
        )
    if sandbox.cpu_hierarchy() is None and any(not b.remote for b in league.bots):
        typer.echo(f"note: CPU: {sandbox.cpu_confinement()} (also in results.json)", err=True)
    log_to(league.out, options.log_level)
    try:
        results = asyncio.run(_league(league, resume, remote_tokens, options))
    except OSError as error:  # OSError: e.g. the web view's address is taken
        fail(*str(error).splitlines())
    except KeyboardInterrupt:  # Ctrl-C: the matches in play were stopped, the finished ones are journaled
        kept, total = finished_count(league.out / "journal.sqlite"), len(build_jobs(league))
        interrupted(
            f"{kept} of {counted(total, 'match', 'matches')} finished and kept in {league.out}; "
            "run the same command with --resume to play the others"
        )
    data = json.loads((league.out / "results.json").read_text(encoding="utf-8"))
    hands = sum(r.hands for r in results)
    typer.echo(f"{league.name}: {counted(len(results), 'match', 'matches')}, {counted(hands, 'hand')}")
    typer.echo(overall_text(data))
    typer.echo(f"results.json, standings.txt, report.html, hand histories and bot logs in {league.out}/")
    if data.get("replayed"):
        typer.echo(
            f"played again from the start with new deals, as the kill had cut them off: {', '.join(data['replayed'])}; "
            f"their first attempts are in {league.out}/interrupted/"
        )
