"""The ``dealer`` command: thin typer commands that parse, call the library and print.

A deliberate error (``DealerError``) ends the command with a one-line message and exit code 2;
anything else is a bug and stays a traceback. Every command that plays writes the dealer's log
(``dealer.log``, see ``--log-level``) to its output folder; the console shows only errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import math
import os
import secrets
import shlex
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Literal, NoReturn

import grpc
import typer
import yaml
from tabulate import tabulate

from dealer import sandbox
from dealer.acpc_game import export_states, unsupported
from dealer.arena.cli import app as arena_app
from dealer.choices import Estimator, FaultPolicy, Switch, VariantName
from dealer.compare import BATCH, LABELS, Settings, deal_sets_for, number
from dealer.config import (
    MAX_CHIPS,
    MAX_DEAL_SETS,
    MAX_HANDS,
    MAX_MS,
    NAME_PATTERN,
    LeagueConfig,
    Limits,
    address_problem,
    game_config,
    load_league,
    split_protocol,
)
from dealer.errors import ConfigError, DealerError, RunError
from dealer.league import (
    Executor,
    Progress,
    build_jobs,
    claim_output,
    instance_counts,
    league_report,
    run_league,
    sealing,
    start_failure,
)
from dealer.match import MatchBot, MatchPlan, instance_label
from dealer.processes import isolation
from dealer.records import MatchResult
from dealer.runner import LocalExecutor, play_comparison, play_match
from dealer.scheduler import plan_tables
from dealer.seeds import commitment, draw_seed, guessable, verify
from dealer.server import BotSession, DealerServer, tune_gc
from dealer.standings import standings, standings_table
from dealer.summary import overall_text
from dealer.terminal import LeagueDisplay
from dealer.text import printable, printable_lines
from dealer.web import write_report
from dealer.web.server import WebView
from dealer.web.view import LeagueView

app = typer.Typer(no_args_is_help=True, help="Bot-versus-bot Texas Hold'em dealer.")

LogLevelName = Literal["debug", "info", "warning", "error"]
LogLevel = Annotated[
    LogLevelName,
    typer.Option(
        help="What dealer.log in the output folder records: debug, info (launches, connections, faults, restarts, "
        "stops), warning (faults only) or error."
    ),
]


def _blinds(text: str) -> tuple[int, int]:
    """Small and big blind from ``50/100`` (or ``50,100``); anything else is a usage error."""
    try:
        small, big = (int(x) for x in text.replace(",", "/").split("/"))
    except ValueError:
        raise typer.BadParameter(f"blinds must look like 50/100, not {text!r}") from None
    return small, big


def _checked_blinds(text: str) -> str:
    """Typer callback: ``--blinds`` has the shape SMALL/BIG as it is parsed (the game checks the values)."""
    _blinds(text)
    return text


def _address(text: str | None) -> str | None:
    """Typer callback: a HOST:PORT option (``--listen``, ``--web``) checked as it is parsed."""
    problem = None if text is None else address_problem(text)
    if problem is not None:
        raise typer.BadParameter(problem)
    return text


def _finite(value: float) -> float:
    """Typer callback: a bound in bb/100 is a finite number (click reads "nan" and "inf" too)."""
    if not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


def _rate(value: float) -> float:
    """Typer callback: an error rate (``--alpha``, ``--beta``) strictly between 0 and 0.5."""
    if not 0 < value < 0.5:
        raise typer.BadParameter(f"must be between 0 and 0.5 (exclusive), not {value}")
    return value


# Options that `dealer match` and `dealer compare` share.
Variant = Annotated[VariantName, typer.Option(help="The betting structure (mixed: rotating by hand).")]
Blinds = Annotated[str, typer.Option(help="Small/big blind, e.g. 50/100.", callback=_checked_blinds)]
Stack = Annotated[int, typer.Option(min=1, max=MAX_CHIPS, help="Starting stack, reset every hand.")]
PerActionMs = Annotated[int, typer.Option(min=1, max=MAX_MS, help="Time per action (ms).")]
BankMs = Annotated[int, typer.Option(min=0, max=MAX_MS, help="Time bank per match and seat (ms).")]
Sandbox = Annotated[Switch, typer.Option(help="off: run the bots without their sandbox (UNSAFE).")]
Fresh = Annotated[
    bool,
    typer.Option(help="Move an output folder that already holds results aside to a dated folder (never deleted)."),
]
SeedFile = Annotated[
    Path | None,
    typer.Option(
        help="File holding the deal seed (same seed, same cards; or set DEALER_SEED). Default: a fresh 256-bit "
        "seed, committed to at the start and revealed in the results."
    ),
]
SeedRefused = Annotated[str | None, typer.Option(hidden=True, help="Refused: a seed on the command line is public.")]


def _fail(*lines: str, code: int = 2) -> NoReturn:
    """End the command: each line on stderr after ``error:``, then exit with ``code`` (2: a usage
    or configuration error, a refused output folder; a comparison's own codes otherwise)."""
    for line in lines:
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(code)


def entry() -> None:
    """The ``dealer`` program: a DealerError is one line on stderr and exit code 2; a bug stays a traceback."""
    try:
        app()
    except DealerError as error:  # its text may quote a bot (a log line): escaped, never raw
        for line in printable_lines(str(error).strip()) if str(error).strip() else [type(error).__name__]:
            typer.echo(f"error: {line}", err=True)
        raise SystemExit(2) from None


class _PrintableFormatter(logging.Formatter):
    """The console's log lines with a bot's text in them (an error's message) escaped."""

    def format(self, record: logging.LogRecord) -> str:
        return "\n".join(printable_lines(super().format(record)))


def _log_to(folder: Path, level: LogLevelName) -> None:
    """Send the dealer's log to ``folder/dealer.log`` (mode 0600, appended) at ``level``, and its
    errors also to stderr. The log names bots, tables and requests, never a token or a seed."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "dealer.log"
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    logger = logging.getLogger("dealer")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    to_file = logging.FileHandler(path, encoding="utf-8")
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    to_console = logging.StreamHandler()
    to_console.setLevel(logging.ERROR)
    to_console.setFormatter(_PrintableFormatter("dealer: %(message)s"))
    logger.addHandler(to_file)
    logger.addHandler(to_console)
    logger.setLevel(level.upper())
    logger.propagate = False
    logging.raiseExceptions = False  # a log line lost to a full disk is dropped, not a traceback on stderr


@app.callback()
def main() -> None:
    """Deal Texas Hold'em to bots over gRPC: single matches, leagues, regression comparisons."""
    tune_gc()


def _bot_names(commands: list[list[str]]) -> list[str]:
    """Readable unique names from command lines: the script's stem, numbered when repeated."""
    names: list[str] = []
    for argv in commands:
        script = Path(next((a for a in reversed(argv) if "." in Path(a).name and not a.startswith("-")), argv[0]))
        stem = script.stem or "bot"
        if stem in ("bot", "main", "index") and script.parent.name:  # node/bot.js -> "node"
            stem = script.parent.name
        name, k = stem, 2
        while name in names:
            name, k = f"{stem}-{k}", k + 1
        names.append(name)
    return names


def _sandbox_limits(switch: Switch) -> Limits:
    """The bots' limits for ``--sandbox on|off``; off is said to be unsafe on stderr."""
    if switch == Switch.OFF:
        typer.echo(
            "warning: --sandbox off: the bots run without their sandbox (UNSAFE: they can read the "
            "dealer's files and each other's processes); recorded in the results",
            err=True,
        )
    return Limits(sandbox=switch)


def _split(text: str) -> list[str]:
    """A bot's command line as words (shlex); an unbalanced quote is a usage error, not a traceback."""
    try:
        return shlex.split(text)
    except ValueError as error:
        raise typer.BadParameter(f"cannot split the command line {text!r}: {error}") from None


def _claim(out: Path, *, resume: bool = False, fresh: bool = False, resumable: bool = True) -> None:
    """Refuse an output folder holding an earlier event's results (one line, exit code 2) unless
    ``resume`` or ``fresh`` (then say where the old results went)."""
    if resume and fresh:
        raise typer.BadParameter("--resume goes on from the earlier results, --fresh moves them aside: choose one")
    try:
        moved = claim_output(out, resume=resume, fresh=fresh, resumable=resumable)
    except RunError as error:
        _fail(str(error))
    if moved is not None:
        typer.echo(f"the earlier results in {out} were moved to {moved}", err=True)


@app.command()
def match(
    bots: Annotated[
        list[str],
        typer.Argument(
            help='Bot command lines, one per seat (quote each): "CMD" (gRPC), "stdio:CMD" (JSON lines, '
            'docs/bots-stdio.md) or "acpc:CMD {game} {host} {port}" (the ACPC protocol).'
        ),
    ],
    variant: Variant = VariantName.NO_LIMIT,
    blinds: Blinds = "50/100",
    ante: Annotated[int, typer.Option(min=0, max=MAX_CHIPS, help="Ante per player.")] = 0,
    stack: Stack = 20000,
    hands: Annotated[
        int,
        typer.Option(min=1, max=MAX_HANDS, help="Total hands (rounded down to whole duplicate rotations)."),
    ] = 1000,
    seed_file: SeedFile = None,
    seed: SeedRefused = None,
    duplicate: Annotated[bool, typer.Option(help="Replay every deal with the seats rotated.")] = True,
    tables: Annotated[
        int, typer.Option(min=1, max=MAX_DEAL_SETS, help="Deal sets played at once (each on its rotations' tables).")
    ] = 1,
    sealed: Annotated[bool, typer.Option(help="Play each rotation of a deal in its own process of each bot.")] = True,
    per_action_ms: PerActionMs = 1000,
    bank_ms: BankMs = 30000,
    grace_ms: Annotated[int, typer.Option(min=0, max=MAX_MS, help="Transport margin not charged to bots (ms).")] = 50,
    startup_ms: Annotated[
        int, typer.Option(min=0, max=MAX_MS, help="Time for a bot to start and connect (ms).")
    ] = 10000,
    fault_policy: Annotated[
        FaultPolicy, typer.Option(help="A failed bot folds its hands, forfeits the match, or restarts.")
    ] = FaultPolicy.FOLD,
    listen: Annotated[
        str, typer.Option(metavar="HOST:PORT", help="Address the dealer listens on.", callback=_address)
    ] = "127.0.0.1:0",
    name: Annotated[
        list[str] | None,
        typer.Option(
            "--name", help="A bot's name, once per bot in the order of BOTS (default: from its command line)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Output folder: hand histories, bot logs, results.json.")] = Path(
        "out/match"
    ),
    fresh: Fresh = False,
    keep_going: Annotated[
        bool, typer.Option(help="Play on when a bot cannot start (default: stop the match with an error).")
    ] = False,
    sandbox: Sandbox = Switch.ON,
    log_level: LogLevel = "info",
) -> None:
    """Play one match between bot command lines and print the results."""
    protocols, commands = zip(*[(protocol, _split(text)) for protocol, text in map(split_protocol, bots)], strict=True)
    if not all(commands):
        raise typer.BadParameter("a bot's command line is empty")
    if not 2 <= len(commands) <= 10:
        raise typer.BadParameter(f"a match needs 2 to 10 bots, got {len(commands)}")
    names = _given_names(name, len(commands)) if name else _bot_names(list(commands))
    rotations = len(names) if duplicate else 1
    if hands < tables * rotations:
        raise typer.BadParameter(
            f"--hands {hands} is fewer than one hand at each of the {tables * rotations} tables "
            f"(--tables {tables} x {rotations} seat rotations)"
        )
    try:
        game = game_config(
            variant=variant,
            blinds=_blinds(blinds),
            ante=ante,
            stack=stack,
            time={"per_action_ms": per_action_ms, "bank_ms": bank_ms, "grace_ms": grace_ms, "startup_ms": startup_ms},
        )
    except ConfigError as error:
        _fail(str(error))
    reason = unsupported(game, seats=len(names)) if "acpc" in protocols else None
    if reason:
        _fail(f"an ACPC bot cannot play this match: {reason}")
    _claim(out, fresh=fresh, resumable=False)
    seed_text = _event_seed(seed_file, seed)
    per_table = hands // (tables * rotations)
    plan = MatchPlan(
        match_id="match",
        tables=plan_tables(names, duplicate=duplicate, tables=tables),
        game=game,
        hands=per_table,
        seed=seed_text,
        fault_policy=fault_policy,
        sealed=sealed,
    )
    limits = _sandbox_limits(sandbox)
    entries = {
        name: MatchBot(name, tuple(argv), limits=limits, protocol=protocol)
        for name, argv, protocol in zip(names, commands, protocols, strict=True)
    }
    _log_to(out, log_level)
    result = asyncio.run(play_match(plan, entries, listen, out, stop_unstarted=not keep_going))
    lines = standings([result])
    typer.echo(standings_table(lines))
    out.mkdir(parents=True, exist_ok=True)
    summary = {
        "match": plan.match_id,
        "hands": result.hands,
        **_seed_fields(seed_text),
        "variant": variant,
        "duplicate": duplicate,
        "sealed": sealed,
        "standings": [s.as_json() for s in lines],
        "forfeited": result.forfeited,
        "log_tails": result.log_tails,
        "sandbox": dict.fromkeys(names, sandbox),
        "isolation": {name: isolation(entry.protocol, entry.limits, sealed=sealed) for name, entry in entries.items()},
    }
    _write_private(out / "results.json", json.dumps(summary, indent=2) + "\n")
    failure = None if keep_going else start_failure(result, out, where="")
    if failure is not None:
        _fail(str(failure))
    typer.echo(f"{result.hands} hands; histories, logs and results.json in {out}/")


def _given_names(names: list[str], bots: int) -> list[str]:
    """The bots' names from ``--name`` (one per bot, distinct, like a league file's names)."""
    if len(names) != bots:
        raise typer.BadParameter(f"give one --name per bot: {len(names)} given for {bots} bots")
    for text in names:
        if not NAME_PATTERN.fullmatch(text):
            raise typer.BadParameter(f"--name {text!r} must match ^[A-Za-z0-9_.-]{{1,40}}$")
    if len(set(names)) != len(names):
        raise typer.BadParameter(f"the --name values must be distinct, got {names}")
    return names


def _event_seed(seed_file: Path | None, refused: str | None) -> str:
    """The event's seed: from ``--seed-file``, else ``DEALER_SEED``, else freshly drawn; its
    commitment (and a warning if it is guessable) on stderr. Never from the command line, which
    every process on the machine can read (/proc/PID/cmdline)."""
    if refused is not None:
        _fail(
            "--seed: a seed on the command line can be read by every process (/proc/PID/cmdline); "
            "put it in a file (--seed-file FILE) or in DEALER_SEED"
        )
    if seed_file is not None:
        try:
            seed = seed_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            _fail(f"--seed-file {seed_file}: {error.strerror or error}")
        except UnicodeDecodeError as error:
            _fail(f"--seed-file {seed_file}: not UTF-8 (byte offset {error.start})")
        if not seed:
            _fail(f"--seed-file {seed_file}: the file is empty")
    else:
        seed = os.environ.get("DEALER_SEED") or draw_seed()
    _show_seed(commitment(seed), guessable(seed))
    return seed


def _show_seed(commit: str, warning: str | None) -> None:
    """Say, as the event starts, what the seed is committed to (and whether it can be guessed)."""
    typer.echo(f"seed commitment (SHA-256): {commit}", err=True)
    if warning is not None:
        typer.echo(f"warning: {warning}", err=True)


def _seed_fields(seed: str) -> dict[str, object]:
    """What the results say about the seed once the event is over: the seed, its commitment, a warning."""
    return {"seed": seed, "seed_sha256": commitment(seed), "seed_warning": guessable(seed)}


def _write_private(path: Path, text: str) -> None:
    """Write a file only the dealer's user can read (0600): results that reveal the seed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as file:
        file.write(text)


def _load(path: Path) -> LeagueConfig:
    """Load and validate a league file, or exit with every error on its own line."""
    try:
        return load_league(path)
    except ConfigError as error:
        _fail(*str(error).splitlines())


@app.command()
def validate(config: Annotated[Path, typer.Argument(help="The league file, e.g. tournaments.yaml.")]) -> None:
    """Check a league file and report every error with its line and key; nothing is started."""
    league = _load(config)
    jobs = build_jobs(league)
    hands = sum(len(j.plan.tables) * j.plan.hands for j in jobs)
    typer.echo(
        f"{config}: ok: {len(league.bots)} bots, {len(league.events)} events, {len(jobs)} matches, up to {hands} hands"
    )


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
            yield LocalExecutor(server, league.jobs, sessions, on_hand=view.on_hand if view else None)
        finally:
            for session in sessions.values():
                session.goodbye("league over")
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def _dask_executor(league: LeagueConfig, options: LeagueOptions) -> AsyncIterator[Executor]:
    """Matches played on a Dask cluster: a new local one, or the cluster of a scheduler (the web
    view's hands then come from finished matches' files)."""
    from dealer.cluster import dask_executor  # imports Dask, which the local executor does not need

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
    total = len(build_jobs(league))
    view = LeagueView(league, total) if options.web else None
    web = WebView(view, options.web) if view is not None and options.web else None
    executors = (
        _local_executor(league, remote_tokens, options, view)
        if options.dask is None
        else _dask_executor(league, options)
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

                return await run_league(
                    league,
                    executor,
                    resume=resume,
                    on_progress=progress,
                    keep_going=options.keep_going,
                    on_seed=_show_seed,
                )
        finally:
            if web is not None:
                await web.stop()


@dataclasses.dataclass(frozen=True)
class LeagueOptions:
    """The options ``run`` and ``serve`` share (``serve`` always plays here: its bots dial this dealer)."""

    keep_going: bool = False
    standings_every: int = 0
    dask: tuple[int | None, str | None] | None = None  # (workers, scheduler): on a Dask cluster
    web: str | None = None
    log_level: LogLevelName = "info"


KeepGoing = Annotated[
    bool, typer.Option(help="Play on when a bot cannot start in its first match (default: stop with an error).")
]
Web = Annotated[
    str | None,
    typer.Option(
        metavar="HOST:PORT",
        help="Serve a live page of the league here (e.g. 127.0.0.1:8080; port 0 picks one).",
        callback=_address,
    ),
]
StandingsEvery = Annotated[
    int,
    typer.Option(min=0, help="Also print the overall standings every N matches (they are printed as each event ends)."),
]


def _play_league(
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
    _log_to(league.out, options.log_level)
    try:
        results = asyncio.run(_league(league, resume, remote_tokens, options))
    except OSError as error:  # OSError: e.g. the web view's address is taken
        _fail(*str(error).splitlines())
    try:
        write_report(league_report(league, results, len(build_jobs(league))))
    except OSError as error:  # e.g. the vendored chart library is missing (no `make setup`)
        typer.echo(f"error: report.html not written: {error}", err=True)
    data = json.loads((league.out / "results.json").read_text(encoding="utf-8"))
    typer.echo(f"{league.name}: {len(results)} matches, {sum(r.hands for r in results)} hands")
    typer.echo(overall_text(data))
    typer.echo(f"results.json, standings.txt, report.html, hand histories and bot logs in {league.out}/")
    if data.get("replayed"):
        typer.echo(
            f"played again from the start with new deals, as the kill had cut them off: {', '.join(data['replayed'])}; "
            f"their first attempts are in {league.out}/interrupted/"
        )


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="The league file, e.g. tournaments.yaml.")],
    resume: Annotated[bool, typer.Option(help="Skip the matches already in the output folder's journal.")] = False,
    fresh: Fresh = False,
    keep_going: KeepGoing = False,
    standings_every: StandingsEvery = 0,
    executor: Annotated[
        str,
        typer.Option(
            help="local: every match in this process; dask: on a Dask cluster (README: many cores, many machines)."
        ),
    ] = "local",
    workers: Annotated[
        int | None,
        typer.Option(help="dask: worker processes of the cluster started on this machine (default: one per core)."),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="dask: join the running cluster of this scheduler instead, e.g. tcp://HOST:8786.")
    ] = None,
    web: Web = None,
    log_level: LogLevel = "info",
) -> None:
    """Run a league of launched bots to the end, with progress and each event's standings.

    An output folder that already holds results is refused unless --resume or --fresh."""
    if executor not in ("local", "dask"):
        raise typer.BadParameter(f"executor must be local or dask, not {executor!r}")
    if executor == "local" and (workers is not None or scheduler is not None):
        raise typer.BadParameter("--workers and --scheduler need --executor dask")
    if workers is not None and (scheduler is not None or workers < 1):
        raise typer.BadParameter(
            "--workers must be at least 1, and sizes only the cluster started here (not a --scheduler's)"
        )
    league = _load(config)
    remote = [b.name for b in league.bots if b.remote]
    if remote:
        _fail(f"{config}: bots {', '.join(remote)} are remote: use `dealer serve`")
    _claim(league.out, resume=resume, fresh=fresh)
    dask = (workers, scheduler) if executor == "dask" else None
    _play_league(league, resume, None, LeagueOptions(keep_going, standings_every, dask, web, log_level))


@app.command()
def serve(
    config: Annotated[Path, typer.Argument(help="The league file, e.g. tournaments.yaml.")],
    resume: Annotated[bool, typer.Option(help="Skip the matches already in the output folder's journal.")] = False,
    fresh: Fresh = False,
    keep_going: KeepGoing = False,
    standings_every: StandingsEvery = 0,
    web: Web = None,
    log_level: LogLevel = "info",
) -> None:
    """Run a league that waits for its remote bots: prints each token once (or reads tokens_file).

    A remote bot gets one token per instance (<bot>.<k>: one per rotation of a duplicate deal)."""
    league = _load(config)
    _claim(league.out, resume=resume, fresh=fresh)
    counts = instance_counts(build_jobs(league))
    needed = {b.name: max(1, counts.get(b.name, 1)) for b in league.bots if b.remote}
    tokens: dict[str, list[str]] = {}
    if league.tokens_file is not None:
        try:
            data = yaml.safe_load(league.tokens_file.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as error:
            _fail(f"{league.tokens_file}: {error}")
        except UnicodeDecodeError as error:
            _fail(f"{league.tokens_file}: not UTF-8 (byte offset {error.start})")
        for name, count in needed.items():
            given = data.get(name) if isinstance(data, dict) else None
            listed = [given] if isinstance(given, str) else given if isinstance(given, list) else []
            if len(listed) < count or not all(isinstance(t, str) and len(t) >= 16 for t in listed[:count]):
                _fail(
                    f"{league.tokens_file}: {name} needs {count} token(s) of 16+ characters "
                    f"(a list: one per instance, i.e. per rotation of a duplicate deal)"
                )
            tokens[name] = listed[:count]
    else:
        tokens = {name: [secrets.token_urlsafe(32) for _ in range(count)] for name, count in needed.items()}
        for name, instance_tokens in tokens.items():
            for k, token in enumerate(instance_tokens):
                typer.echo(f"token for {instance_label(name, k)}: {token}")
    if needed:
        typer.echo(f"note: {sealing(league)['note']}")
    _play_league(league, resume, tokens, LeagueOptions(keep_going, standings_every, web=web, log_level=log_level))


@app.command()
def export(
    histories: Annotated[
        list[Path], typer.Argument(help="PHH files (.phhs), or folders holding them at any depth (out/match).")
    ],
    acpc: Annotated[bool, typer.Option("--acpc", help="Print ACPC log STATE lines.")] = False,
) -> None:
    """Convert our PHH hand histories for other tools; --acpc: one ACPC log STATE line per hand."""
    if not acpc:
        _fail("choose an output format (--acpc)")
    files = []
    for given in histories:
        found = sorted(given.rglob("*.phhs")) if given.is_dir() else [given]
        if not found:
            _fail(f"{given}: no hand histories (.phhs files) in this folder or below")
        files += found
    for path in files:
        try:
            lines = export_states(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError) as error:  # tomllib's errors are ValueErrors
            _fail(f"{path}: {error}")
        for line in lines:
            typer.echo(line)


@app.command()
def compare(
    new: Annotated[str, typer.Argument(help="Command line of the new version (quote it).")],
    old: Annotated[str, typer.Argument(help="Command line of the old version (quote it).")],
    field: Annotated[
        list[str] | None,
        typer.Option(
            help="Command line of an opponent; repeat for several. Both versions then play the field on the same "
            "deals instead of each other."
        ),
    ] = None,
    hands: Annotated[int, typer.Option(min=1, max=MAX_HANDS, help="Maximum hands, every table counted.")] = 20000,
    until_significant: Annotated[
        bool, typer.Option(help="Stop as soon as the sequential test (--test) decides.")
    ] = Settings.until_significant,
    test: Annotated[
        str,
        typer.Option(
            help="Sequential test: cs (a confidence sequence: stops early on a large difference) or sprt (two "
            "SPRTs with the bounds as hypotheses)."
        ),
    ] = Settings.test,
    alpha: Annotated[
        float, typer.Option(callback=_rate, help="False verdict rate with no true difference (better or worse).")
    ] = Settings.alpha,
    beta: Annotated[
        float, typer.Option(callback=_rate, help="Miss rate at the bounds (--worse-than, --better-than).")
    ] = Settings.beta,
    worse_than: Annotated[
        float, typer.Option(callback=_finite, help="Bound in bb/100 of the difference: 'worse by more than'.")
    ] = Settings.worse_than,
    better_than: Annotated[
        float, typer.Option(callback=_finite, help="Bound in bb/100: 'better by more than'.")
    ] = Settings.better_than,
    estimator: Annotated[
        str,
        typer.Option(
            help="Figures the verdict is taken from: full (aivat, and the versions' own draws corrected where they "
            "report their strategy), aivat (card luck corrected at every deal), all-in (all-in hands scored by "
            "equity) or raw."
        ),
    ] = Settings.estimator,
    adjust: Annotated[bool, typer.Option(help="--no-adjust: the same as --estimator raw.")] = True,
    variant: Variant = VariantName.NO_LIMIT,
    blinds: Blinds = "50/100",
    stack: Stack = 20000,
    seed_file: SeedFile = None,
    seed: SeedRefused = None,
    tables: Annotated[
        int, typer.Option(min=1, max=MAX_DEAL_SETS, help="Deal sets played at once (each a duplicate group of tables).")
    ] = 4,
    sealed: Annotated[bool, typer.Option(help="Play each rotation of a deal in its own process of each bot.")] = True,
    batch: Annotated[
        int, typer.Option(min=1, max=MAX_HANDS, help="Paired deals between two looks of the sequential test.")
    ] = BATCH,
    per_action_ms: PerActionMs = 1000,
    bank_ms: BankMs = 30000,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
    out: Annotated[Path, typer.Option(help="Output folder: hand histories, bot logs, compare.json.")] = Path(
        "out/compare"
    ),
    fresh: Fresh = False,
    keep_going: Annotated[
        bool, typer.Option(help="Play on when a bot cannot start (default: stop with an error, exit code 13).")
    ] = False,
    sandbox: Sandbox = Switch.ON,
    log_level: LogLevel = "info",
) -> None:
    """Is NEW better than OLD? Duplicate deals, luck correction, optional sequential test.

    Exit codes: 0 better, 10 not worse, 11 worse, 12 inconclusive, 13 a bot failed to start or crashed
    (2: usage error). See docs/compare.md.
    """
    try:
        settings = Settings.read(
            worse_than=worse_than,
            better_than=better_than,
            alpha=alpha,
            beta=beta,
            until_significant=until_significant,
            estimator=estimator if adjust else Estimator.RAW,
            test=test,
        )
        game = game_config(
            variant=variant,
            blinds=_blinds(blinds),
            stack=stack,
            time={"per_action_ms": per_action_ms, "bank_ms": bank_ms},
        )
    except (ValueError, ConfigError) as error:
        _fail(str(error))
    try:
        deal_sets_for(hands, tables, field or [])
    except ValueError as error:
        _fail(f"--hands: {error}")
    field_commands = [_split(f) for f in field or []]
    new_command, old_command = _split(new), _split(old)
    if not new_command or not old_command or not all(field_commands):
        raise typer.BadParameter("a bot's command line is empty")
    _claim(out, fresh=fresh, resumable=False)
    seed_text = _event_seed(seed_file, seed)
    field_names = [n if n not in ("new", "old") else f"{n}-field" for n in _bot_names(field_commands)]
    limits = _sandbox_limits(sandbox)
    new_entry = MatchBot("new", tuple(new_command), limits=limits)
    old_entry = MatchBot("old", tuple(old_command), limits=limits)
    field_entries = [MatchBot(n, tuple(c), limits=limits) for n, c in zip(field_names, field_commands, strict=True)]
    _log_to(out, log_level)
    comparison = asyncio.run(
        play_comparison(
            new_entry,
            old_entry,
            field_entries,
            game,
            settings,
            max_hands=hands,
            deal_sets=tables,
            seed=seed_text,
            batch=batch,
            out=out,
            sealed=sealed,
            stop_unstarted=not keep_going,
        )
    )
    data = {
        **comparison.as_json(),
        "new": new,
        "old": old,
        "field": list(field or []),
        **_seed_fields(seed_text),
        "sealed": sealed,
        "hands_played": comparison.hands_played,
        "sandbox": {entry.name: sandbox for entry in (new_entry, old_entry, *field_entries)},
        "isolation": {
            e.name: isolation(e.protocol, e.limits, sealed=sealed) for e in (new_entry, old_entry, *field_entries)
        },
    }
    failed = comparison.failed  # a bot that could not play voids the figures (exit 13)
    out.mkdir(parents=True, exist_ok=True)
    _write_private(out / "compare.json", json.dumps(data, indent=2) + "\n")
    unstarted = None if keep_going or comparison.result is None else start_failure(comparison.result, out, where="")
    if unstarted is not None:
        _fail(str(unstarted), code=comparison.exit_code)
    if json_output:
        typer.echo(json.dumps(data))
    else:
        level = f"{100 * (1 - alpha):g}% CI"
        rows = []
        for name, label in reversed(LABELS.items()):
            fig = comparison.by_estimator[name]
            low, high = fig.ci
            removed = comparison.variance_removed(name) if name != "raw" else None
            rows.append(
                [
                    label,
                    number(fig.estimate.mean),
                    f"[{number(low)}, {number(high)}]",
                    number(fig.estimate.stderr, ".2f"),
                    number(fig.p_value, ".4g"),
                    "" if removed is None else f"{100 * removed:.0f}%",
                ]
            )
        typer.echo(
            tabulate(
                rows,
                headers=["new - old", "bb/100", level, "stderr", "p-value", "variance removed"],
                disable_numparse=True,
            )
        )
        typer.echo(
            f"{comparison.hands} hands used ({comparison.sums.deals} paired deals, "
            f"{comparison.sums.all_in} hands all-in adjusted, "
            f"{comparison.sums.known} with known strategies); "
            f"verdict: {comparison.verdict.upper()} (by {comparison.decided_by}, from the "
            f"{settings.estimator} figures); exit code {comparison.exit_code}"
        )
        typer.echo(comparison.decided_text())
    for bot, reason in (comparison.strategies_refused or {}).items():
        typer.echo(f"warning: the strategies {bot} reported were ignored from then on: {reason}", err=True)
    if failed:
        typer.echo(f"error: bots failed, the comparison is not valid: {failed}; see the logs in {out}/logs", err=True)
    raise typer.Exit(comparison.exit_code)


@app.command("verify")
def verify_command(
    out: Annotated[Path, typer.Argument(help="An event's output folder (dealer match, compare or run).")],
) -> None:
    """Re-deal every recorded hand from the seed the results reveal and check it against the histories.

    Exit codes: 0 every hand is the seed's deal, 1 a hand is not (each listed), 2 nothing to check."""
    try:
        checked = verify(out)
    except ValueError as error:
        _fail(str(error))
    for line in checked.mismatches:
        typer.echo(f"mismatch: {line}")
    if checked.hands == 0:
        _fail(f"{out}: no hand histories to check")
    verdict = "ok" if checked.ok else f"FAILED: {len(checked.mismatches)} hands are not the seed's deals"
    typer.echo(
        f"{out}: {checked.hands} hands in {checked.files} histories re-dealt from seed sha256 "
        f"{commitment(checked.seed)}: {verdict}"
    )
    raise typer.Exit(0 if checked.ok else 1)


app.add_typer(arena_app, name="arena")
