"""League configuration: ``tournaments.yaml`` into validated, frozen dataclasses.

``load_league(path)`` reads a file and ``parse_league(text, filename)`` parses text. Every problem
found is collected and raised at once as one ``LeagueConfigError`` whose ``errors`` are one-line
messages ``file:line: key.path: problem``. Line numbers come from the composed YAML node tree.

Reference format (a key whose value is ``null`` or empty counts as omitted)::

    name: Thursday league        # required, str
    seed: random                 # optional int or str; omitted or "random" -> a fresh 256-bit seed
                                 #   (None here), committed to at the start and revealed at the end;
                                 #   a seed under 16 characters or all digits can be guessed by
                                 #   bots (a warning): for tests and regression runs
    jobs: 2                      # optional int >= 1; default os.cpu_count()
    out: out/thursday            # optional output folder (relative to the cwd);
                                 #   default "out/<name slugified>"
    listen: 127.0.0.1:0          # optional host:port of the dealer's gRPC server (port 0 = any free)
    tls: {cert: server.crt, key: server.key}  # optional, both keys required; relative to the YAML file
    tokens_file: tokens.yaml     # optional; remote bots' tokens (relative to the YAML file): a token
                                 #   per bot, or a list of one per instance (duplicate rotations)
    fault_policy: fold           # fold (default: a failed bot folds/checks for the rest of the match)
                                 #   | forfeit | restart
    sealed: true                 # default: a duplicate group's rotations are played by different
                                 #   processes of each bot (one instance per rotation); false: one
                                 #   process per bot plays them all (trusted bots only: it can learn
                                 #   the other seats' cards of a deal)
    limits:                      # optional defaults for every launched bot; a bot may override any key
      memory_mb: 1024            # int >= 16: a memory cgroup where the dealer can make one, else RLIMIT_DATA
      cpu_seconds: 3600          # int >= 1
      processes: 256             # int >= 1: processes and threads at once (a pids cgroup per instance;
                                 #   a JVM on a many-core machine starts dozens of threads)
      open_files: 256            # int >= 16
      file_size_mb: 64           # int >= 1
      log_kb: 1024               # int >= 1, cap of each bot's captured stdout/stderr log
      tmp_mb: 64                 # int >= 1, size of the bot's private /tmp and of its /dev/shm
      home_mb: 256               # int >= 1, cap of what a sandboxed bot instance writes in its HOME
                                 #   (a tmpfs, counted in memory_mb too; copied to its scratch folder
                                 #   when the instance ends)
      network: none              # none (own network namespace, the dealer's Unix socket) | host
      user: null                 # optional unprivileged user to run bots as (dealer running as root)
      sandbox: on                # on | off: off runs bots without the bubblewrap sandbox (UNSAFE:
                                 #   no namespaces, so `network` does not apply); recorded in results
    bots:                        # required, >= 2, names unique, matching ^[A-Za-z0-9_.-]{1,40}$
      - {name: strength, command: python sample_bots/python/strength_bot.py}
      - {name: node, command: [node, bot.js], version: "1.0", limits: {memory_mb: 2048}}
      - {name: alice, remote: true}
      - {name: cbot, command: sample_bots/c/bot, protocol: stdio}
                                 # protocol: grpc (default) | stdio (JSON lines on stdin/stdout,
                                 #   docs/bots-stdio.md) | acpc (the ACPC dealer protocol 2.0.0:
                                 #   the command's words {game} {host} {port} are replaced; only
                                 #   events ACPC can express: no pot limit, mixed, ante, rake or
                                 #   freezeout); remote bots speak gRPC
    game:                        # defaults for every event; an event's own `game:` overrides any key
      variant: no-limit          # no-limit | pot-limit | fixed-limit | mixed
      blinds: [50, 100]          # [small, big], ints, 0 < small <= big
      ante: 0                    # int >= 0
      stack: 20000               # int > big blind
      rake: {percent: 0, cap: 0} # percent 0..100 in whole basis points (2.5 or 2.25, not 2.125),
                                 #   of the pot of a hand that sees a flop, rounded down to a chip;
                                 #   cap int >= 0 chips per hand (0: none); each pot pays its share
                                 #   in proportion to its size (README "Rules")
      mixed: {block_hands: 6, fixed_limit_blinds: [50, 100], no_limit_blinds: [50, 100]}
                                 # only for variant mixed; defaults: block_hands = table size (None),
                                 #   both blinds = the game's blinds
      time: {per_action_ms: 1000, bank_ms: 30000, grace_ms: 50, startup_ms: 10000}
                                 # ints >= 0 (per_action_ms >= 1); these are the defaults
    events:                      # required, >= 1, names unique (same pattern as bot names)
      - {name: heads-up, format: round-robin, table_size: 2, hands: 2000, duplicate: true}
      - {name: six-max, format: round-robin, table_size: 6, hands: 1200, meetings: 1}
      - {name: gauntlet, format: gauntlet, challenger: strength, table_size: 2, hands: 1000}
      - {name: final, format: freezeout, table_size: 6, blind_levels: [[50,100],[100,200,25]],
         hands_per_level: 50, max_hands: 2000, points: [5, 3, 1]}
      - {name: v2-vs-v1, format: compare, new: strength, old: random, field: [node], hands: 20000,
         until_significant: true, test: cs, alpha: 0.05, beta: 0.05, worse_than: -5.0, better_than: 5.0}

Every number also has an upper bound, checked with the rest (so ``validate`` and ``run`` agree):
hands, ``hands_per_level``, ``max_hands`` and ``block_hands`` at most 10**9 (the wire's counts are
uint32); chips (stack, blinds, ante, rake cap) at most 10**12; clocks at most 86,400,000 ms (a day);
``meetings`` at most 100; ``jobs`` at most 1024; every ``limits`` number at most 1,048,576;
freezeout points within +/- 10**6. The file must be UTF-8.

Event keys:

* all formats: ``name``, ``format`` (round-robin | gauntlet | freezeout | compare), ``game``.
* round-robin, gauntlet, freezeout: ``bots`` (bot names; default all bots), ``table_size``
  (required, 2..10, at most the number of the event's bots).
* round-robin, gauntlet: ``hands`` (required, >= 1: hands per table, so a duplicate match of
  n seats plays n x ``hands`` hands, the same deals in each seat rotation), ``duplicate`` (default true),
  ``meetings`` (int >= 1, default 1: how many times each table line-up is played).
* gauntlet: ``challenger`` (required bot name; added to the event's bots if not listed).
* freezeout: ``blind_levels`` (required, list of [sb, bb] or [sb, bb, ante]), ``hands_per_level``
  (required, >= 1), ``max_hands`` (default 5000), ``points`` (per finishing place, non-increasing;
  default [n-1, ..., 1, 0] for the event's n bots; places past the list score 0).
  ``duplicate`` and ``hands`` do not apply.
* compare (always heads-up and duplicate): ``new``, ``old`` (required, different bot names),
  ``field`` (bot names: both versions play the field on the same deals instead of each other),
  ``hands`` (required, maximum hands in all), ``until_significant`` (default false), ``test``
  (the sequential test: ``cs``, a confidence sequence, the default, or ``sprt``, two SPRTs; see
  docs/compare.md), ``alpha``/``beta`` (0 < x < 0.5, default 0.05), ``worse_than`` <
  ``better_than`` (bb/100, default -5.0 / 5.0).

A bot needs exactly one of ``command`` (a string, shlex-split, or a list of strings) or
``remote: true``. The program (first word) must exist: a word containing "/" is resolved against
the YAML file's folder, otherwise looked up on PATH, and be executable; a later word that names a
script (ends in .py, .js, .sh, .jar, ... and follows no -c/-m/-e) must be a file, relative to the
YAML file's folder. Commands are kept as written; launch bots
from ``LeagueConfig.folder`` so that relative paths in their arguments resolve the same way.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.nodes import Node, SequenceNode

from dealer.config.choices import BotProtocol, FaultPolicy, Network, Switch
from dealer.config.confined import Command
from dealer.config.events import AnyEvent, Compare, CompareSettings, Freezeout, Gauntlet, RoundRobin
from dealer.config.game import GAME_KEYS, GameConfig, MixedSpec, TimeControl, game_config, parse_game
from dealer.config.read import (
    MAX_JOBS,
    MAX_LIMIT,
    Ctx,
    Layer,
    LeagueConfigError,
    choice,
    integer,
    key_path,
    mapping,
    parse_checked,
    read_bool,
    read_key,
    read_list,
    read_name,
    read_on_off,
    read_scalar,
    string,
    sublayers,
)
from dealer.config.read_events import _parse_event

__all__ = [
    "LIMIT_KEYS",
    "AnyEvent",
    "Compare",
    "CompareSettings",
    "Freezeout",
    "GameConfig",
    "Gauntlet",
    "LeagueBot",
    "LeagueConfig",
    "LeagueConfigError",
    "Limits",
    "MixedSpec",
    "RoundRobin",
    "TimeControl",
    "address_problem",
    "game_config",
    "listen_address",
    "load_league",
    "parse_league",
    "parse_limits",
    "program_problem",
    "read_command",
    "split_protocol",
]


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one launched bot process."""

    memory_mb: int = 1024
    cpu_seconds: int = 3600
    processes: int = 256
    open_files: int = 256
    file_size_mb: int = 64
    log_kb: int = 1024
    tmp_mb: int = 64
    home_mb: int = 256
    network: Network = Network.NONE
    user: str | None = None
    sandbox: Switch = Switch.ON


