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
      processes: 64              # int >= 1
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

import difflib
import itertools
import math
import os
import re
import shlex
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from dealer.acpc_game import unsupported
from dealer.choices import Estimator, FaultPolicy, Format, Network, Protocol, Switch, TestKind, VariantName
from dealer.errors import ConfigError

__all__ = [
    "CompareSettings",
    "EventSpec",
    "FaultPolicy",
    "GameConfig",
    "LeagueBot",
    "LeagueConfig",
    "LeagueConfigError",
    "Limits",
    "MixedSpec",
    "TimeControl",
    "VariantName",
    "address_problem",
    "game_config",
    "load_league",
    "parse_league",
    "program_problem",
    "split_protocol",
]

NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,40}")
MAX_TABLE = 10
# Upper bounds of the numbers a league file (or the CLI) may give: what the wire carries (hand
# counts and clocks are uint32), what chips add up to without overflow, and what fits in memory.
MAX_HANDS = 10**9  # hands of a table (or of a comparison), hands per level, block hands
MAX_CHIPS = 10**12  # a stack, a blind, an ante, a rake cap
MAX_MS = 86_400_000  # any clock: one day
MAX_MEETINGS = 100  # round-robin and gauntlet line-ups played again
MAX_JOBS = 1024  # matches played at once
MAX_LIMIT = 2**20  # every resource limit (MiB, KiB, seconds, processes, files)
MAX_POINTS = 10**6  # freezeout points of a place
MAX_DEAL_SETS = 1000  # deal sets a single match or comparison plays at once (dealer match/compare --tables)


E = TypeVar("E", bound=StrEnum)


def _word(kind: type[E], text: str, what: str) -> E:
    """``text`` as the member of ``kind`` it names; a ValueError naming the choices if it is none."""
    if text not in list(kind):
        raise ValueError(f"{what} must be one of {', '.join(kind)}, not {str(text)!r}")
    return kind(text)


