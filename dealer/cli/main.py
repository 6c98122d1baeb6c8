"""The ``dealer`` command: thin typer commands that parse, call the library and print.

A deliberate error (``DealerError``) ends the command with a one-line message and exit code 2;
anything else is a bug and stays a traceback. Every command that plays writes the dealer's log
(``dealer.log``, see ``--log-level``) to its output folder; the console shows only errors.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
import yaml

from dealer.arena.cli import app as arena_app
from dealer.cli.compare_bots import check_hands, compare_entries, reference_entry
from dealer.cli.league import LeagueOptions, load, play_league, serve_view
from dealer.cli.options import (
    BankMs,
    Blinds,
    CompareAdjust,
    CompareAlpha,
    CompareBaselineBot,
    CompareBatch,
    CompareBeta,
    CompareBetterThan,
    CompareDeals,
    CompareEstimator,
    CompareField,
    CompareHands,
    CompareJsonOutput,
    CompareKeepGoing,
    CompareNew,
    CompareOld,
    CompareOut,
    CompareSealed,
    CompareTables,
    CompareTest,
    CompareUntilSignificant,
    CompareWorseThan,
    Fresh,
    KeepGoing,
    Linger,
    LogLevel,
    MatchAnte,
    MatchBots,
    MatchDuplicate,
    MatchFaultPolicy,
    MatchGraceMs,
    MatchHands,
    MatchKeepGoing,
    MatchListen,
    MatchName,
    MatchOut,
    MatchSealed,
    MatchStartupMs,
    MatchTables,
    PerActionMs,
    Sandbox,
    SeedFile,
    SeedRefused,
    ShowProgress,
    Stack,
    StandingsEvery,
    Variant,
    Web,
    Workers,
    bot_names,
    check_address,
    claim,
    event_seed,
    fail,
    given_names,
    interrupted,
    log_to,
    parse_blinds,
    sandbox_limits,
    split_command,
)
from dealer.cli.play import play_person
from dealer.cli.terminal import HandsDisplay
from dealer.config.acpc_game import export_states, unsupported
from dealer.config.choices import BotProtocol, Deals, Estimator, FaultPolicy, Switch, VariantName
from dealer.config.league_file import CompareSettings as Settings
from dealer.config.league_file import GameConfig, game_config, split_protocol
from dealer.engine.scheduler import plan_tables
from dealer.errors import ConfigError, DealerError
from dealer.files import PRIVATE, write_atomically
from dealer.league.match import MatchBot, MatchPlan, instance_label
from dealer.league.run import (
    build_jobs,
    instance_counts,
    sealing,
    start_failure,
)
from dealer.league.runner import Dealing, comparison_record, match_record, play_comparison, play_match
from dealer.league.seeds import commitment, verify
from dealer.league.workers import default_workers
from dealer.runtime import tune_gc
from dealer.stats.compare import Comparison
from dealer.stats.compare_text import RunningEstimate, comparison_text
from dealer.stats.paired import PairedTally
from dealer.stats.records import MatchResult
from dealer.stats.standings import standings, standings_table
from dealer.text import counted, printable_lines
from dealer.web.final import FinalView, folder_results

app = typer.Typer(no_args_is_help=True, help="Bot-versus-bot Texas Hold'em dealer.")


# Options that `dealer match` and `dealer compare` share.


def entry() -> None:
    """The ``dealer`` program: a DealerError is one line on stderr and exit code 2; a bug stays a traceback."""
    try:
        app()
    except DealerError as error:  # its text may quote a bot (a log line): escaped, never raw
        for line in printable_lines(str(error).strip()) if str(error).strip() else [type(error).__name__]:
            typer.echo(f"error: {line}", err=True)
        raise SystemExit(2) from None


@app.callback()
def main() -> None:
    """Deal Texas Hold'em to bots over gRPC: single matches, leagues, regression comparisons."""
    tune_gc()


