"""What the ``dealer`` commands share: their option types and checks, the one way a command
ends on an error (``fail``), the dealer's log, the output folder's claim and the event's seed."""

from __future__ import annotations

import logging
import math
import os
import shlex
from pathlib import Path
from typing import Annotated, Literal, NoReturn

import typer

from dealer.config.choices import Deals, FaultPolicy, Switch, VariantName
from dealer.config.league_file import Limits, address_problem
from dealer.config.read import MAX_CHIPS, MAX_DEAL_SETS, MAX_HANDS, MAX_MS, NAME_PATTERN
from dealer.errors import RunError
from dealer.league.run import claim_output
from dealer.league.seeds import commitment, draw_seed, guessable
from dealer.runtime import log_file
from dealer.text import printable_lines

LogLevelName = Literal["debug", "info", "warning", "error"]


LogLevel = Annotated[
    LogLevelName,
    typer.Option(
        help="What dealer.log in the output folder records: debug, info (launches, connections, faults, restarts, "
        "stops), warning (faults only) or error."
    ),
]


def parse_blinds(text: str) -> tuple[int, int]:
    """Small and big blind from ``50/100`` (or ``50,100``); anything else is a usage error."""
    try:
        small, big = (int(x) for x in text.replace(",", "/").split("/"))
    except ValueError:
        raise typer.BadParameter(f"blinds must look like 50/100, not {text!r}") from None
    return small, big


def _checked_blinds(text: str) -> str:
    """Typer callback: ``--blinds`` has the shape SMALL/BIG as it is parsed (the game checks the values)."""
    parse_blinds(text)
    return text


def check_address(text: str | None) -> str | None:
    """Typer callback: a HOST:PORT option (``--listen``, ``--web``) checked as it is parsed."""
    problem = None if text is None else address_problem(text)
    if problem is not None:
        raise typer.BadParameter(problem)
    return text


def finite(value: float) -> float:
    """Typer callback: a bound in bb/100 is a finite number (click reads "nan" and "inf" too)."""
    if not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


def rate(value: float) -> float:
    """Typer callback: an error rate (``--alpha``, ``--beta``) strictly between 0 and 0.5."""
    if not 0 < value < 0.5:
        raise typer.BadParameter(f"must be between 0 and 0.5 (exclusive), not {value}")
    return value


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


def fail(*lines: str, code: int = 2) -> NoReturn:
    """End the command: each line on stderr after ``error:``, then exit with ``code`` (2: a usage
    or configuration error, a refused output folder; a comparison's own codes otherwise)."""
    for line in lines:
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(code)


def interrupted(line: str) -> NoReturn:
    """End a command stopped by Ctrl-C: one line on stderr (what is kept, how to go on), exit 130."""
    typer.echo(f"interrupted: {line}", err=True)
    raise typer.Exit(130)


class _PrintableFormatter(logging.Formatter):
    """The console's log lines with a bot's text in them (an error's message) escaped."""

    def format(self, record: logging.LogRecord) -> str:
        return "\n".join(printable_lines(super().format(record)))


def log_to(folder: Path, level: LogLevelName) -> None:
    """Send the dealer's log to ``folder/dealer.log`` (mode 0600, appended) at ``level``, and its
    errors also to stderr. The log names bots, tables and requests, never a token or a seed."""
    folder.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("dealer")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    log_file(folder / "dealer.log", level)
    to_console = logging.StreamHandler()
    to_console.setLevel(logging.ERROR)
    to_console.setFormatter(_PrintableFormatter("dealer: %(message)s"))
    logger.addHandler(to_console)
    logger.propagate = False
    logging.raiseExceptions = False  # a log line lost to a full disk is dropped, not a traceback on stderr


def bot_names(commands: list[list[str]]) -> list[str]:
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


def sandbox_limits(switch: Switch) -> Limits:
    """The bots' limits for ``--sandbox on|off``; off is said to be unsafe on stderr."""
    if switch == Switch.OFF:
        typer.echo(
            "warning: --sandbox off: the bots run without their sandbox (UNSAFE: they can read the "
            "dealer's files and each other's processes); recorded in the results",
            err=True,
        )
    return Limits(sandbox=switch)


def split_command(text: str) -> list[str]:
    """A bot's command line as words (shlex); an unbalanced quote is a usage error, not a traceback."""
    try:
        return shlex.split(text)
    except ValueError as error:
        raise typer.BadParameter(f"cannot split the command line {text!r}: {error}") from None


