"""The ``dealer`` command: thin typer commands that parse, call the library and print.

A deliberate error (``DealerError``) ends the command with a one-line message and exit code 2;
anything else is a bug and stays a traceback. Every command that plays writes the dealer's log
(``dealer.log``, see ``--log-level``) to its output folder; the console shows only errors.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from pathlib import Path
from typing import Annotated

import typer
import yaml
from tabulate import tabulate

from dealer.acpc_game import export_states, unsupported
from dealer.arena.cli import app as arena_app
from dealer.choices import Estimator, FaultPolicy, Switch, VariantName
from dealer.cli_league import LeagueOptions, load, play_league
from dealer.cli_options import (
    BankMs,
    Blinds,
    Fresh,
    KeepGoing,
    LogLevel,
    PerActionMs,
    Sandbox,
    SeedFile,
    SeedRefused,
    Stack,
    StandingsEvery,
    Variant,
    Web,
    bot_names,
    check_address,
    claim,
    event_seed,
    fail,
    finite,
    given_names,
    log_to,
    parse_blinds,
    rate,
    sandbox_limits,
    split_command,
)
from dealer.compare import BATCH, LABELS, Settings, deal_sets_for, number
from dealer.config import game_config, split_protocol
from dealer.config_read import MAX_CHIPS, MAX_DEAL_SETS, MAX_HANDS, MAX_MS
from dealer.errors import ConfigError, DealerError
from dealer.league import (
    build_jobs,
    instance_counts,
    sealing,
    start_failure,
)
from dealer.match import MatchBot, MatchPlan, instance_label
from dealer.processes import isolation
from dealer.runner import play_comparison, play_match
from dealer.scheduler import plan_tables
from dealer.seeds import commitment, guessable, verify
from dealer.server import tune_gc
from dealer.standings import standings, standings_table
from dealer.text import printable_lines

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
        str, typer.Option(metavar="HOST:PORT", help="Address the dealer listens on.", callback=check_address)
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
    protocols, commands = zip(
        *[(protocol, split_command(text)) for protocol, text in map(split_protocol, bots)], strict=True
    )
    if not all(commands):
        raise typer.BadParameter("a bot's command line is empty")
    if not 2 <= len(commands) <= 10:
        raise typer.BadParameter(f"a match needs 2 to 10 bots, got {len(commands)}")
    names = given_names(name, len(commands)) if name else bot_names(list(commands))
    rotations = len(names) if duplicate else 1
    if hands < tables * rotations:
        raise typer.BadParameter(
            f"--hands {hands} is fewer than one hand at each of the {tables * rotations} tables "
            f"(--tables {tables} x {rotations} seat rotations)"
        )
    try:
        game = game_config(
            variant=variant,
            blinds=parse_blinds(blinds),
            ante=ante,
            stack=stack,
            time={"per_action_ms": per_action_ms, "bank_ms": bank_ms, "grace_ms": grace_ms, "startup_ms": startup_ms},
        )
    except ConfigError as error:
        fail(str(error))
    reason = unsupported(game, seats=len(names)) if "acpc" in protocols else None
    if reason:
        fail(f"an ACPC bot cannot play this match: {reason}")
    claim(out, fresh=fresh, resumable=False)
    seed_text = event_seed(seed_file, seed)
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
    limits = sandbox_limits(sandbox)
    entries = {
        name: MatchBot(name, tuple(argv), limits=limits, protocol=protocol)
        for name, argv, protocol in zip(names, commands, protocols, strict=True)
    }
    log_to(out, log_level)
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
        fail(str(failure))
    typer.echo(f"{result.hands} hands; histories, logs and results.json in {out}/")


def _seed_fields(seed: str) -> dict[str, object]:
    """What the results say about the seed once the event is over: the seed, its commitment, a warning."""
    return {"seed": seed, "seed_sha256": commitment(seed), "seed_warning": guessable(seed)}


def _write_private(path: Path, text: str) -> None:
    """Write a file only the dealer's user can read (0600): results that reveal the seed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as file:
        file.write(text)


@app.command()
def validate(config: Annotated[Path, typer.Argument(help="The league file, e.g. tournaments.yaml.")]) -> None:
    """Check a league file and report every error with its line and key; nothing is started."""
    league = load(config)
    jobs = build_jobs(league)
    hands = sum(len(j.plan.tables) * j.plan.hands for j in jobs)
    typer.echo(
        f"{config}: ok: {len(league.bots)} bots, {len(league.events)} events, {len(jobs)} matches, up to {hands} hands"
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
    league = load(config)
    remote = [b.name for b in league.bots if b.remote]
    if remote:
        fail(f"{config}: bots {', '.join(remote)} are remote: use `dealer serve`")
    claim(league.out, resume=resume, fresh=fresh)
    dask = (workers, scheduler) if executor == "dask" else None
    play_league(league, resume, None, LeagueOptions(keep_going, standings_every, dask, web, log_level))


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
    play_league(league, resume, tokens, LeagueOptions(keep_going, standings_every, web=web, log_level=log_level))


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
        float, typer.Option(callback=rate, help="False verdict rate with no true difference (better or worse).")
    ] = Settings.alpha,
    beta: Annotated[
        float, typer.Option(callback=rate, help="Miss rate at the bounds (--worse-than, --better-than).")
    ] = Settings.beta,
    worse_than: Annotated[
        float, typer.Option(callback=finite, help="Bound in bb/100 of the difference: 'worse by more than'.")
    ] = Settings.worse_than,
    better_than: Annotated[
        float, typer.Option(callback=finite, help="Bound in bb/100: 'better by more than'.")
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
            blinds=parse_blinds(blinds),
            stack=stack,
            time={"per_action_ms": per_action_ms, "bank_ms": bank_ms},
        )
    except (ValueError, ConfigError) as error:
        fail(str(error))
    try:
        deal_sets_for(hands, tables, field or [])
    except ValueError as error:
        fail(f"--hands: {error}")
    field_commands = [split_command(f) for f in field or []]
    new_command, old_command = split_command(new), split_command(old)
    if not new_command or not old_command or not all(field_commands):
        raise typer.BadParameter("a bot's command line is empty")
    claim(out, fresh=fresh, resumable=False)
    seed_text = event_seed(seed_file, seed)
    field_names = [n if n not in ("new", "old") else f"{n}-field" for n in bot_names(field_commands)]
    limits = sandbox_limits(sandbox)
    new_entry = MatchBot("new", tuple(new_command), limits=limits)
    old_entry = MatchBot("old", tuple(old_command), limits=limits)
    field_entries = [MatchBot(n, tuple(c), limits=limits) for n, c in zip(field_names, field_commands, strict=True)]
    log_to(out, log_level)
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
        fail(str(unstarted), code=comparison.exit_code)
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
