"""The league file's reading toolkit: one error collector (``Ctx``, every problem at once as
``file:line: key.path: message``) and typed readers of YAML nodes that check as they read, layered
(a league's defaults, then an event's or a bot's own keys). The config modules and the arena's
build their sections from these; the upper bounds every number is checked against live here."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import ROUND_FLOOR, Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from dealer.config.choices import Switch
from dealer.errors import ConfigError

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


def parse_word(kind: type[E], text: str, what: str) -> E:
    """``text`` as the member of ``kind`` it names; a ValueError naming the choices if it is none."""
    if text not in list(kind):
        raise ValueError(f"{what} must be one of {', '.join(kind)}, not {str(text)!r}")
    return kind(text)


class LeagueConfigError(ConfigError):
    """Every problem of a configuration at once; ``errors`` holds one line per problem."""

    def __init__(self, errors: Sequence[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors: list[str] = list(errors)


T = TypeVar("T")


Fields = dict[str, Node]


Layer = tuple[Fields, str]  # the fields of one mapping, and its key path


_MERGE_TAG = "tag:yaml.org,2002:merge"


_NULL_TAG = "tag:yaml.org,2002:null"


class Ctx:
    """Collects errors (deduplicated, reported in line order) and constructs scalar values."""

    def __init__(self, filename: str, folder: Path, with_lines: bool = True) -> None:
        self.filename = filename
        self.folder = folder
        self.with_lines = with_lines
        self.errors: dict[tuple[int, str], None] = {}
        self.loader = yaml.SafeLoader("")
        self.mappings: dict[tuple[int, str], Fields | None] = {}  # a mapping reached twice is read once

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


def read_text(path: str | Path) -> str:
    """A configuration file's text (arena.yaml, a finals file); unreadable or non-UTF-8 is one line."""
    try:
        return Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise LeagueConfigError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    except UnicodeDecodeError as exc:
        raise LeagueConfigError([f"{path}: not UTF-8 (byte offset {exc.start}); save the file as UTF-8"]) from None


def parse_checked(ctx: Ctx, parse: Callable[[], T | None]) -> T:
    """Run a file's top-level reader ``parse`` and raise every problem it recorded as one
    LeagueConfigError (a tag YAML cannot construct, such as ``!!python/...``, is one of them)."""
    try:
        config = parse()
    except yaml.constructor.ConstructorError as exc:  # an unsafe or malformed tag such as !!python/...
        mark = exc.problem_mark
        ctx.error(mark.line + 1 if mark else 1, "", f"YAML error: {exc.problem}")
        config = None
    if ctx.errors or config is None:
        raise ctx.fail()
    return config


def key_path(path: str, key: str | int) -> str:
    """Extend a key path with a mapping key or a list index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _suggest(word: str, choices: Sequence[str]) -> str:
    """Return ` (did you mean 'x'?)` for a close match, or nothing."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _describe(ctx: Ctx, node: Node) -> str:
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


def mapping(ctx: Ctx, node: Node, path: str, allowed: Sequence[str]) -> Fields | None:
    """Return a mapping's non-null fields by key; report non-mappings, duplicate and unknown keys."""
    cache_key = (id(node), path)
    if cache_key not in ctx.mappings:
        ctx.mappings[cache_key] = _read_mapping(ctx, node, path, allowed)
    return ctx.mappings[cache_key]


def _read_mapping(ctx: Ctx, node: Node, path: str, allowed: Sequence[str]) -> Fields | None:
    """Do the work of ``mapping`` once per node."""
    if not isinstance(node, MappingNode):
        ctx.error(node, path, f"expected a mapping, got {_describe(ctx, node)}")
        return None
    seen: set[object] = set()
    for key_node, _ in node.value:
        if key_node.tag != _MERGE_TAG and isinstance(key_node, ScalarNode):
            if key_node.value in seen:
                ctx.error(key_node, key_path(path, key_node.value), "duplicate key")
            seen.add(key_node.value)
    ctx.loader.flatten_mapping(node)  # applies `<<: *anchor` merge keys in place
    fields: Fields = {}
    for key_node, value_node in node.value:
        key = ctx.value(key_node) if isinstance(key_node, ScalarNode) else None
        if not isinstance(key, str):
            ctx.error(key_node, path, f"keys must be strings, got {_describe(ctx, key_node)}")
        elif key not in allowed:
            ctx.error(key_node, key_path(path, key), "unknown key" + _suggest(key, allowed))
        elif value_node.tag != _NULL_TAG:
            fields[key] = value_node
    return fields