@dataclass(frozen=True, slots=True)
class LeagueBot:
    """A bot as the league file declares it: a command to launch, or a remote bot that connects with a
    token (the arena's finals: a team's confined command, ``dealer.config.confined``)."""

    name: str
    command: Command | None
    remote: bool = False
    version: str = ""
    limits: Limits = field(default_factory=Limits)
    line: int = 0
    protocol: BotProtocol = BotProtocol.GRPC


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    """A whole league: bots, default game, events and how to run them."""

    name: str
    seed: int | str | None
    jobs: int
    out: Path
    listen: str
    tls_cert: Path | None
    tls_key: Path | None
    tokens_file: Path | None
    fault_policy: FaultPolicy
    sealed: bool
    bots: tuple[LeagueBot, ...]
    game: GameConfig
    events: tuple[AnyEvent, ...]
    path: Path | None

    @property
    def folder(self) -> Path:
        """The folder relative paths in the file refer to (the YAML file's, else the cwd)."""
        return self.path.parent if self.path is not None else Path.cwd()

    @property
    def seed_text(self) -> str | None:
        """The seed as the text its deals, schedule and commitment are made from (an integer seed
        as its digits); None until one is drawn. The only place a configured seed becomes text."""
        return None if self.seed is None else str(self.seed)

    def bot(self, name: str) -> LeagueBot:
        """Return the bot called ``name`` (KeyError if there is none)."""
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)