class LeagueConfigError(ConfigError):
    """Every problem of a configuration at once; ``errors`` holds one line per problem."""

    def __init__(self, errors: Sequence[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors: list[str] = list(errors)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-action time, a time bank for slow decisions, network grace and bot start-up time (ms)."""

    per_action_ms: int = 1000
    bank_ms: int = 30000
    grace_ms: int = 50
    startup_ms: int = 10000


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one launched bot process."""

    memory_mb: int = 1024
    cpu_seconds: int = 3600
    processes: int = 64
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
    """A bot as the league file declares it: a command to launch, or a remote bot that connects with a token."""

    name: str
    command: tuple[str, ...] | None
    remote: bool = False
    version: str = ""
    limits: Limits = field(default_factory=Limits)
    line: int = 0
    protocol: Protocol = Protocol.GRPC


@dataclass(frozen=True, slots=True)
class MixedSpec:
    """Blocks of fixed-limit then no-limit hands; ``block_hands`` None means the table size."""

    block_hands: int | None
    fixed_limit_blinds: tuple[int, int]
    no_limit_blinds: tuple[int, int]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """The rules of the hands played: betting variant, blinds, stacks, rake and clock."""

    variant: VariantName = VariantName.NO_LIMIT
    small_blind: int = 50
    big_blind: int = 100
    ante: int = 0
    stack: int = 20000
    rake_percent: float = 0.0
    rake_cap: int = 0
    mixed: MixedSpec | None = None
    time: TimeControl = field(default_factory=TimeControl)


@dataclass(frozen=True)
class CompareSettings:
    """What a comparison (``dealer compare``, a compare event) asks and how sure the answer must
    be (bounds in bb/100): the one place its defaults are written (events and the CLI read them)."""

    worse_than: float = -5.0
    better_than: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    until_significant: bool = False
    estimator: Estimator = Estimator.FULL  # the figures the verdict is taken from
    test: TestKind = TestKind.CS  # the sequential test
    cs_horizon: int = 1000  # paired deals at which the confidence sequence is narrowest
    min_samples: int = 100  # paired deals before the SPRT may stop: its variance estimate needs them
    # ... and of those, deals whose two versions did NOT cancel exactly: close versions agree on
    # most deals, and a variance estimated from zeros alone makes the test stop far too early.
    min_informative: int = 50

    @classmethod
    def read(cls, *, estimator: str, test: str, **asked: Any) -> CompareSettings:
        """Settings whose estimator and test are given as words (the CLI's options), checked: a
        ValueError of one sentence for the first thing that makes no sense."""
        settings = cls(estimator=_word(Estimator, estimator, "estimator"), test=_word(TestKind, test, "test"), **asked)
        settings.check()
        return settings

    def check(self) -> None:
        """Raise ValueError unless the settings make sense (sequential bounds around 0)."""
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha / 2 + self.beta < 1):
            raise ValueError(f"need 0 < alpha, beta < 1, got alpha={self.alpha}, beta={self.beta}")
        _word(Estimator, self.estimator, "estimator")
        _word(TestKind, self.test, "test")
        if self.worse_than >= self.better_than:
            raise ValueError(f"worse_than ({self.worse_than}) must be below better_than ({self.better_than})")
        if self.until_significant and not self.worse_than < 0 < self.better_than:
            raise ValueError(
                f"a sequential test needs worse_than < 0 < better_than, got {self.worse_than} and {self.better_than}"
            )


@dataclass(frozen=True, slots=True)
class EventSpec:
    """One event of a league; keys that do not apply to its format keep their defaults."""

    name: str
    format: Format
    table_size: int
    hands: int | None
    duplicate: bool
    bots: tuple[str, ...]
    game: GameConfig
    challenger: str | None = None
    blind_levels: tuple[tuple[int, int, int], ...] = ()
    hands_per_level: int | None = None
    max_hands: int | None = None
    points: tuple[int, ...] = ()
    new: str | None = None
    old: str | None = None
    field: tuple[str, ...] = ()
    until_significant: bool = CompareSettings.until_significant
    test: TestKind = CompareSettings.test
    alpha: float = CompareSettings.alpha
    beta: float = CompareSettings.beta
    worse_than: float = CompareSettings.worse_than
    better_than: float = CompareSettings.better_than
    meetings: int = 1
    line: int = 0


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
    events: tuple[EventSpec, ...]
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

T = TypeVar("T")
_Fields = dict[str, Node]
_Layer = tuple[_Fields, str]  # the fields of one mapping, and its key path
_MERGE_TAG = "tag:yaml.org,2002:merge"
_NULL_TAG = "tag:yaml.org,2002:null"


class _Ctx:
    """Collects errors (deduplicated, reported in line order) and constructs scalar values."""

    def __init__(self, filename: str, folder: Path, with_lines: bool = True) -> None:
        self.filename = filename
        self.folder = folder
        self.with_lines = with_lines
        self.errors: dict[tuple[int, str], None] = {}
        self.loader = yaml.SafeLoader("")
        self.mappings: dict[tuple[int, str], _Fields | None] = {}  # a mapping reached twice is read once

    def error(self, where: Node | int, path: str, message: str) -> None:
        """Record one problem at a node (or a 1-based line) under a key path."""
        line = where if isinstance(where, int) else where.start_mark.line + 1
        text = f"{path}: {message}" if path else message
        self.errors[line, f"{self.filename}:{line}: {text}" if self.with_lines else text] = None

    def fail(self) -> LeagueConfigError:
        """Return the error that lists every recorded problem, sorted by line."""
        return LeagueConfigError([text for _, text in sorted(self.errors, key=lambda e: e[0])])

    def value(self, node: Node) -> Any:
        """Construct the Python value of a node with the safe constructor (a number too long for
        Python's int, over 4,300 digits, is a ConstructorError at its node like a bad tag); a
        caller's value (``_Given``) as it is."""
        if isinstance(node, _Given):
            return node.given
        try:
            return self.loader.construct_object(node, deep=True)
        except ValueError as exc:
            raise yaml.constructor.ConstructorError(None, None, str(exc), node.start_mark) from None


def _join(path: str, key: str | int) -> str:
    """Extend a key path with a mapping key or a list index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _suggest(word: str, choices: Sequence[str]) -> str:
    """Return ` (did you mean 'x'?)` for a close match, or nothing."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _describe(ctx: _Ctx, node: Node) -> str:
    """Name what a node holds, for 'expected X, got Y' messages."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    value = ctx.value(node)
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"a string {value!r}"
    kind = {bool: "a boolean", int: "an integer", float: "a number"}.get(type(value), type(value).__name__)
    return f"{kind} {node.value}"


def _mapping(ctx: _Ctx, node: Node, path: str, allowed: Sequence[str]) -> _Fields | None:
    """Return a mapping's non-null fields by key; report non-mappings, duplicate and unknown keys."""
    cache_key = (id(node), path)
    if cache_key not in ctx.mappings:
        ctx.mappings[cache_key] = _read_mapping(ctx, node, path, allowed)
    return ctx.mappings[cache_key]


def _read_mapping(ctx: _Ctx, node: Node, path: str, allowed: Sequence[str]) -> _Fields | None:
    """Do the work of ``_mapping`` once per node."""
    if not isinstance(node, MappingNode):
        ctx.error(node, path, f"expected a mapping, got {_describe(ctx, node)}")
        return None
    seen: set[object] = set()
    for key_node, _ in node.value:
        if key_node.tag != _MERGE_TAG and isinstance(key_node, ScalarNode):
            if key_node.value in seen:
                ctx.error(key_node, _join(path, key_node.value), "duplicate key")
            seen.add(key_node.value)
    ctx.loader.flatten_mapping(node)  # applies `<<: *anchor` merge keys in place
    fields: _Fields = {}
    for key_node, value_node in node.value:
        key = ctx.value(key_node) if isinstance(key_node, ScalarNode) else None
        if not isinstance(key, str):
            ctx.error(key_node, path, f"keys must be strings, got {_describe(ctx, key_node)}")
        elif key not in allowed:
            ctx.error(key_node, _join(path, key), "unknown key" + _suggest(key, allowed))
        elif value_node.tag != _NULL_TAG:
            fields[key] = value_node
    return fields


def _list(ctx: _Ctx, node: Node, path: str, min_len: int = 0) -> list[Node] | None:
    """Return a list's item nodes; report non-lists and lists that are too short."""
    if not isinstance(node, SequenceNode):
        ctx.error(node, path, f"expected a list, got {_describe(ctx, node)}")
        return None
    if len(node.value) < min_len:
        ctx.error(node, path, f"needs at least {min_len} item{'s' if min_len > 1 else ''}")
        return None
    return list(node.value)


def _scalar(ctx: _Ctx, node: Node, path: str, types: tuple[type, ...], expected: str) -> Any:
    """Return a scalar's value if it is one of ``types`` (bool is never an int), else None."""
    value = ctx.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
        return value
    ctx.error(node, path, f"expected {expected}, got {_describe(ctx, node)}")
    return None


def _int(
    lo: int | None = None, hi: int | None = None, *, most: int | None = None
) -> Callable[[_Ctx, Node, str], int | None]:
    """A reader of an integer in ``lo..hi``, and at most ``most`` (the upper bound a number has
    only so that it stays within what the wire, the chips' sums or memory can hold)."""

    def read(ctx: _Ctx, node: Node, path: str) -> int | None:
        value = _scalar(ctx, node, path, (int,), "an integer")
        if value is None:
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f">= {lo}" if hi is None else f"<= {hi}" if lo is None else f"{lo}..{hi}"
            ctx.error(node, path, f"must be {bounds}, got {value}")
            return None
        if most is not None and value > most:
            ctx.error(node, path, f"must be <= {most}, got {value}")
            return None
        return value

    return read


def _float(lo: float, hi: float, *, open_: bool = False) -> Callable[[_Ctx, Node, str], float | None]:
    """A reader of a number in ``lo..hi`` (exclusive bounds when ``open_``)."""

    def read(ctx: _Ctx, node: Node, path: str) -> float | None:
        value = _scalar(ctx, node, path, (int, float), "a number")
        if value is None:
            return None
        inside = lo < value < hi if open_ else lo <= value <= hi
        if not inside:
            ctx.error(
                node,
                path,
                f"must be {'between' if open_ else 'in'} {lo} and {hi}{' (exclusive)' if open_ else ''}, got {value}",
            )
            return None
        return float(value)

    return read


def _rake_percent(ctx: _Ctx, node: Node, path: str) -> float | None:
    """A rake percent in 0..100 that is a whole number of basis points (0.01%), the engine's unit:
    anything finer would be played rounded, so it is refused instead."""
    value = _float(0, 100)(ctx, node, path)
    if value is None:
        return None
    bps = Decimal(repr(value)) * 100
    if bps != bps.to_integral_value():
        low = bps.to_integral_value(ROUND_FLOOR)
        choices = f"{low / 100} or {(low + 1) / 100}"
        ctx.error(node, path, f"must be a whole number of basis points (0.01%), got {value}: {choices}")
        return None
    return value


def _any_float(ctx: _Ctx, node: Node, path: str) -> float | None:
    """Read any finite number as a float."""
    value = _scalar(ctx, node, path, (int, float), "a number")
    if value is not None and not math.isfinite(value):
        ctx.error(node, path, f"must be a finite number, got {value}")
        return None
    return None if value is None else float(value)


def _bool(ctx: _Ctx, node: Node, path: str) -> bool | None:
    """Read true or false."""
    return _scalar(ctx, node, path, (bool,), "true or false")


def _str(ctx: _Ctx, node: Node, path: str) -> str | None:
    """Read a non-empty string; numbers must be quoted so that "1.10" stays "1.10"."""
    value = _scalar(ctx, node, path, (str,), "a string" + (" (quote it)" if isinstance(node, ScalarNode) else ""))
    if value == "":
        ctx.error(node, path, "must not be empty")
        return None
    return value


def _choice(kind: type[E]) -> Callable[[_Ctx, Node, str], E | None]:
    """A reader of one of the words of ``kind``, as its member."""
    choices = [str(member) for member in kind]

    def read(ctx: _Ctx, node: Node, path: str) -> E | None:
        value = _scalar(ctx, node, path, (str,), "a string")
        if value is not None and value not in choices:
            ctx.error(node, path, f"{value!r} is not one of {', '.join(choices)}" + _suggest(value, choices))
            return None
        return None if value is None else kind(value)

    return read


def _on_off(ctx: _Ctx, node: Node, path: str) -> Switch | None:
    """Read ``on`` or ``off`` (YAML also reads them, unquoted, as true and false)."""
    value = ctx.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, bool):
        return Switch.ON if value else Switch.OFF
    return _choice(Switch)(ctx, node, path)