def read_list(ctx: Ctx, node: Node, path: str, min_len: int = 0) -> list[Node] | None:
    """Return a list's item nodes; report non-lists and lists that are too short."""
    if not isinstance(node, SequenceNode):
        ctx.error(node, path, f"expected a list, got {_describe(ctx, node)}")
        return None
    if len(node.value) < min_len:
        ctx.error(node, path, f"needs at least {min_len} item{'s' if min_len > 1 else ''}")
        return None
    return list(node.value)


def read_scalar(ctx: Ctx, node: Node, path: str, types: tuple[type[T], ...], expected: str) -> T | None:
    """Return a scalar's value if it is one of ``types`` (bool is never an int), else None."""
    value = ctx.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
        return value
    ctx.error(node, path, f"expected {expected}, got {_describe(ctx, node)}")
    return None


def integer(
    lo: int | None = None, hi: int | None = None, *, most: int | None = None
) -> Callable[[Ctx, Node, str], int | None]:
    """A reader of an integer in ``lo..hi``, and at most ``most`` (the upper bound a number has
    only so that it stays within what the wire, the chips' sums or memory can hold)."""

    def read(ctx: Ctx, node: Node, path: str) -> int | None:
        value = read_scalar(ctx, node, path, (int,), "an integer")
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


def float_between(lo: float, hi: float, *, open_: bool = False) -> Callable[[Ctx, Node, str], float | None]:
    """A reader of a number in ``lo..hi`` (exclusive bounds when ``open_``)."""

    def read(ctx: Ctx, node: Node, path: str) -> float | None:
        value = read_scalar(ctx, node, path, (int, float), "a number")
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


def read_rake_percent(ctx: Ctx, node: Node, path: str) -> float | None:
    """A rake percent in 0..100 that is a whole number of basis points (0.01%), the engine's unit:
    anything finer would be played rounded, so it is refused instead."""
    value = float_between(0, 100)(ctx, node, path)
    if value is None:
        return None
    bps = Decimal(repr(value)) * 100
    if bps != bps.to_integral_value():
        low = bps.to_integral_value(ROUND_FLOOR)
        choices = f"{low / 100} or {(low + 1) / 100}"
        ctx.error(node, path, f"must be a whole number of basis points (0.01%), got {value}: {choices}")
        return None
    return value


def read_float(ctx: Ctx, node: Node, path: str) -> float | None:
    """Read any finite number as a float."""
    value = read_scalar(ctx, node, path, (int, float), "a number")
    if value is not None and not math.isfinite(value):
        ctx.error(node, path, f"must be a finite number, got {value}")
        return None
    return None if value is None else float(value)


def read_bool(ctx: Ctx, node: Node, path: str) -> bool | None:
    """Read true or false."""
    return read_scalar(ctx, node, path, (bool,), "true or false")


def string(ctx: Ctx, node: Node, path: str) -> str | None:
    """Read a non-empty string; numbers must be quoted so that "1.10" stays "1.10"."""
    value = read_scalar(ctx, node, path, (str,), "a string" + (" (quote it)" if isinstance(node, ScalarNode) else ""))
    if value == "":
        ctx.error(node, path, "must not be empty")
        return None
    return value