# ----------------------------------------------------------------------------------------------
# Error collection and typed reads of YAML nodes.


# ----------------------------------------------------------------------------------------------
# The sections of the file.

LIMIT_KEYS = (
    "memory_mb",
    "cpu_seconds",
    "processes",
    "open_files",
    "file_size_mb",
    "log_kb",
    "tmp_mb",
    "home_mb",
    "network",
    "user",
    "sandbox",
)


def parse_limits(ctx: Ctx, layers: Sequence[Layer]) -> Limits:
    """Build Limits from layered ``limits:`` mappings (league defaults, then the bot's)."""
    d = Limits()
    return Limits(
        memory_mb=read_key(ctx, layers, "memory_mb", integer(16, most=MAX_LIMIT), d.memory_mb),
        cpu_seconds=read_key(ctx, layers, "cpu_seconds", integer(1, most=MAX_LIMIT), d.cpu_seconds),
        processes=read_key(ctx, layers, "processes", integer(1, most=MAX_LIMIT), d.processes),
        open_files=read_key(ctx, layers, "open_files", integer(16, most=MAX_LIMIT), d.open_files),
        file_size_mb=read_key(ctx, layers, "file_size_mb", integer(1, most=MAX_LIMIT), d.file_size_mb),
        log_kb=read_key(ctx, layers, "log_kb", integer(1, most=MAX_LIMIT), d.log_kb),
        tmp_mb=read_key(ctx, layers, "tmp_mb", integer(1, most=MAX_LIMIT), d.tmp_mb),
        home_mb=read_key(ctx, layers, "home_mb", integer(1, most=MAX_LIMIT), d.home_mb),
        network=read_key(ctx, layers, "network", choice(Network), d.network),
        user=read_key(ctx, layers, "user", string, d.user),
        sandbox=read_key(ctx, layers, "sandbox", read_on_off, d.sandbox),
    )


