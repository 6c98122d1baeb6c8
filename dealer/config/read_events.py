"""The ``events:`` of a league file read into the event types of ``dealer.config.events``, each checked
against its format's keys and the league's bots."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from yaml.nodes import Node

from dealer.config.acpc_game import unsupported
from dealer.config.choices import BotProtocol, Format, TestKind
from dealer.config.events import (
    KINDS,
    MAX_HANDS_DEFAULT,
    AnyEvent,
    Compare,
    CompareSettings,
    Freezeout,
    Gauntlet,
    RoundRobin,
)
from dealer.config.game import GAME_KEYS, parse_game
from dealer.config.read import (
    MAX_HANDS,
    MAX_MEETINGS,
    MAX_POINTS,
    MAX_TABLE,
    Ctx,
    Fields,
    Layer,
    T,
    _suggest,
    choice,
    float_between,
    integer,
    key_path,
    mapping,
    pick_key,
    read_blinds,
    read_bool,
    read_float,
    read_key,
    read_list,
    read_name,
    string,
    sublayers,
)

if TYPE_CHECKING:
    from dealer.config.league_file import LeagueBot

_FORMAT_KEYS = {kind.format: kind.keys for kind in KINDS}
_EVENT_KEYS = tuple(dict.fromkeys(("name", "format", "game", *(k for ks in _FORMAT_KEYS.values() for k in ks))))


def _bot_names(ctx: Ctx, node: Node, path: str, known: Mapping[str, LeagueBot]) -> list[str] | None:
    """Read a list of distinct names of known bots."""
    items = read_list(ctx, node, path)
    if items is None:
        return None
    names: list[str] = []
    for i, item in enumerate(items):
        name = string(ctx, item, key_path(path, i))
        if name is None:
            continue
        if name not in known:
            ctx.error(item, key_path(path, i), f"unknown bot {name!r}" + _suggest(name, list(known)))
        elif name in names:
            ctx.error(item, key_path(path, i), f"bot {name!r} is listed twice")
        else:
            names.append(name)
    return names


def _known_bot(known: Mapping[str, LeagueBot]) -> Callable[[Ctx, Node, str], str | None]:
    """A reader of the name of a known bot."""

    def read(ctx: Ctx, node: Node, path: str) -> str | None:
        name = string(ctx, node, path)
        if name is not None and name not in known:
            ctx.error(node, path, f"unknown bot {name!r}" + _suggest(name, list(known)))
            return None
        return name

    return read


def _points(ctx: Ctx, node: Node, path: str) -> tuple[int, ...] | None:
    """Read a non-increasing list of integer points per finishing place."""
    items = read_list(ctx, node, path, min_len=1)
    if items is None:
        return None
    read = [integer(-MAX_POINTS, MAX_POINTS)(ctx, item, key_path(path, i)) for i, item in enumerate(items)]
    values = [v for v in read if v is not None]
    if len(values) < len(read):
        return None
    if any(a < b for a, b in itertools.pairwise(values)):
        ctx.error(node, path, "points must not increase from one place to the next")
        return None
    return tuple(values)


def _levels(ctx: Ctx, node: Node, path: str) -> tuple[tuple[int, int, int], ...] | None:
    """Read a non-empty list of blind levels [sb, bb] or [sb, bb, ante]."""
    items = read_list(ctx, node, path, min_len=1)
    if items is None:
        return None
    levels = [read_blinds(ctx, item, key_path(path, i), with_ante=True) for i, item in enumerate(items)]
    return None if any(v is None for v in levels) else tuple(levels)  # type: ignore[arg-type]


class _Keys:
    """One event's mapping as it is read: its fields, where it is, and the format that requires keys."""

    def __init__(self, ctx: Ctx, node: Node, path: str, fields: Fields, fmt: Format | None) -> None:
        self.ctx, self.node, self.path, self.fields, self.fmt = ctx, node, path, fields, fmt
        self.layer = [(fields, path)]

    def read(self, key: str, reader: Callable[[Ctx, Node, str], T | None], default: T) -> T:
        """The key's value; the default if it is unset or invalid (an error then recorded)."""
        return read_key(self.ctx, self.layer, key, reader, default)

    def required(self, key: str, reader: Callable[[Ctx, Node, str], T | None], default: T) -> T:
        """The key's value; an error if it is unset, as the format requires it."""
        if key not in self.fields:
            self.ctx.error(self.node, key_path(self.path, key), f"missing (required for format {self.fmt})")
        return self.read(key, reader, default)

    def error(self, key: str, message: str) -> None:
        """Record a problem of the value of ``key``."""
        self.ctx.error(self.fields[key], key_path(self.path, key), message)