def choice(kind: type[E]) -> Callable[[Ctx, Node, str], E | None]:
    """A reader of one of the words of ``kind``, as its member."""
    choices = [str(member) for member in kind]

    def read(ctx: Ctx, node: Node, path: str) -> E | None:
        value = read_scalar(ctx, node, path, (str,), "a string")
        if value is not None and value not in choices:
            ctx.error(node, path, f"{value!r} is not one of {', '.join(choices)}" + _suggest(value, choices))
            return None
        return None if value is None else kind(value)

    return read


def read_on_off(ctx: Ctx, node: Node, path: str) -> Switch | None:
    """Read ``on`` or ``off`` (YAML also reads them, unquoted, as true and false)."""
    value = ctx.value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, bool):
        return Switch.ON if value else Switch.OFF
    return choice(Switch)(ctx, node, path)


def read_name(ctx: Ctx, node: Node, path: str) -> str | None:
    """Read a bot or event name: 1..40 of letters, digits, '_', '.', '-'."""
    value = string(ctx, node, path)
    if value is not None and not NAME_PATTERN.fullmatch(value):
        ctx.error(node, path, f"name {value!r} must match ^[A-Za-z0-9_.-]{{1,40}}$")
        return None
    return value


def read_blinds(ctx: Ctx, node: Node, path: str, *, with_ante: bool = False) -> tuple[int, int, int] | None:
    """Read [small, big] (or [small, big, ante] when ``with_ante``) with 0 < small <= big."""
    items = read_list(ctx, node, path)
    shape = "[small, big] or [small, big, ante]" if with_ante else "[small, big]"
    if items is None:
        return None
    if len(items) not in ((2, 3) if with_ante else (2,)):
        ctx.error(node, path, f"expected {shape}, got {len(items)} items")
        return None
    read = [integer(most=MAX_CHIPS)(ctx, item, key_path(path, i)) for i, item in enumerate(items)]
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


def pick_key(layers: Sequence[Layer], key: str) -> tuple[Node, str, int] | None:
    """Return the node, path and layer index of ``key`` in the last layer that sets it."""
    for index in range(len(layers) - 1, -1, -1):
        fields, path = layers[index]
        if key in fields:
            return fields[key], key_path(path, key), index
    return None


def read_key(
    ctx: Ctx, layers: Sequence[Layer], key: str, reader: Callable[[Ctx, Node, str], T | None], default: T
) -> T:
    """Read ``key`` from the last layer that sets it; the default if unset or invalid."""
    picked = pick_key(layers, key)
    if picked is None:
        return default
    value = reader(ctx, picked[0], picked[1])
    return default if value is None else value


def sublayers(ctx: Ctx, layers: Sequence[Layer], key: str, allowed: Sequence[str]) -> list[Layer]:
    """Return the layers of a nested mapping ``key``, one per layer that sets it."""
    result: list[Layer] = []
    for fields, path in layers:
        if key in fields:
            sub = mapping(ctx, fields[key], key_path(path, key), allowed)
            if sub is not None:
                result.append((sub, key_path(path, key)))
    return result


class _Given(ScalarNode):
    """A scalar a caller handed in (``game_config``): the readers take its value as it is, with no
    YAML text written and read back in between."""

    def __init__(self, value: object, mark: yaml.Mark) -> None:
        super().__init__(_NULL_TAG if value is None else "tag:yaml.org,2002:given", str(value), mark, mark)
        self.given = value


def given_node(value: object, lines: Iterator[int]) -> Node:
    """The node tree of a caller's value for the league file's readers (and their checks); each
    value on a line of its own, so that errors come in the order of the arguments."""
    mark = yaml.Mark("<options>", 0, next(lines), 0, None, 0)
    if isinstance(value, Mapping):
        pairs = [(k, given_node(v, lines)) for k, v in value.items()]
        return MappingNode("tag:yaml.org,2002:map", [(_Given(k, v.start_mark), v) for k, v in pairs], mark, mark)
    if isinstance(value, (list, tuple)):
        return SequenceNode("tag:yaml.org,2002:seq", [given_node(v, lines) for v in value], mark, mark)
    return _Given(value, mark)