def program_problem(program: str, folder: Path) -> str | None:
    """Say why a command's program cannot be run ("not found", "is not executable"), or None if it
    can: a bare name is looked up on PATH, a path is taken from ``folder``. The one check of it, for
    validation, the launch and a Dask worker alike."""
    if "/" not in program:
        return None if shutil.which(program) else "not found"
    path = Path(program) if Path(program).is_absolute() else folder / program
    if not path.is_file():
        return "not found"
    return None if os.access(path, os.X_OK) else "is not executable"


SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh", ".jar", ".php", ".lua", ".r")
_CODE_OPTIONS = ("-c", "-m", "-e", "--eval", "-p", "--print")  # the next word is code or a module, not a file


def _missing_scripts(ctx: Ctx, command: Sequence[str]) -> list[str]:
    """The script files a command names (words ending in a script suffix) that do not exist."""
    missing = []
    for k, word in enumerate(command[1:], 1):
        if word.startswith("-") or command[k - 1] in _CODE_OPTIONS or not word.lower().endswith(SCRIPT_SUFFIXES):
            continue
        path = Path(word) if Path(word).is_absolute() else ctx.folder / word
        if not path.is_file():
            missing.append(word)
    return missing


def read_command(ctx: Ctx, node: Node, path: str) -> tuple[str, ...] | None:
    """Read a command: a shlex-split string or a non-empty list of strings."""
    if isinstance(node, SequenceNode):
        read = [string(ctx, item, key_path(path, i)) for i, item in enumerate(node.value)]
        words = [w for w in read if w is not None]
        if len(words) < len(read):
            return None
    else:
        text = string(ctx, node, path)
        if text is None:
            return None
        try:
            words = shlex.split(text)
        except ValueError as exc:
            ctx.error(node, path, f"cannot split command: {exc}")
            return None
    if not words:
        ctx.error(node, path, "command is empty")
        return None
    return tuple(words)


_BOT_KEYS = ("name", "command", "remote", "version", "limits", "protocol")


