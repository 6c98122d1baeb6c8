"""Finished hands as PHH (the Poker Hand History format, TOML), the record PokerKit replays.

``phh_text`` writes one hand; ``PhhsWriter`` appends hands to a ``.phhs`` file of tables
``[1]``, ``[2]``, ... as they are played (buffered, so a long match keeps no texts in memory).
Players ``p1``..``pN`` are the hand's positions 0..N-1 (p1 first left of the button; heads-up
p1 is the big blind), so every per-player array is in position order. Variant codes: ``NT``
no-limit, ``FT`` fixed-limit, and ``PLT`` for pot-limit hold'em, a code of our own: PHH defines
none and PokerKit's ``HandHistory`` cannot read it (replay such hands with a ``pokerkit.State``
built with ``BettingStructure.POT_LIMIT``).

Forced bets, uncalled bets, pots and burns are implied, not written. At an all-in showdown the
``sm`` actions come where PokerKit shows (when the betting ends, before the run-out's boards),
in the engine's showdown order. The house's take goes in ``_rake``: PokerKit 0.7.7 reads a plain
``rake`` key as its rake function and fails. Fields of our own start with ``_``; ``_seed`` and
``_deck`` are refused so that no history can leak how decks are made.

``phh_text`` runs once per hand in the dealer's loop, so it writes the fields it knows directly
(JSON's text of ints and strings, which TOML reads alike), caches the lines of the stakes, and
reads the hand's events once; other values go through the generic ``_toml``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring
from pathlib import Path
from typing import Final

from dealer.engine.cards import CARD_NAMES
from dealer.engine.memo import remember
from dealer.engine.rules import (
    MAX_SEATS,
    Acted,
    Dealt,
    Hand,
    Raked,
    Shown,
    TableConfig,
    Variant,
)

VARIANT_CODES: Final = {Variant.NO_LIMIT: "NT", Variant.FIXED_LIMIT: "FT", Variant.POT_LIMIT: "PLT"}
FORBIDDEN_FIELDS: Final = frozenset({"_seed", "_deck"})

Value = bool | int | float | str | Sequence[bool | int | float | str]
_json: Final = json.JSONEncoder(ensure_ascii=False).encode  # one encoder: json.dumps with options builds one a call
_int: Final = int.__repr__  # JSON's text of an int or int subclass, without an encoder call (a bool gives 1/0)
_FIELD_ERROR: Final = "extra PHH field {!r} must start with '_' and not be " + f"{sorted(FORBIDDEN_FIELDS)} or ours"
# The action texts of position k, precomputed: decisions, and the prefixes of deals and shows.
_PLAYERS: Final = tuple(f"p{k + 1}" for k in range(MAX_SEATS))
_DEALS: Final = tuple(f"d dh {p} " for p in _PLAYERS)
_SHOWS: Final = tuple(f"{p} sm " for p in _PLAYERS)
_BETS: Final = tuple(f"{p} cbr " for p in _PLAYERS)
_DECISIONS: Final = {
    "fold": tuple(f"{p} f" for p in _PLAYERS),
    "check": tuple(f"{p} cc" for p in _PLAYERS),
    "call": tuple(f"{p} cc" for p in _PLAYERS),
}  # bets and raises are written with their totals: ``_BETS``
# The engine's records' classes as the compiled module's constants: compiled, a class's name is a module
# lookup at each use, and each of a hand's records is checked against several.
_ACTED: Final = Acted
_DEALT: Final = Dealt
_SHOWN: Final = Shown
_RAKED: Final = Raked
_HEADERS: Final[dict[tuple[object, ...], str]] = {}  # the lines of ``_header`` by the stakes they depend on
_HEADERS_KEPT: Final = 4096  # the cache is cleared when it grows past this (stakes rarely vary)
_PLAYERS_LINES: Final[dict[tuple[object, ...], str]] = {}  # players' lines by their names (in position order)


def _actions(hand: Hand) -> tuple[list[str], int]:
    """Return the PHH action lines of a hand and its rake, in one pass over its events."""
    names, position, hole = CARD_NAMES, hand.position, hand.hole
    actions = [f"{_DEALS[k]}{names[hole[s][0]]}{names[hole[s][1]]}" for k, s in enumerate(hand.order)]
    append = actions.append
    shows = []
    raked = 0
    runout_at = None  # index in ``actions`` of the first board dealt after the betting ended
    for event in hand.events:
        if type(event) is _ACTED:
            texts = _DECISIONS.get(event[1])
            append(texts[position[event[0]]] if texts else f"{_BETS[position[event[0]]]}{event[3]}")
            runout_at = None
        elif type(event) is _DEALT:
            if runout_at is None:
                runout_at = len(actions)
            append("d db " + "".join([names[c] for c in event[1]]))
        elif type(event) is _SHOWN:
            seat, (first, second), _ = event
            shows.append(f"{_SHOWS[position[seat]]}{names[first]}{names[second]}")
        elif type(event) is _RAKED:
            raked += event[0]
    if shows:
        if runout_at is None:
            actions += shows
        else:
            actions[runout_at:runout_at] = shows
    return actions, raked


def phh_text(
    hand: Hand,
    *,
    names: Sequence[str] | None = None,
    hand_number: int | None = None,
    table_seats: Sequence[int] | None = None,
    seat_count: int | None = None,
    extra: Mapping[str, Value] | Fields | None = None,
) -> str:
    """Return a finished hand as PHH text; ``names`` are by seat, ``extra`` keys start with ``_`` (or
    are ``Fields`` checked and written already).

    ``table_seats`` maps the hand's seats to the table's (when busted seats sit out of a
    freezeout hand) and ``seat_count`` is the table's size; both default to the hand's own.
    """
    config = hand.config
    order = hand.order  # seats by position: by-position lists are read in this order
    key = (config.variant, config.ante, config.small_blind, config.big_blind, config.small_bet, config.big_bet, hand.n)
    header = _HEADERS.get(key)
    if header is None:
        header = remember(_HEADERS, key, _header(config), _HEADERS_KEPT)
    stacks = config.stacks
    actions, raked = _actions(hand)
    final = hand.final_stacks()
    parts = [
        header,
        "starting_stacks = [",
        ", ".join([_decimal(stacks[s]) for s in order]),
        ']\nactions = ["',
        '", "'.join(actions),
        '"]\nfinishing_stacks = [',
        ", ".join([_decimal(final[s]) for s in order]),
        "]\n",
    ]
    if names is not None:
        parts.append(_players_line([names[s] for s in order]))
    if hand_number is not None:
        parts += ("hand = ", str(hand_number) if type(hand_number) is int else _toml(hand_number), "\n")
    seats = [str(s + 1) for s in order] if table_seats is None else [str(table_seats[s] + 1) for s in order]
    parts += ("seats = [", ", ".join(seats), "]\nseat_count = ")
    seat_count = seat_count or hand.n
    parts += (str(seat_count) if type(seat_count) is int else _toml(seat_count), "\n")
    if raked:
        parts += ("_rake = ", _decimal(raked), "\n")
    if isinstance(extra, Fields):
        if raked and extra.rake:
            raise ValueError(_FIELD_ERROR.format("_rake"))
        parts.append(extra.lines)
    elif extra:
        parts.append(_write_extra(extra, raked > 0))
    return "".join(parts)


class Fields:
    """Fields of our own (``phh_text``'s ``extra``) for many hands, checked and written once: a table's are
    the same at every hand. ``phh_text`` still refuses a ``_rake`` among them in a raked hand."""

    __slots__ = ("lines", "rake")

    def __init__(self, extra: Mapping[str, Value]) -> None:
        self.lines = _write_extra(extra, False)
        self.rake = "_rake" in extra


def _decimal(value: int) -> str:
    """An int's text, as ``_int`` writes it (a bool gives 1/0) but compiled: ``str`` of a machine int, not a call."""
    return str(int(value))


def _players_line(players: list[str]) -> str:
    """The ``players`` line of these names (in position order), remembered: a table's come back hand after hand."""
    try:
        key = tuple(players)
        line = _PLAYERS_LINES.get(key)
        if line is None:
            line = remember(
                _PLAYERS_LINES, key, "".join(("players = [", ", ".join(map(encode_basestring, players)), "]\n")),
                _HEADERS_KEPT,
            )  # fmt: skip
    except TypeError:  # not all strings: the generic writer
        line = "".join(("players = ", _toml(players), "\n"))
    return line


def _write_extra(extra: Mapping[str, Value], raked: bool) -> str:
    """The lines of the fields of our own, each checked: it starts with ``_``, and is not forbidden nor ours."""
    parts: list[str] = []
    for field, value in extra.items():
        if not field.startswith("_") or field in FORBIDDEN_FIELDS or (raked and field == "_rake"):
            raise ValueError(_FIELD_ERROR.format(field))
        text = encode_basestring(value) if type(value) is str else _int(value) if type(value) is int else _toml(value)
        parts += (field, " = ", text, "\n")
    return "".join(parts)


def _header(config: TableConfig) -> str:
    """Return the PHH lines of a table's stakes (variant, antes, blinds, bet sizes)."""
    n = config.seats
    blinds = [0] * n
    blinds[0], blinds[1] = config.small_blind, config.big_blind  # heads-up PHH reverses this too
    lines = [
        f'variant = "{VARIANT_CODES[config.variant]}"',
        "ante_trimming_status = true",
        f"antes = [{', '.join([_int(config.ante)] * n)}]",
        f"blinds_or_straddles = [{', '.join(map(_int, blinds))}]",
    ]
    if config.variant is Variant.FIXED_LIMIT:
        lines += (f"small_bet = {_int(config.bet_size(0))}", f"big_bet = {_int(config.bet_size(2))}")
    else:
        lines.append(f"min_bet = {_int(config.big_blind)}")
    return "".join(line + "\n" for line in lines)


class PhhsWriter:
    """A ``.phhs`` file written hand by hand: texts are buffered and appended a chunk at a time
    (no fsync), so memory stays flat however long the match. Creating it truncates the file."""

    def __init__(self, path: Path, chunk_chars: int = 1 << 14) -> None:
        self.path = path
        self.chunk_chars = chunk_chars
        self.hands = 0
        self._parts: list[str] = []
        self._size = 0
        path.write_text("", encoding="utf-8")

    def add(self, text: str) -> None:
        """Append one hand's PHH text as the next table ``[k]`` (blank line between tables)."""
        self.hands += 1
        self._parts.append(f"[{self.hands}]\n" if self.hands == 1 else f"\n[{self.hands}]\n")
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self.chunk_chars:
            self.flush()

    def flush(self) -> None:
        """Write what is buffered to the file."""
        if self._parts:
            with self.path.open("a", encoding="utf-8") as file:
                file.write("".join(self._parts))
            self._parts.clear()
            self._size = 0


def _toml(value: Value) -> str:
    """Return a TOML literal for a scalar or a flat list (JSON's string escapes are TOML's).

    For the values ``phh_text`` has no faster path for: ``extra``'s lists and floats, names that are
    not all strings.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return _json(value)
    if not any(isinstance(item, bool) for item in value):
        return _json(list(value))
    return "[" + ", ".join(_toml(item) for item in value) + "]"