def claim(out: Path, *, resume: bool = False, fresh: bool = False, resumable: bool = True) -> None:
    """Refuse an output folder holding an earlier event's results (one line, exit code 2) unless
    ``resume`` or ``fresh`` (then say where the old results went)."""
    if resume and fresh:
        raise typer.BadParameter("--resume goes on from the earlier results, --fresh moves them aside: choose one")
    try:
        moved = claim_output(out, resume=resume, fresh=fresh, resumable=resumable)
    except RunError as error:
        fail(str(error))
    if moved is not None:
        typer.echo(f"the earlier results in {out} were moved to {moved}", err=True)


def given_names(names: list[str], bots: int) -> list[str]:
    """The bots' names from ``--name`` (one per bot, distinct, like a league file's names)."""
    if len(names) != bots:
        raise typer.BadParameter(f"give one --name per bot: {len(names)} given for {bots} bots")
    for text in names:
        if not NAME_PATTERN.fullmatch(text):
            raise typer.BadParameter(f"--name {text!r} must match ^[A-Za-z0-9_.-]{{1,40}}$")
    if len(set(names)) != len(names):
        raise typer.BadParameter(f"the --name values must be distinct, got {names}")
    return names


def event_seed(seed_file: Path | None, refused: str | None) -> str:
    """The event's seed: from ``--seed-file``, else ``DEALER_SEED``, else freshly drawn; its
    commitment (and a warning if it is guessable) on stderr. Never from the command line, which
    every process on the machine can read (/proc/PID/cmdline)."""
    if refused is not None:
        fail(
            "--seed: a seed on the command line can be read by every process (/proc/PID/cmdline); "
            "put it in a file (--seed-file FILE) or in DEALER_SEED"
        )
    if seed_file is not None:
        try:
            seed = seed_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            fail(f"--seed-file {seed_file}: {error.strerror or error}")
        except UnicodeDecodeError as error:
            fail(f"--seed-file {seed_file}: not UTF-8 (byte offset {error.start})")
        if not seed:
            fail(f"--seed-file {seed_file}: the file is empty")
    else:
        seed = os.environ.get("DEALER_SEED") or draw_seed()
    show_seed(commitment(seed), guessable(seed))
    return seed


def show_seed(commit: str, warning: str | None) -> None:
    """Say, as the event starts, what the seed is committed to (and whether it can be guessed)."""
    typer.echo(f"seed commitment (SHA-256): {commit}", err=True)
    if warning is not None:
        typer.echo(f"warning: {warning}", err=True)


KeepGoing = Annotated[
    bool, typer.Option(help="Play on when a bot cannot start in its first match (default: stop with an error).")
]


Linger = Annotated[
    bool,
    typer.Option(help="With --web: once the league is over, keep serving its final page until Ctrl-C."),
]
Web = Annotated[
    str | None,
    typer.Option(
        metavar="HOST:PORT",
        help="Serve a live page of the league here (e.g. 127.0.0.1:8080; port 0 picks one).",
        callback=check_address,
    ),
]


StandingsEvery = Annotated[
    int,
    typer.Option(min=0, help="Also print the overall standings every N matches (they are printed as each event ends)."),
]