def _parse_bot(ctx: Ctx, node: Node, path: str, limit_layers: Sequence[Layer]) -> LeagueBot | None:
    """Build one LeagueBot; None if it has no usable name."""
    fields = mapping(ctx, node, path, _BOT_KEYS)
    if fields is None:
        return None
    layer = [(fields, path)]
    name = read_key(ctx, layer, "name", read_name, None)
    if "name" not in fields:
        ctx.error(node, key_path(path, "name"), "missing (every bot needs a name)")
    label = f"bot {name!r}" if name else "bot"
    command = read_key(ctx, layer, "command", read_command, None)
    remote = read_key(ctx, layer, "remote", read_bool, False)
    if remote and "command" in fields:
        ctx.error(fields["remote"], key_path(path, "remote"), f"{label} has both a command and remote: true; give one")
    elif not remote and "command" not in fields:
        ctx.error(node, key_path(path, "command"), f"{label}: missing command (or remote: true)")
    if command is not None:
        problem = program_problem(command[0], ctx.folder)
        if problem:
            ctx.error(fields["command"], key_path(path, "command"), f"{label}: program {command[0]!r} {problem}")
        for script in _missing_scripts(ctx, command):
            ctx.error(fields["command"], key_path(path, "command"), f"{label}: script {script!r} not found")
    protocol = read_key(ctx, layer, "protocol", choice(BotProtocol), BotProtocol.GRPC)
    if remote and protocol != BotProtocol.GRPC:
        ctx.error(fields["protocol"], key_path(path, "protocol"), f"{label}: remote bots speak grpc, not {protocol}")
    limits = sublayers(ctx, layer, "limits", LIMIT_KEYS)
    return LeagueBot(
        name=name or "",
        command=None if remote else command,
        remote=remote,
        version=read_key(ctx, layer, "version", string, ""),
        limits=parse_limits(ctx, [*limit_layers, *limits]),
        line=node.start_mark.line + 1,
        protocol=protocol,
    )


def split_protocol(text: str) -> tuple[BotProtocol, str]:
    """A command line of ``dealer match``: ``stdio:CMD``, ``acpc:CMD`` or ``grpc:CMD`` as (protocol,
    CMD); a command without one of these prefixes is a gRPC bot's."""
    prefix, colon, rest = text.partition(":")
    if colon and prefix in list(BotProtocol):
        return BotProtocol(prefix), rest.strip()
    return BotProtocol.GRPC, text


def address_problem(text: str) -> str | None:
    """Why ``text`` is not a ``host:port`` with a port in 0..65535 (0 = any free port), or None."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        return f"expected host:port with a port 0..65535, got {text!r}"
    return None


def listen_address(ctx: Ctx, node: Node, path: str) -> str | None:
    """Read host:port with a port in 0..65535 (0 = any free port)."""
    text = string(ctx, node, path)
    if text is None:
        return None
    problem = address_problem(text)
    if problem is not None:
        ctx.error(node, path, problem)
        return None
    return text


def _path(folder: Path | None) -> Callable[[Ctx, Node, str], Path | None]:
    """A reader of a path, made relative to ``folder`` when one is given."""

    def read(ctx: Ctx, node: Node, path: str) -> Path | None:
        text = string(ctx, node, path)
        return None if text is None else folder / text if folder is not None else Path(text)

    return read


def _slug(name: str) -> str:
    """Return a folder-safe form of a league name: lowercase words joined by '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "league"


_TOP_KEYS = (
    "name",
    "seed",
    "jobs",
    "out",
    "listen",
    "tls",
    "tokens_file",
    "fault_policy",
    "sealed",
    "limits",
    "bots",
    "game",
    "events",
)


def _parse_bots(ctx: Ctx, top: Sequence[Layer], limit_layers: Sequence[Layer]) -> dict[str, LeagueBot]:
    """The league's bots by name (a name given twice is an error at its second place)."""
    bots: dict[str, LeagueBot] = {}
    no_nodes: list[Node] = []
    for i, node in enumerate(read_key(ctx, top, "bots", lambda c, n, p: read_list(c, n, p, min_len=2), no_nodes)):
        bot = _parse_bot(ctx, node, key_path("bots", i), limit_layers)
        if bot is not None and bot.name in bots:
            ctx.error(
                node,
                key_path(key_path("bots", i), "name"),
                f"duplicate bot name {bot.name!r} (first at line {bots[bot.name].line})",
            )
        elif bot is not None and bot.name:
            bots[bot.name] = bot
    return bots