def _name(ctx: _Ctx, node: Node, path: str) -> str | None:
    """Read a bot or event name: 1..40 of letters, digits, '_', '.', '-'."""
    value = _str(ctx, node, path)
    if value is not None and not NAME_PATTERN.fullmatch(value):
        ctx.error(node, path, f"name {value!r} must match ^[A-Za-z0-9_.-]{{1,40}}$")
        return None
    return value


def _blinds(ctx: _Ctx, node: Node, path: str, *, with_ante: bool = False) -> tuple[int, int, int] | None:
    """Read [small, big] (or [small, big, ante] when ``with_ante``) with 0 < small <= big."""
    items = _list(ctx, node, path)
    shape = "[small, big] or [small, big, ante]" if with_ante else "[small, big]"
    if items is None:
        return None
    if len(items) not in ((2, 3) if with_ante else (2,)):
        ctx.error(node, path, f"expected {shape}, got {len(items)} items")
        return None
    read = [_int(most=MAX_CHIPS)(ctx, item, _join(path, i)) for i, item in enumerate(items)]
    values = [v for v in read if v is not None]
    if len(values) < len(read):
        return None
    small, big, ante = values[0], values[1], values[2] if len(values) == 3 else 0
    if small <= 0:
        ctx.error(node, path, f"small blind must be > 0, got {small}")
    elif small > big:
        ctx.error(node, path, f"small blind {small} is larger than big blind {big}")
    elif ante < 0:
        ctx.error(node, path, f"ante must be >= 0, got {ante}")
    else:
        return small, big, ante
    return None