# The options of `dealer match` and `dealer compare` (their defaults are in the commands' signatures).
MatchBots = Annotated[
    list[str],
    typer.Argument(
        help='Bot command lines, one per seat (quote each): "CMD" (gRPC), "stdio:CMD" (JSON lines, '
        'docs/bots-stdio.md) or "acpc:CMD {game} {host} {port}" (the ACPC protocol).'
    ),
]
MatchAnte = Annotated[int, typer.Option(min=0, max=MAX_CHIPS, help="Ante per player.")]
MatchHands = Annotated[
    int,
    typer.Option(min=1, max=MAX_HANDS, help="Total hands (rounded down to whole duplicate rotations)."),
]
MatchDuplicate = Annotated[bool, typer.Option(help="Replay every deal with the seats rotated.")]
MatchTables = Annotated[
    int, typer.Option(min=1, max=MAX_DEAL_SETS, help="Deal sets played at once (each on its rotations' tables).")
]
MatchSealed = Annotated[bool, typer.Option(help="Play each rotation of a deal in its own process of each bot.")]
Workers = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Worker processes the deal sets are spread over (default: the cores, one per 5,000 hands at "
        "most); the results and histories are the same for any number.",
    ),
]
MatchGraceMs = Annotated[int, typer.Option(min=0, max=MAX_MS, help="Transport margin not charged to bots (ms).")]
MatchStartupMs = Annotated[int, typer.Option(min=0, max=MAX_MS, help="Time for a bot to start and connect (ms).")]
MatchFaultPolicy = Annotated[
    FaultPolicy, typer.Option(help="A failed bot folds its hands, forfeits the match, or restarts.")
]
MatchListen = Annotated[
    str,
    typer.Option(
        metavar="HOST:PORT",
        help="Address the dealer listens on (a fixed port: one worker process unless --workers).",
        callback=check_address,
    ),
]
MatchName = Annotated[
    list[str] | None,
    typer.Option("--name", help="A bot's name, once per bot in the order of BOTS (default: from its command line)."),
]
MatchOut = Annotated[Path, typer.Option(help="Output folder: hand histories, bot logs, results.json.")]
ShowProgress = Annotated[
    bool,
    typer.Option(
        "--progress",
        help="A plain progress line on stderr every 5 s even when it is no terminal (on a terminal, one "
        "line is always redrawn in place).",
    ),
]
MatchKeepGoing = Annotated[
    bool, typer.Option(help="Play on when a bot cannot start (default: stop the match with an error).")
]
CompareNew = Annotated[str, typer.Argument(help="Command line of the new version (quote it).")]
CompareOld = Annotated[str, typer.Argument(help="Command line of the old version (quote it).")]
CompareField = Annotated[
    list[str] | None,
    typer.Option(
        help="Command line of an opponent; repeat for several. Both versions then play the field on the same "
        "deals instead of each other."
    ),
]
CompareHands = Annotated[int, typer.Option(min=1, max=MAX_HANDS, help="Maximum hands, every table counted.")]
CompareUntilSignificant = Annotated[bool, typer.Option(help="Stop as soon as the sequential test (--test) decides.")]
CompareTest = Annotated[
    str,
    typer.Option(
        help="Sequential test: cs (a confidence sequence: stops early on a large difference) or sprt (two "
        "SPRTs with the bounds as hypotheses)."
    ),
]
CompareAlpha = Annotated[
    float, typer.Option(callback=rate, help="False verdict rate with no true difference (better or worse).")
]
CompareBeta = Annotated[
    float, typer.Option(callback=rate, help="Miss rate at the bounds (--worse-than, --better-than).")
]
CompareWorseThan = Annotated[
    float, typer.Option(callback=finite, help="Bound in bb/100 of the difference: 'worse by more than'.")
]
CompareBetterThan = Annotated[float, typer.Option(callback=finite, help="Bound in bb/100: 'better by more than'.")]
CompareEstimator = Annotated[
    str,
    typer.Option(
        help="Figures the verdict is taken from: full (aivat, and the versions' own draws corrected where they "
        "report their strategy), aivat (card luck corrected at every deal), all-in (all-in hands scored by "
        "equity), raw, learned (full minus fitted luck features) or baseline (full minus the fitted result of "
        "a reference bot on the same deals, --baseline-bot: it plays 2 more hands per hand of the versions)."
    ),
]
CompareBaselineBot = Annotated[
    str | None,
    typer.Option(
        help="Command line of the baseline's reference bot (--estimator baseline; default: the sample "
        "strength bot). It plays each deal in the new version's seat against the same opponent, and again on "
        "a twin deal."
    ),
]
CompareDeals = Annotated[
    Deals,
    typer.Option(
        help="How the cards are drawn: plain (the shuffle) or tilted (the hole cards drawn more often where strong "
        "hands meet, the flop where one hand hits it and the other misses, the turn and river where both hands are "
        "made, each deal weighted back by p / q: unbiased, about 0.33-0.46 of full's variance on the sample bots; "
        "heads-up, not with --estimator baseline; see docs/compare.md)."
    ),
]
CompareAdjust = Annotated[bool, typer.Option(help="--no-adjust: the same as --estimator raw.")]
CompareTables = Annotated[
    int, typer.Option(min=1, max=MAX_DEAL_SETS, help="Deal sets played at once (each a duplicate group of tables).")
]
CompareSealed = Annotated[bool, typer.Option(help="Play each rotation of a deal in its own process of each bot.")]
CompareBatch = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=MAX_HANDS,
        help="Paired deals between two looks of the sequential test (default 20, whatever the estimator).",
    ),
]
CompareJsonOutput = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")]
CompareOut = Annotated[Path, typer.Option(help="Output folder: hand histories, bot logs, compare.json.")]
CompareKeepGoing = Annotated[
    bool, typer.Option(help="Play on when a bot cannot start (default: stop with an error, exit code 13).")
]