@app.command()
def match(
    bots: MatchBots,
    variant: Variant = VariantName.NO_LIMIT,
    blinds: Blinds = "50/100",
    ante: MatchAnte = 0,
    stack: Stack = 20000,
    hands: MatchHands = 1000,
    seed_file: SeedFile = None,
    seed: SeedRefused = None,
    duplicate: MatchDuplicate = True,
    tables: MatchTables = 1,
    sealed: MatchSealed = True,
    workers: Workers = None,
    per_action_ms: PerActionMs = 1000,
    bank_ms: BankMs = 30000,
    grace_ms: MatchGraceMs = 50,
    startup_ms: MatchStartupMs = 10000,
    fault_policy: MatchFaultPolicy = FaultPolicy.FOLD,
    listen: MatchListen = "127.0.0.1:0",
    name: MatchName = None,
    out: MatchOut = Path("out/match"),
    fresh: Fresh = False,
    keep_going: MatchKeepGoing = False,
    sandbox: Sandbox = Switch.ON,
    log_level: LogLevel = "info",
    progress: ShowProgress = False,
) -> None:
    """Play one match between bot command lines and print the results."""
    protocols, commands = _match_commands(bots)
    names = given_names(name, len(commands)) if name else bot_names(commands)
    per_table = _hands_per_table(hands, tables, len(names) if duplicate else 1)
    clock = {"per_action_ms": per_action_ms, "bank_ms": bank_ms, "grace_ms": grace_ms, "startup_ms": startup_ms}
    game = _game(variant=variant, blinds=parse_blinds(blinds), ante=ante, stack=stack, time=clock)
    reason = unsupported(game, seats=len(names)) if BotProtocol.ACPC in protocols else None
    if reason:
        fail(f"an ACPC bot cannot play this match: {reason}")
    claim(out, fresh=fresh, resumable=False)
    seed_text = event_seed(seed_file, seed)
    seats = plan_tables(names, duplicate=duplicate, tables=tables)
    plan = MatchPlan("match", seats, game, per_table, seed_text, fault_policy=fault_policy, sealed=sealed)
    limits = sandbox_limits(sandbox)
    entries = {
        name: MatchBot(name, tuple(argv), limits=limits, protocol=protocol)
        for name, argv, protocol in zip(names, commands, protocols, strict=True)
    }
    log_to(out, log_level)
    spread = workers or (default_workers(hands) if listen.endswith(":0") else 1)  # a fixed address: one server
    shown: dict[str, Any] = {"keep_going": keep_going, "progress": progress, "workers": spread}
    result = _play_match_shown(plan, entries, listen, out, **shown)
    typer.echo(standings_table(standings([result])))
    record = match_record(plan, result, entries, duplicate=duplicate)
    write_atomically(out / "results.json", json.dumps(record, indent=2) + "\n", mode=PRIVATE)
    failure = None if keep_going else start_failure(result, out, where="")
    if failure is not None:
        fail(str(failure))
    typer.echo(f"{counted(result.hands, 'hand')}; histories, logs and results.json in {out}/")


def _match_commands(bots: list[str], least: int = 2) -> tuple[list[BotProtocol], list[list[str]]]:
    """Each bot's protocol and command words; a usage error for an empty one, or too few or too many."""
    protocols, commands = [], []
    for protocol, text in map(split_protocol, bots):
        protocols.append(protocol)
        commands.append(split_command(text))
    if not all(commands):
        raise typer.BadParameter("a bot's command line is empty")
    if not least <= len(commands) <= 10:
        raise typer.BadParameter(f"a match needs {least} to 10 bots, got {len(commands)}")
    return protocols, commands


def _hands_per_table(hands: int, tables: int, rotations: int) -> int:
    """``--hands`` spread over the tables of every deal set and seat rotation; a usage error below one each."""
    if hands < tables * rotations:
        raise typer.BadParameter(
            f"--hands {hands} is fewer than one hand at each of the {tables * rotations} tables "
            f"(--tables {tables} x {rotations} seat rotations)"
        )
    return hands // (tables * rotations)