def _pick(layers: Sequence[_Layer], key: str) -> tuple[Node, str, int] | None:
    """Return the node, path and layer index of ``key`` in the last layer that sets it."""
    for index in range(len(layers) - 1, -1, -1):
        fields, path = layers[index]
        if key in fields:
            return fields[key], _join(path, key), index
    return None


def _read(
    ctx: _Ctx, layers: Sequence[_Layer], key: str, reader: Callable[[_Ctx, Node, str], T | None], default: T
) -> T:
    """Read ``key`` from the last layer that sets it; the default if unset or invalid."""
    picked = _pick(layers, key)
    if picked is None:
        return default
    value = reader(ctx, picked[0], picked[1])
    return default if value is None else value


def _sublayers(ctx: _Ctx, layers: Sequence[_Layer], key: str, allowed: Sequence[str]) -> list[_Layer]:
    """Return the layers of a nested mapping ``key``, one per layer that sets it."""
    result: list[_Layer] = []
    for fields, path in layers:
        if key in fields:
            sub = _mapping(ctx, fields[key], _join(path, key), allowed)
            if sub is not None:
                result.append((sub, _join(path, key)))
    return result


# ----------------------------------------------------------------------------------------------
# The sections of the file.

_LIMIT_KEYS = (
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
_TIME_KEYS = ("per_action_ms", "bank_ms", "grace_ms", "startup_ms")
_GAME_KEYS = ("variant", "blinds", "ante", "stack", "rake", "mixed", "time")
_MIXED_KEYS = ("block_hands", "fixed_limit_blinds", "no_limit_blinds")


def _parse_limits(ctx: _Ctx, layers: Sequence[_Layer]) -> Limits:
    """Build Limits from layered ``limits:`` mappings (league defaults, then the bot's)."""
    d = Limits()
    return Limits(
        memory_mb=_read(ctx, layers, "memory_mb", _int(16, most=MAX_LIMIT), d.memory_mb),
        cpu_seconds=_read(ctx, layers, "cpu_seconds", _int(1, most=MAX_LIMIT), d.cpu_seconds),
        processes=_read(ctx, layers, "processes", _int(1, most=MAX_LIMIT), d.processes),
        open_files=_read(ctx, layers, "open_files", _int(16, most=MAX_LIMIT), d.open_files),
        file_size_mb=_read(ctx, layers, "file_size_mb", _int(1, most=MAX_LIMIT), d.file_size_mb),
        log_kb=_read(ctx, layers, "log_kb", _int(1, most=MAX_LIMIT), d.log_kb),
        tmp_mb=_read(ctx, layers, "tmp_mb", _int(1, most=MAX_LIMIT), d.tmp_mb),
        home_mb=_read(ctx, layers, "home_mb", _int(1, most=MAX_LIMIT), d.home_mb),
        network=_read(ctx, layers, "network", _choice(Network), d.network),
        user=_read(ctx, layers, "user", _str, d.user),
        sandbox=_read(ctx, layers, "sandbox", _on_off, d.sandbox),
    )


def _parse_game(ctx: _Ctx, layers: Sequence[_Layer]) -> GameConfig:
    """Build a GameConfig from layered ``game:`` mappings (league defaults, then the event's)."""
    d = GameConfig()
    variant = _read(ctx, layers, "variant", _choice(VariantName), d.variant)
    small, big, _ = _read(ctx, layers, "blinds", _blinds, (d.small_blind, d.big_blind, 0))
    stack = _read(ctx, layers, "stack", _int(1, most=MAX_CHIPS), d.stack)
    if stack <= big:
        stack_at, blinds_at = _pick(layers, "stack"), _pick(layers, "blinds")
        node, path, _ = max((p for p in (stack_at, blinds_at) if p is not None), key=lambda p: p[2])
        ctx.error(node, path, f"stack {stack} must be larger than the big blind {big}")
    rake = _sublayers(ctx, layers, "rake", ("percent", "cap"))
    time = _sublayers(ctx, layers, "time", _TIME_KEYS)
    dt = TimeControl()
    return GameConfig(
        variant=variant,
        small_blind=small,
        big_blind=big,
        ante=_read(ctx, layers, "ante", _int(0, most=MAX_CHIPS), d.ante),
        stack=stack,
        rake_percent=_read(ctx, rake, "percent", _rake_percent, d.rake_percent),
        rake_cap=_read(ctx, rake, "cap", _int(0, most=MAX_CHIPS), d.rake_cap),
        mixed=_parse_mixed(ctx, layers, variant, (small, big)),
        time=TimeControl(
            per_action_ms=_read(ctx, time, "per_action_ms", _int(1, most=MAX_MS), dt.per_action_ms),
            bank_ms=_read(ctx, time, "bank_ms", _int(0, most=MAX_MS), dt.bank_ms),
            grace_ms=_read(ctx, time, "grace_ms", _int(0, most=MAX_MS), dt.grace_ms),
            startup_ms=_read(ctx, time, "startup_ms", _int(0, most=MAX_MS), dt.startup_ms),
        ),
    )


def _parse_mixed(
    ctx: _Ctx, layers: Sequence[_Layer], variant: VariantName, blinds: tuple[int, int]
) -> MixedSpec | None:
    """Build the MixedSpec of variant mixed; `mixed:` set at or after a non-mixed variant is an error."""
    mixed_at = _pick(layers, "mixed")
    if variant != VariantName.MIXED:
        variant_at = _pick(layers, "variant")
        if mixed_at is not None and mixed_at[2] >= (variant_at[2] if variant_at else -1):
            ctx.error(mixed_at[0], mixed_at[1], f"applies only to variant mixed, not {str(variant)!r}")
        return None
    sub = _sublayers(ctx, layers, "mixed", _MIXED_KEYS)
    fixed = _read(ctx, sub, "fixed_limit_blinds", _blinds, (*blinds, 0))
    no_limit = _read(ctx, sub, "no_limit_blinds", _blinds, (*blinds, 0))
    return MixedSpec(
        block_hands=_read(ctx, sub, "block_hands", _int(1, most=MAX_HANDS), None),
        fixed_limit_blinds=fixed[:2],
        no_limit_blinds=no_limit[:2],
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


def _missing_scripts(ctx: _Ctx, command: Sequence[str]) -> list[str]:
    """The script files a command names (words ending in a script suffix) that do not exist."""
    missing = []
    for k, word in enumerate(command[1:], 1):
        if word.startswith("-") or command[k - 1] in _CODE_OPTIONS or not word.lower().endswith(SCRIPT_SUFFIXES):
            continue
        path = Path(word) if Path(word).is_absolute() else ctx.folder / word
        if not path.is_file():
            missing.append(word)
    return missing


def _command(ctx: _Ctx, node: Node, path: str) -> tuple[str, ...] | None:
    """Read a command: a shlex-split string or a non-empty list of strings."""
    if isinstance(node, SequenceNode):
        read = [_str(ctx, item, _join(path, i)) for i, item in enumerate(node.value)]
        words = [w for w in read if w is not None]
        if len(words) < len(read):
            return None
    else:
        text = _str(ctx, node, path)
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


def _parse_bot(ctx: _Ctx, node: Node, path: str, limit_layers: Sequence[_Layer]) -> LeagueBot | None:
    """Build one LeagueBot; None if it has no usable name."""
    fields = _mapping(ctx, node, path, _BOT_KEYS)
    if fields is None:
        return None
    layer = [(fields, path)]
    name = _read(ctx, layer, "name", _name, None)
    if "name" not in fields:
        ctx.error(node, _join(path, "name"), "missing (every bot needs a name)")
    label = f"bot {name!r}" if name else "bot"
    command = _read(ctx, layer, "command", _command, None)
    remote = _read(ctx, layer, "remote", _bool, False)
    if remote and "command" in fields:
        ctx.error(fields["remote"], _join(path, "remote"), f"{label} has both a command and remote: true; give one")
    elif not remote and "command" not in fields:
        ctx.error(node, _join(path, "command"), f"{label}: missing command (or remote: true)")
    if command is not None:
        problem = program_problem(command[0], ctx.folder)
        if problem:
            ctx.error(fields["command"], _join(path, "command"), f"{label}: program {command[0]!r} {problem}")
        for script in _missing_scripts(ctx, command):
            ctx.error(fields["command"], _join(path, "command"), f"{label}: script {script!r} not found")
    protocol = _read(ctx, layer, "protocol", _choice(Protocol), Protocol.GRPC)
    if remote and protocol != Protocol.GRPC:
        ctx.error(fields["protocol"], _join(path, "protocol"), f"{label}: remote bots speak grpc, not {protocol}")
    limits = _sublayers(ctx, layer, "limits", _LIMIT_KEYS)
    return LeagueBot(
        name=name or "",
        command=None if remote else command,
        remote=remote,
        version=_read(ctx, layer, "version", _str, ""),
        limits=_parse_limits(ctx, [*limit_layers, *limits]),
        line=node.start_mark.line + 1,
        protocol=protocol,
    )


def split_protocol(text: str) -> tuple[Protocol, str]:
    """A command line of ``dealer match``: ``stdio:CMD``, ``acpc:CMD`` or ``grpc:CMD`` as (protocol,
    CMD); a command without one of these prefixes is a gRPC bot's."""
    prefix, colon, rest = text.partition(":")
    if colon and prefix in list(Protocol):
        return Protocol(prefix), rest.strip()
    return Protocol.GRPC, text


_FORMAT_KEYS: dict[str, tuple[str, ...]] = {
    "round-robin": ("bots", "table_size", "hands", "duplicate", "meetings"),
    "gauntlet": ("bots", "table_size", "hands", "duplicate", "meetings", "challenger"),
    "freezeout": ("bots", "table_size", "blind_levels", "hands_per_level", "max_hands", "points"),
    "compare": (
        "new",
        "old",
        "field",
        "hands",
        "duplicate",
        "until_significant",
        "test",
        "alpha",
        "beta",
        "worse_than",
        "better_than",
    ),
}
_EVENT_KEYS = tuple(dict.fromkeys(("name", "format", "game", *(k for ks in _FORMAT_KEYS.values() for k in ks))))


def _bot_names(ctx: _Ctx, node: Node, path: str, known: Mapping[str, LeagueBot]) -> list[str] | None:
    """Read a list of distinct names of known bots."""
    items = _list(ctx, node, path)
    if items is None:
        return None
    names: list[str] = []
    for i, item in enumerate(items):
        name = _str(ctx, item, _join(path, i))
        if name is None:
            continue
        if name not in known:
            ctx.error(item, _join(path, i), f"unknown bot {name!r}" + _suggest(name, list(known)))
        elif name in names:
            ctx.error(item, _join(path, i), f"bot {name!r} is listed twice")
        else:
            names.append(name)
    return names


def _known_bot(known: Mapping[str, LeagueBot]) -> Callable[[_Ctx, Node, str], str | None]:
    """A reader of the name of a known bot."""

    def read(ctx: _Ctx, node: Node, path: str) -> str | None:
        name = _str(ctx, node, path)
        if name is not None and name not in known:
            ctx.error(node, path, f"unknown bot {name!r}" + _suggest(name, list(known)))
            return None
        return name

    return read


def _points(ctx: _Ctx, node: Node, path: str) -> tuple[int, ...] | None:
    """Read a non-increasing list of integer points per finishing place."""
    items = _list(ctx, node, path, min_len=1)
    if items is None:
        return None
    read = [_int(-MAX_POINTS, MAX_POINTS)(ctx, item, _join(path, i)) for i, item in enumerate(items)]
    values = [v for v in read if v is not None]
    if len(values) < len(read):
        return None
    if any(a < b for a, b in itertools.pairwise(values)):
        ctx.error(node, path, "points must not increase from one place to the next")
        return None
    return tuple(values)


def _levels(ctx: _Ctx, node: Node, path: str) -> tuple[tuple[int, int, int], ...] | None:
    """Read a non-empty list of blind levels [sb, bb] or [sb, bb, ante]."""
    items = _list(ctx, node, path, min_len=1)
    if items is None:
        return None
    levels = [_blinds(ctx, item, _join(path, i), with_ante=True) for i, item in enumerate(items)]
    return None if any(v is None for v in levels) else tuple(levels)  # type: ignore[arg-type]


def _parse_event(
    ctx: _Ctx, node: Node, path: str, known: Mapping[str, LeagueBot], game_layers: Sequence[_Layer]
) -> EventSpec | None:
    """Build one EventSpec, checking its keys against its format and its bots against the league."""
    fields = _mapping(ctx, node, path, _EVENT_KEYS)
    if fields is None:
        return None
    layer = [(fields, path)]

    def required(key: str, reader: Callable[[_Ctx, Node, str], T | None], default: T) -> T:
        if key not in fields:
            ctx.error(node, _join(path, key), f"missing (required for format {fmt})")
        return _read(ctx, layer, key, reader, default)

    name = _read(ctx, layer, "name", _name, "")
    if "name" not in fields:
        ctx.error(node, _join(path, "name"), "missing (every event needs a name)")
    fmt: Format | None = _read(ctx, layer, "format", _choice(Format), None)
    if "format" not in fields:
        ctx.error(node, _join(path, "format"), f"missing (one of {', '.join(Format)})")
    if fmt:
        for key in [k for k in fields if k not in ("name", "format", "game", *_FORMAT_KEYS[fmt])]:
            ctx.error(fields[key], _join(path, key), f"does not apply to format {fmt}")
    game = _parse_game(ctx, [*game_layers, *_sublayers(ctx, layer, "game", _GAME_KEYS)])
    spec: dict[str, Any] = {}

    if fmt == "compare":
        new = required("new", _known_bot(known), None)
        old = required("old", _known_bot(known), None)
        if new is not None and new == old:
            ctx.error(fields["old"], _join(path, "old"), f"new and old are the same bot {new!r}")
        no_field: list[str] = []
        field_ = _read(ctx, layer, "field", lambda c, n, p: _bot_names(c, n, p, known), no_field)
        for name_ in {new, old} & set(field_):
            ctx.error(fields["field"], _join(path, "field"), f"{name_!r} is compared, it cannot be in the field too")
        if _read(ctx, layer, "duplicate", _bool, True) is False:
            ctx.error(fields["duplicate"], _join(path, "duplicate"), "compare always plays duplicate")
        d = CompareSettings()
        worse = _read(ctx, layer, "worse_than", _any_float, d.worse_than)
        better = _read(ctx, layer, "better_than", _any_float, d.better_than)
        if worse >= better:
            at = _pick(layer, "better_than") or _pick(layer, "worse_than")
            assert at is not None  # the defaults are ordered, so one of them was given
            ctx.error(at[0], at[1], f"worse_than ({worse}) must be below better_than ({better})")
        bots = tuple(b for b in (new, old, *field_) if b)
        spec.update(
            new=new,
            old=old,
            field=tuple(field_),
            worse_than=worse,
            better_than=better,
            until_significant=_read(ctx, layer, "until_significant", _bool, d.until_significant),
            test=_read(ctx, layer, "test", _choice(TestKind), d.test),
            alpha=_read(ctx, layer, "alpha", _float(0, 0.5, open_=True), d.alpha),
            beta=_read(ctx, layer, "beta", _float(0, 0.5, open_=True), d.beta),
        )
        table_size, hands, duplicate = 2, required("hands", _int(1, most=MAX_HANDS), 1), True
    else:
        bots = tuple(_read(ctx, layer, "bots", lambda c, n, p: _bot_names(c, n, p, known), list(known)))
        table_size = required("table_size", _int(2, MAX_TABLE), 2) if fmt else 2
        if fmt == "gauntlet":
            challenger = required("challenger", _known_bot(known), None)
            if challenger is not None and challenger not in bots:
                bots = (challenger, *bots)
            spec.update(challenger=challenger)
        if "table_size" in fields and table_size > len(bots):
            ctx.error(
                fields["table_size"],
                _join(path, "table_size"),
                f"table of {table_size} is larger than the {len(bots)} bots of this event",
            )
        if fmt == "freezeout":
            default_points = tuple(range(len(bots) - 1, -1, -1))
            points = _read(ctx, layer, "points", _points, default_points)
            if len(points) > len(bots):
                ctx.error(
                    fields["points"],
                    _join(path, "points"),
                    f"points for {len(points)} places but the event has {len(bots)} bots",
                )
            no_levels: tuple[tuple[int, int, int], ...] = ()
            spec.update(
                blind_levels=required("blind_levels", _levels, no_levels),
                hands_per_level=required("hands_per_level", _int(1, most=MAX_HANDS), 1),
                max_hands=_read(ctx, layer, "max_hands", _int(1, most=MAX_HANDS), 5000),
                points=points,
            )
            hands, duplicate = None, False
        else:
            hands = required("hands", _int(1, most=MAX_HANDS), 1) if fmt else None
            duplicate = _read(ctx, layer, "duplicate", _bool, True)
            spec.update(meetings=_read(ctx, layer, "meetings", _int(1, most=MAX_MEETINGS), 1))
    for acpc_bot in [b for b in bots if known[b].protocol == "acpc"]:
        reason = unsupported(game, seats=table_size, freezeout=fmt == "freezeout")
        if reason:
            ctx.error(node, path, f"bot {acpc_bot!r} speaks ACPC, which cannot play this event: {reason}")
            break
    return EventSpec(
        name=name,
        format=fmt or Format.ROUND_ROBIN,  # without one (an error already), the event is not kept
        table_size=table_size,
        hands=hands,
        duplicate=duplicate,
        bots=bots,
        game=game,
        line=node.start_mark.line + 1,
        **spec,
    )


def address_problem(text: str) -> str | None:
    """Why ``text`` is not a ``host:port`` with a port in 0..65535 (0 = any free port), or None."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        return f"expected host:port with a port 0..65535, got {text!r}"
    return None


def _listen(ctx: _Ctx, node: Node, path: str) -> str | None:
    """Read host:port with a port in 0..65535 (0 = any free port)."""
    text = _str(ctx, node, path)
    if text is None:
        return None
    problem = address_problem(text)
    if problem is not None:
        ctx.error(node, path, problem)
        return None
    return text


def _path(folder: Path | None) -> Callable[[_Ctx, Node, str], Path | None]:
    """A reader of a path, made relative to ``folder`` when one is given."""

    def read(ctx: _Ctx, node: Node, path: str) -> Path | None:
        text = _str(ctx, node, path)
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


def _parse_top(ctx: _Ctx, root: Node, path: Path | None) -> LeagueConfig | None:
    """Build the LeagueConfig of a document's root node."""
    fields = _mapping(ctx, root, "", _TOP_KEYS)
    if fields is None:
        return None
    top = [(fields, "")]
    for key in ("name", "bots", "events"):
        if key not in fields:
            ctx.error(root, key, "missing (required)")
    name = _read(ctx, top, "name", _str, "league")
    tls = _sublayers(ctx, top, "tls", ("cert", "key"))
    if tls:
        for key in ("cert", "key"):
            if key not in tls[0][0]:
                ctx.error(fields["tls"], _join("tls", key), "missing (tls needs both cert and key)")
    limit_layers = _sublayers(ctx, top, "limits", _LIMIT_KEYS)
    _parse_limits(ctx, limit_layers)  # reports bad league limits even when every bot overrides them

    bots: dict[str, LeagueBot] = {}
    no_nodes: list[Node] = []
    for i, node in enumerate(_read(ctx, top, "bots", lambda c, n, p: _list(c, n, p, min_len=2), no_nodes)):
        bot = _parse_bot(ctx, node, _join("bots", i), limit_layers)
        if bot is not None and bot.name in bots:
            ctx.error(
                node,
                _join(_join("bots", i), "name"),
                f"duplicate bot name {bot.name!r} (first at line {bots[bot.name].line})",
            )
        elif bot is not None and bot.name:
            bots[bot.name] = bot

    game_layers = _sublayers(ctx, top, "game", _GAME_KEYS)
    events: dict[str, EventSpec] = {}
    for i, node in enumerate(_read(ctx, top, "events", lambda c, n, p: _list(c, n, p, min_len=1), no_nodes)):
        event = _parse_event(ctx, node, _join("events", i), bots, game_layers)
        if event is not None and event.name in events:
            ctx.error(
                node,
                _join(_join("events", i), "name"),
                f"duplicate event name {event.name!r} (first at line {events[event.name].line})",
            )
        elif event is not None and event.name:
            events[event.name] = event

    seed = _read(ctx, top, "seed", lambda c, n, p: _scalar(c, n, p, (int, str), "an integer or a string"), None)
    return LeagueConfig(
        name=name,
        seed=None if seed == "random" else seed,
        jobs=_read(ctx, top, "jobs", _int(1, most=MAX_JOBS), os.cpu_count() or 1),
        out=_read(ctx, top, "out", _path(None), Path("out") / _slug(name)),
        listen=_read(ctx, top, "listen", _listen, "127.0.0.1:0"),
        tls_cert=_read(ctx, tls, "cert", _path(ctx.folder), None),
        tls_key=_read(ctx, tls, "key", _path(ctx.folder), None),
        tokens_file=_read(ctx, top, "tokens_file", _path(ctx.folder), None),
        fault_policy=_read(ctx, top, "fault_policy", _choice(FaultPolicy), FaultPolicy.FOLD),
        sealed=_read(ctx, top, "sealed", _bool, True),
        bots=tuple(bots.values()),
        game=_parse_game(ctx, game_layers),
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
    ctx = _Ctx(filename, path.parent if path is not None else Path.cwd())
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
    try:
        config = _parse_top(ctx, root, path)
    except yaml.constructor.ConstructorError as exc:  # an unsafe or malformed tag such as !!python/...
        mark = exc.problem_mark
        ctx.error(mark.line + 1 if mark else 1, "", f"YAML error: {exc.problem}")
        config = None
    if ctx.errors or config is None:
        raise ctx.fail()
    return config


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


def game_config(
    *,
    variant: str = VariantName.NO_LIMIT,
    blinds: Sequence[int] = (50, 100),
    ante: int = 0,
    stack: int = 20000,
    rake_percent: float = 0.0,
    rake_cap: int = 0,
    mixed: Mapping[str, object] | None = None,
    time: Mapping[str, int] | None = None,
) -> GameConfig:
    """Build a GameConfig without YAML (e.g. from CLI options), checked by the same rules.

    ``mixed`` and ``time`` take the keys of the YAML ``game.mixed`` / ``game.time`` mappings.
    Raises LeagueConfigError listing every problem as ``key: message``.
    """
    options = {
        "variant": variant,
        "blinds": blinds,
        "ante": ante,
        "stack": stack,
        "rake": {"percent": rake_percent, "cap": rake_cap},
        "mixed": mixed,  # None: unset, as a null in the file
        "time": time,
    }
    ctx = _Ctx("<options>", Path.cwd(), with_lines=False)
    fields = _mapping(ctx, _given(options, itertools.count()), "", _GAME_KEYS)
    game = _parse_game(ctx, [(fields, "")]) if fields is not None else None
    if ctx.errors or game is None:
        raise ctx.fail()
    return game


class _Given(ScalarNode):
    """A scalar a caller handed in (``game_config``): the readers take its value as it is, with no
    YAML text written and read back in between."""

    def __init__(self, value: object, mark: yaml.Mark) -> None:
        super().__init__(_NULL_TAG if value is None else "tag:yaml.org,2002:given", str(value), mark, mark)
        self.given = value


def _given(value: object, lines: Iterator[int]) -> Node:
    """The node tree of a caller's value for the league file's readers (and their checks); each
    value on a line of its own, so that errors come in the order of the arguments."""
    mark = yaml.Mark("<options>", 0, next(lines), 0, None, 0)
    if isinstance(value, Mapping):
        pairs = [(k, _given(v, lines)) for k, v in value.items()]
        return MappingNode("tag:yaml.org,2002:map", [(_Given(k, v.start_mark), v) for k, v in pairs], mark, mark)
    if isinstance(value, (list, tuple)):
        return SequenceNode("tag:yaml.org,2002:seq", [_given(v, lines) for v in value], mark, mark)
    return _Given(value, mark)
