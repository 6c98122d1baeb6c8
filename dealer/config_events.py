"""The ``events:`` of a league file read into event records, each checked against its format's
keys and the league's bots."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from yaml.nodes import Node

from dealer.acpc_game import unsupported
from dealer.choices import Format, TestKind
from dealer.config_game import _GAME_KEYS, _parse_game
from dealer.config_read import (
    MAX_HANDS,
    MAX_MEETINGS,
    MAX_POINTS,
    MAX_TABLE,
    T,
    _any_float,
    _blinds,
    _bool,
    _choice,
    _Ctx,
    _float,
    _int,
    _join,
    _Layer,
    _list,
    _mapping,
    _name,
    _pick,
    _read,
    _str,
    _sublayers,
    _suggest,
)
from dealer.events import CompareSettings, EventSpec

if TYPE_CHECKING:
    from dealer.config import LeagueBot

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