def _game(**rules: Any) -> GameConfig:
    """The game of ``game_config``'s keywords; its problems end the command (exit 2)."""
    try:
        return game_config(**rules)
    except ConfigError as error:
        fail(str(error))


@app.command()
def validate(config: Annotated[Path, typer.Argument(help="The league file, e.g. tournaments.yaml.")]) -> None:
    """Check a league file and report every error with its line and key; nothing is started."""
    league = load(config)
    jobs = build_jobs(league)
    hands = sum(len(j.plan.tables) * j.plan.hands for j in jobs)
    typer.echo(
        f"{config}: ok: {counted(len(league.bots), 'bot')}, {counted(len(league.events), 'event')}, "
        f"{counted(len(jobs), 'match', 'matches')}, up to {counted(hands, 'hand')}"
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
        typer.Option(help="Worker processes playing matches, at most jobs (default: cores; 1: this one; or Dask's)."),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="dask: join the running cluster of this scheduler instead, e.g. tcp://HOST:8786.")
    ] = None,
    web: Web = None,
    linger: Linger = False,
    log_level: LogLevel = "info",
) -> None:
    """Run a league of launched bots to the end, with progress and each event's standings.

    An output folder that already holds results is refused unless --resume or --fresh."""
    if executor not in ("local", "dask"):
        raise typer.BadParameter(f"executor must be local or dask, not {executor!r}")
    if executor == "local" and scheduler is not None:
        raise typer.BadParameter("--scheduler needs --executor dask")
    if workers is not None and (scheduler is not None or workers < 1):
        raise typer.BadParameter(
            "--workers must be at least 1, and sizes only the cluster started here (not a --scheduler's)"
        )
    league = load(config)
    remote = [b.name for b in league.bots if b.remote]
    if remote:
        fail(f"{config}: bots {', '.join(remote)} are remote: use `dealer serve`")
    claim(league.out, resume=resume, fresh=fresh)
    dask = (workers, scheduler) if executor == "dask" else None
    if linger and web is None:
        raise typer.BadParameter("--linger keeps the --web page up: give --web HOST:PORT too")
    options = LeagueOptions(keep_going, standings_every, dask, web, log_level, linger, workers)
    play_league(league, resume, None, options)