def _parse_top(ctx: Ctx, root: Node, path: Path | None) -> LeagueConfig | None:
    """Build the LeagueConfig of a document's root node."""
    fields = mapping(ctx, root, "", _TOP_KEYS)
    if fields is None:
        return None
    top = [(fields, "")]
    for key in ("name", "bots", "events"):
        if key not in fields:
            ctx.error(root, key, "missing (required)")
    name = read_key(ctx, top, "name", string, "league")
    tls = sublayers(ctx, top, "tls", ("cert", "key"))
    if tls:
        for key in ("cert", "key"):
            if key not in tls[0][0]:
                ctx.error(fields["tls"], key_path("tls", key), "missing (tls needs both cert and key)")
    limit_layers = sublayers(ctx, top, "limits", LIMIT_KEYS)
    parse_limits(ctx, limit_layers)  # reports bad league limits even when every bot overrides them

    bots = _parse_bots(ctx, top, limit_layers)
    no_nodes: list[Node] = []
    game_layers = sublayers(ctx, top, "game", GAME_KEYS)
    events: dict[str, AnyEvent] = {}
    for i, node in enumerate(read_key(ctx, top, "events", lambda c, n, p: read_list(c, n, p, min_len=1), no_nodes)):
        event = _parse_event(ctx, node, key_path("events", i), bots, game_layers)
        if event is not None and event.name in events:
            ctx.error(
                node,
                key_path(key_path("events", i), "name"),
                f"duplicate event name {event.name!r} (first at line {events[event.name].line})",
            )
        elif event is not None and event.name:
            events[event.name] = event

    seed = read_key(ctx, top, "seed", _seed, None)
    return LeagueConfig(
        name=name,
        seed=None if seed == "random" else seed,
        jobs=read_key(ctx, top, "jobs", integer(1, most=MAX_JOBS), os.cpu_count() or 1),
        out=read_key(ctx, top, "out", _path(None), Path("out") / _slug(name)),
        listen=read_key(ctx, top, "listen", listen_address, "127.0.0.1:0"),
        tls_cert=read_key(ctx, tls, "cert", _path(ctx.folder), None),
        tls_key=read_key(ctx, tls, "key", _path(ctx.folder), None),
        tokens_file=read_key(ctx, top, "tokens_file", _path(ctx.folder), None),
        fault_policy=read_key(ctx, top, "fault_policy", choice(FaultPolicy), FaultPolicy.FOLD),
        sealed=read_key(ctx, top, "sealed", read_bool, True),
        bots=tuple(bots.values()),
        game=parse_game(ctx, game_layers),
        events=tuple(events.values()),
        path=path,
    )


# ----------------------------------------------------------------------------------------------
# Public entry points.


def parse_league(text: str, filename: str = "<string>") -> LeagueConfig:
    """Parse a league's YAML text; relative paths resolve against ``filename``'s folder (or the cwd).

    Raises LeagueConfigError listing every problem, each as ``file:line: key.path: message``.
    """
    path = None if filename.startswith("<") else Path(filename)
    ctx = Ctx(filename, path.parent if path is not None else Path.cwd())
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.reader.ReaderError as exc:  # a control character YAML does not allow
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        ctx.error(line, "", f"character U+{code:04X} at offset {exc.position} is not allowed in YAML")
        raise ctx.fail() from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        ctx.error(mark.line + 1 if mark else 1, "", f"YAML syntax error: {problem}")
        raise ctx.fail() from None
    if root is None:
        raise LeagueConfigError([f"{filename}:1: the file is empty"])
    return parse_checked(ctx, lambda: _parse_top(ctx, root, path))


def _seed(ctx: Ctx, node: Node, path: str) -> int | str | None:
    """Read a league's seed: an integer or a string ("random" for fresh random deals)."""
    value = read_scalar(ctx, node, path, (int, str), "an integer or a string")
    return value if isinstance(value, int | str) else None


def load_league(path: str | Path) -> LeagueConfig:
    """Read and parse a league file (see the module docstring for the format); a file that is not
    UTF-8 is refused with the line and byte offset of its first undecodable byte."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LeagueConfigError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LeagueConfigError(
            [f"{path}:{line}: not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}; save the file as UTF-8"]
        ) from None
    return parse_league(text, str(path))