def _parse_event(
    ctx: Ctx, node: Node, path: str, known: Mapping[str, LeagueBot], game_layers: Sequence[Layer]
) -> AnyEvent | None:
    """Build one event of its format's type, checking its keys against its format and its bots
    against the league; an event without a valid format is read for its errors, not kept."""
    fields = mapping(ctx, node, path, _EVENT_KEYS)
    if fields is None:
        return None
    layer = [(fields, path)]
    name = read_key(ctx, layer, "name", read_name, "")
    if "name" not in fields:
        ctx.error(node, key_path(path, "name"), "missing (every event needs a name)")
    fmt: Format | None = read_key(ctx, layer, "format", choice(Format), None)
    if "format" not in fields:
        ctx.error(node, key_path(path, "format"), f"missing (one of {', '.join(Format)})")
    if fmt:
        for key in [k for k in fields if k not in ("name", "format", "game", *_FORMAT_KEYS[fmt])]:
            ctx.error(fields[key], key_path(path, key), f"does not apply to format {fmt}")
    game = parse_game(ctx, [*game_layers, *sublayers(ctx, layer, "game", GAME_KEYS)])
    keys = _Keys(ctx, node, path, fields, fmt)
    common = {"name": name, "game": game, "line": node.start_mark.line + 1}
    event = _compare(keys, known, common) if fmt == Format.COMPARE else _seated(keys, known, common)
    for acpc_bot in [b for b in event.bots if known[b].protocol == BotProtocol.ACPC]:
        reason = unsupported(game, seats=event.table_size, freezeout=isinstance(event, Freezeout))
        if reason:
            ctx.error(node, path, f"bot {acpc_bot!r} speaks ACPC, which cannot play this event: {reason}")
            break
    return event


def _bots_of(known: Mapping[str, LeagueBot]) -> Callable[[Ctx, Node, str], list[str] | None]:
    """A reader of a list of distinct names of known bots."""
    return lambda c, n, p: _bot_names(c, n, p, known)


def _compare(keys: _Keys, known: Mapping[str, LeagueBot], common: dict[str, Any]) -> Compare:
    """A compare event: the two versions, their field and the question asked (``CompareSettings``)."""
    new = keys.required("new", _known_bot(known), None)
    old = keys.required("old", _known_bot(known), None)
    if new is not None and new == old:
        keys.error("old", f"new and old are the same bot {new!r}")
    no_field: list[str] = []
    field_ = keys.read("field", _bots_of(known), no_field)
    for name_ in {new, old} & set(field_):
        keys.error("field", f"{name_!r} is compared, it cannot be in the field too")
    if keys.read("duplicate", read_bool, True) is False:
        keys.error("duplicate", "compare always plays duplicate")
    d = CompareSettings()
    worse = keys.read("worse_than", read_float, d.worse_than)
    better = keys.read("better_than", read_float, d.better_than)
    if worse >= better:
        at = pick_key(keys.layer, "better_than") or pick_key(keys.layer, "worse_than")
        assert at is not None  # the defaults are ordered, so one of them was given
        keys.ctx.error(at[0], at[1], f"worse_than ({worse}) must be below better_than ({better})")
    settings = CompareSettings(
        worse_than=worse,
        better_than=better,
        until_significant=keys.read("until_significant", read_bool, d.until_significant),
        test=keys.read("test", choice(TestKind), d.test),
        alpha=keys.read("alpha", float_between(0, 0.5, open_=True), d.alpha),
        beta=keys.read("beta", float_between(0, 0.5, open_=True), d.beta),
    )
    hands = keys.required("hands", integer(1, most=MAX_HANDS), 1)
    bots = tuple(b for b in (new, old, *field_) if b)
    # new and old are None only after an error: the event is then not kept
    return Compare(
        **common, bots=bots, new=new or "", old=old or "", field=tuple(field_), hands=hands, settings=settings
    )


def _seated(keys: _Keys, known: Mapping[str, LeagueBot], common: dict[str, Any]) -> AnyEvent:
    """A round-robin, gauntlet or freezeout event (or, without a valid format, one read for its errors)."""
    fmt = keys.fmt
    bots = tuple(keys.read("bots", _bots_of(known), list(known)))
    table_size = keys.required("table_size", integer(2, MAX_TABLE), 2) if fmt else 2
    challenger = ""  # unset only after an error: the event is then not kept
    if fmt == Format.GAUNTLET:
        challenger = keys.required("challenger", _known_bot(known), None) or ""
        if challenger and challenger not in bots:
            bots = (challenger, *bots)
    if "table_size" in keys.fields and table_size > len(bots):
        keys.error("table_size", f"table of {table_size} is larger than the {len(bots)} bots of this event")
    seated = {**common, "bots": bots, "table_size": table_size}
    if fmt == Format.FREEZEOUT:
        return _freezeout(keys, seated)
    hands = keys.required("hands", integer(1, most=MAX_HANDS), 1) if fmt else 1
    cash = {**seated, "hands": hands, "duplicate": keys.read("duplicate", read_bool, True)}
    meetings = keys.read("meetings", integer(1, most=MAX_MEETINGS), 1)
    if fmt == Format.GAUNTLET:
        return Gauntlet(**cash, meetings=meetings, challenger=challenger)
    return RoundRobin(**cash, meetings=meetings)


def _freezeout(keys: _Keys, seated: dict[str, Any]) -> Freezeout:
    """A freezeout event: its blind levels, the hands before they rise and at most, and the points of each place."""
    bots = seated["bots"]
    default_points = tuple(range(len(bots) - 1, -1, -1))
    points = keys.read("points", _points, default_points)
    if len(points) > len(bots):
        keys.error("points", f"points for {len(points)} places but the event has {len(bots)} bots")
    no_levels: tuple[tuple[int, int, int], ...] = ()
    return Freezeout(
        **seated,
        blind_levels=keys.required("blind_levels", _levels, no_levels),
        hands_per_level=keys.required("hands_per_level", integer(1, most=MAX_HANDS), 1),
        max_hands=keys.read("max_hands", integer(1, most=MAX_HANDS), MAX_HANDS_DEFAULT),
        points=points,
    )