@app.command()
def serve(
    config: Annotated[Path, typer.Argument(help="The league file, e.g. tournaments.yaml.")],
    resume: Annotated[bool, typer.Option(help="Skip the matches already in the output folder's journal.")] = False,
    fresh: Fresh = False,
    keep_going: KeepGoing = False,
    standings_every: StandingsEvery = 0,
    web: Web = None,
    linger: Linger = False,
    log_level: LogLevel = "info",
) -> None:
    """Run a league that waits for its remote bots: prints each token once (or reads tokens_file).

    A remote bot gets one token per instance (<bot>.<k>: one per rotation of a duplicate deal)."""
    league = load(config)
    claim(league.out, resume=resume, fresh=fresh)
    counts = instance_counts(build_jobs(league))
    needed = {b.name: max(1, counts.get(b.name, 1)) for b in league.bots if b.remote}
    tokens: dict[str, list[str]] = {}
    if league.tokens_file is not None:
        try:
            data = yaml.safe_load(league.tokens_file.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as error:
            fail(f"{league.tokens_file}: {error}")
        except UnicodeDecodeError as error:
            fail(f"{league.tokens_file}: not UTF-8 (byte offset {error.start})")
        for name, count in needed.items():
            given = data.get(name) if isinstance(data, dict) else None
            listed = [given] if isinstance(given, str) else given if isinstance(given, list) else []
            if len(listed) < count or not all(isinstance(t, str) and len(t) >= 16 for t in listed[:count]):
                fail(
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
    if linger and web is None:
        raise typer.BadParameter("--linger keeps the --web page up: give --web HOST:PORT too")
    options = LeagueOptions(keep_going, standings_every, web=web, log_level=log_level, linger=linger)
    play_league(league, resume, tokens, options)


@app.command()
def play(
    bots: Annotated[
        list[str], typer.Argument(help="Bot command lines to play against (stdio: or acpc: as for match).")
    ],
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "you",
    hands: Annotated[int, typer.Option(min=1, help="Hands to play.")] = 20,
    blinds: Blinds = "50/100",
    stack: Stack = 20000,
    per_action_ms: Annotated[int, typer.Option(min=1, help="Time for each action, yours and the bots'.")] = 30000,
    bank_ms: BankMs = 60000,
    fault_policy: MatchFaultPolicy = FaultPolicy.FOLD,
    web: Annotated[
        str, typer.Option(metavar="HOST:PORT", help="Serve your seat here (port 0 picks one).", callback=check_address)
    ] = "127.0.0.1:8080",
    out: Annotated[Path, typer.Option(help="Output folder: histories, logs, results.json.")] = Path("out/play"),
    fresh: Fresh = False,
    seed_file: SeedFile = None,
    sandbox: Sandbox = Switch.ON,
    log_level: LogLevel = "info",
) -> None:
    """Take a seat yourself against bots, in the browser: the same rules, clocks and fault policy as a bot's."""
    if len(bots) > 9:
        raise typer.BadParameter(f"a table seats 10: you and at most 9 bots, not {len(bots)}")
    protocols, commands = _match_commands(bots, least=1)
    names = bot_names(commands)
    if name in names:
        raise typer.BadParameter(f"--name {name!r} is a bot's name too: choose another")
    clock = {"per_action_ms": per_action_ms, "bank_ms": bank_ms}
    game = _game(blinds=parse_blinds(blinds), stack=stack, time=clock)
    claim(out, fresh=fresh, resumable=False)
    seed_text = event_seed(seed_file, None)
    seats = plan_tables([name, *names], duplicate=False, tables=1)
    plan = MatchPlan("play", seats, game, hands, seed_text, fault_policy=fault_policy)
    limits = sandbox_limits(sandbox)
    entries = {
        bot: MatchBot(bot, tuple(argv), limits=limits, protocol=protocol)
        for bot, argv, protocol in zip(names, commands, protocols, strict=True)
    }
    log_to(out, log_level)
    try:
        result = asyncio.run(play_person(name, entries, plan, web, out))
    except OSError as error:  # e.g. the address is taken
        fail(*str(error).splitlines())
    typer.echo(standings_table(standings([result])))
    record = match_record(plan, result, {name: MatchBot(name), **entries}, duplicate=False)
    write_atomically(out / "results.json", json.dumps(record, indent=2) + "\n", mode=PRIVATE)
    typer.echo(f"{counted(result.hands, 'hand')}; histories, logs and results.json in {out}/")


@app.command()
def view(
    out: Annotated[Path, typer.Argument(help="A league's output folder (results.json, journal.sqlite, matches/).")],
    web: Annotated[
        str,
        typer.Option(metavar="HOST:PORT", help="Serve the page here (port 0 picks one).", callback=check_address),
    ] = "127.0.0.1:8080",
) -> None:
    """Serve a finished league's page (the live page, final) from its output folder until Ctrl-C."""
    data, results = folder_results(out)
    try:
        asyncio.run(serve_view(FinalView(out, data, results), web))
    except OSError as error:  # e.g. the address is taken
        fail(*str(error).splitlines())


@app.command()
def export(
    histories: Annotated[
        list[Path], typer.Argument(help="PHH files (.phhs), or folders holding them at any depth (out/match).")
    ],
    acpc: Annotated[bool, typer.Option("--acpc", help="Print ACPC log STATE lines.")] = False,
) -> None:
    """Convert our PHH hand histories for other tools; --acpc: one ACPC log STATE line per hand."""
    if not acpc:
        fail("choose an output format (--acpc)")
    files = []
    for given in histories:
        found = sorted(given.rglob("*.phhs")) if given.is_dir() else [given]
        if not found:
            fail(f"{given}: no hand histories (.phhs files) in this folder or below")
        files += found
    for path in files:
        try:
            lines = export_states(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError) as error:  # tomllib's errors are ValueErrors
            fail(f"{path}: {error}")
        for line in lines:
            typer.echo(line)


@app.command()
def compare(
    new: CompareNew,
    old: CompareOld,
    field: CompareField = None,
    hands: CompareHands = 20000,
    until_significant: CompareUntilSignificant = Settings.until_significant,
    test: CompareTest = Settings.test,
    alpha: CompareAlpha = Settings.alpha,
    beta: CompareBeta = Settings.beta,
    worse_than: CompareWorseThan = Settings.worse_than,
    better_than: CompareBetterThan = Settings.better_than,
    estimator: CompareEstimator = Settings.estimator,
    baseline_bot: CompareBaselineBot = None,
    deals: CompareDeals = Deals.PLAIN,
    adjust: CompareAdjust = True,
    variant: Variant = VariantName.NO_LIMIT,
    blinds: Blinds = "50/100",
    stack: Stack = 20000,
    seed_file: SeedFile = None,
    seed: SeedRefused = None,
    tables: CompareTables = 4,
    sealed: CompareSealed = True,
    workers: Workers = None,
    batch: CompareBatch = None,
    per_action_ms: PerActionMs = 1000,
    bank_ms: BankMs = 30000,
    json_output: CompareJsonOutput = False,
    out: CompareOut = Path("out/compare"),
    fresh: Fresh = False,
    keep_going: CompareKeepGoing = False,
    sandbox: Sandbox = Switch.ON,
    log_level: LogLevel = "info",
    progress: ShowProgress = False,
) -> None:
    """Is NEW better than OLD? Duplicate deals, luck correction, optional sequential test.

    Exit codes: 0 better, 10 not worse, 11 worse, 12 inconclusive, 13 a bot failed to start or crashed
    (2: usage error). See docs/compare.md.
    """
    asked = {"worse_than": worse_than, "better_than": better_than, "alpha": alpha, "beta": beta}
    settings = _settings(until_significant, estimator if adjust else Estimator.RAW, test, asked)
    clock = {"per_action_ms": per_action_ms, "bank_ms": bank_ms}
    game = _game(variant=variant, blinds=parse_blinds(blinds), stack=stack, time=clock)
    check_hands(hands, tables, field or [], baseline=settings.estimator == Estimator.BASELINE)
    reference = reference_entry(baseline_bot, settings.estimator, sandbox_limits(sandbox), deals)
    lines = [new, old, *(field or [])]
    commands = [split_command(line) for line in lines]
    if not all(commands):
        raise typer.BadParameter("a bot's command line is empty")
    claim(out, fresh=fresh, resumable=False)
    seed_text = event_seed(seed_file, seed)
    entries = compare_entries(commands, sandbox_limits(sandbox))
    log_to(out, log_level)
    dealing = Dealing(hands, tables, seed_text, batch, sealed, deals)
    versions = (entries[0], entries[1], entries[2:])
    shown: dict[str, Any] = {"keep_going": keep_going, "progress": progress, "reference": reference}
    comparison = _play_comparison_shown(versions, game, settings, dealing, out, workers=workers, **shown)
    data = comparison_record(comparison, lines, entries, seed=seed_text, sealed=sealed, reference=reference)
    write_atomically(out / "compare.json", json.dumps(data, indent=2) + "\n", mode=PRIVATE)
    _say_comparison(comparison, data, out, json_output=json_output, keep_going=keep_going)


def _play_match_shown(
    plan: MatchPlan,
    entries: dict[str, MatchBot],
    listen: str,
    out: Path,
    *,
    keep_going: bool,
    progress: bool,
    workers: int,
) -> MatchResult:
    """Play the match on ``workers`` processes with its progress line; Ctrl-C says in one line what
    is kept (its finished hands' histories) and how to start over."""
    options: dict[str, Any] = {"stop_unstarted": not keep_going, "workers": workers}
    try:
        with HandsDisplay(plan.hands * len(plan.tables), plain=progress) as display:
            return asyncio.run(play_match(plan, entries, listen, out, on_hands=display.add, **options))
    except ValueError as error:  # a fixed --listen port with worker processes
        fail(str(error))
    except KeyboardInterrupt:  # Ctrl-C: its bots were stopped, the histories of its finished hands published
        interrupted(
            f"the match stopped before its end: the histories of its finished hands are in {out / 'hands'}, "
            "no results.json; run it again with --fresh to play it whole"
        )


def _play_comparison_shown(
    versions: tuple[MatchBot, MatchBot, Sequence[MatchBot]],
    game: GameConfig,
    settings: Settings,
    dealing: Dealing,
    out: Path,
    *,
    keep_going: bool,
    progress: bool,
    workers: int | None,
    reference: tuple[str, MatchBot] | None,
) -> Comparison:
    """Play the comparison on ``workers`` processes (None: ``default_workers``) with its progress line
    (hands, pace, the running estimate); Ctrl-C says in one line that nothing is kept to go on from."""
    running = RunningEstimate()
    options: dict[str, Any] = {"out": out, "stop_unstarted": not keep_going}
    options["workers"] = workers or default_workers(dealing.max_hands)
    options["reference"] = None if reference is None else reference[1]
    try:
        with HandsDisplay(dealing.max_hands, plain=progress, status=running.text) as display:

            def on_hands(hands: int, paired: PairedTally) -> None:
                running.paired = paired
                display.add(hands)

            return asyncio.run(play_comparison(*versions, game, settings, dealing, on_hands=on_hands, **options))
    except KeyboardInterrupt:  # Ctrl-C: its bots were stopped; a verdict needs the hands it planned
        interrupted(
            f"the comparison stopped before its verdict: nothing in {out} to go on from; "
            "run it again with --fresh to start over"
        )


def _say_comparison(
    comparison: Comparison, data: dict[str, object], out: Path, *, json_output: bool, keep_going: bool
) -> NoReturn:
    """Print a finished comparison (its JSON, or the table and verdict) and exit with its code: the
    verdict's, or 13 when a bot could not start (said first, unless ``keep_going``) or failed."""
    unstarted = None if keep_going or comparison.result is None else start_failure(comparison.result, out, where="")
    if unstarted is not None:
        fail(str(unstarted), code=comparison.exit_code)
    typer.echo(json.dumps(data) if json_output else comparison_text(comparison))
    for bot, reason in (comparison.strategies_refused or {}).items():
        typer.echo(f"warning: the strategies {bot} reported were ignored from then on: {reason}", err=True)
    failed = comparison.failed  # a bot that could not play voids the figures (exit 13)
    if failed:
        typer.echo(f"error: bots failed, the comparison is not valid: {failed}; see the logs in {out}/logs", err=True)
    raise typer.Exit(comparison.exit_code)


def _settings(until_significant: bool, estimator: str, test: str, asked: dict[str, float]) -> Settings:
    """The comparison's settings from its options; one that makes no sense ends the command (exit 2)."""
    try:
        return Settings.read(until_significant=until_significant, estimator=estimator, test=test, **asked)
    except ValueError as error:
        fail(str(error))


@app.command("verify")
def verify_command(
    out: Annotated[Path, typer.Argument(help="An event's output folder (dealer match, compare or run).")],
) -> None:
    """Re-deal every recorded hand from the seed the results reveal and check it against the histories.

    Exit codes: 0 every hand is the seed's deal, 1 a hand is not (each listed), 2 nothing to check."""
    try:
        checked = verify(out)
    except ValueError as error:
        fail(str(error))
    for line in checked.mismatches:
        typer.echo(f"mismatch: {line}")
    if checked.hands == 0:
        fail(f"{out}: no hand histories to check")
    verdict = "ok" if checked.ok else f"FAILED: {len(checked.mismatches)} hands are not the seed's deals"
    typer.echo(
        f"{out}: {checked.hands} hands in {checked.files} histories re-dealt from seed sha256 "
        f"{commitment(checked.seed)}: {verdict}"
    )
    raise typer.Exit(0 if checked.ok else 1)


app.add_typer(arena_app, name="arena")
