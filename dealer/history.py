"""Finished hands as PHH (the Poker Hand History format, TOML), the record PokerKit replays.

``phh_text`` writes one hand; ``phhs_text``/``write_phhs`` join several into a ``.phhs`` file of
tables ``[1]``, ``[2]``, ... Players ``p1``..``pN`` are the hand's positions 0..N-1 (p1 first
left of the button; heads-up p1 is the big blind), so every per-player array is in position
order. Variant codes: ``NT`` no-limit, ``FT`` fixed-limit, and ``PLT`` for pot-limit hold'em,
a code of our own: PHH defines none and PokerKit's ``HandHistory`` cannot read it (replay such
hands with a ``pokerkit.State`` built with ``BettingStructure.POT_LIMIT``).

Forced bets, uncalled bets, pots and burns are implied, not written. At an all-in showdown the
``sm`` actions come where PokerKit shows (when the betting ends, before the run-out's boards),
in the engine's showdown order. The house's take goes in ``_rake``: PokerKit 0.7.7 reads a plain
``rake`` key as its rake function and fails. Fields of our own start with ``_``; ``_seed`` and
``_deck`` are refused so that no history can leak how decks are made.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from dealer.cards import cards_text
from dealer.rules import Acted, Dealt, Hand, Raked, Shown, Variant

VARIANT_CODES = {Variant.NO_LIMIT: "NT", Variant.FIXED_LIMIT: "FT", Variant.POT_LIMIT: "PLT"}
FORBIDDEN_FIELDS = frozenset({"_seed", "_deck"})

Value = bool | int | float | str | Sequence[bool | int | float | str]
_json = json.JSONEncoder(ensure_ascii=False).encode  # one encoder: json.dumps with options builds one a call


def phh_actions(hand: Hand) -> list[str]:
    """Return the PHH action lines of a finished hand (hole cards, decisions, boards, shows)."""
    position = hand.position
    actions = [f"d dh p{k + 1} {cards_text(hand.hole[s])}" for k, s in enumerate(hand.order)]
    shows = [f"p{position[e.seat] + 1} sm {cards_text(e.cards)}" for e in hand.events if isinstance(e, Shown)]
    runout_at = None  # index in ``actions`` of the first board dealt after the betting ended
    for event in hand.events:
        match event:
            case Acted(seat, kind, _, to, _):
                player = f"p{position[seat] + 1}"
                actions.append(f"{player} cbr {to}" if kind in ("bet", "raise") else f"{player} {'f' if kind == 'fold' else 'cc'}")
                runout_at = None
            case Dealt(_, cards):
                if runout_at is None:
                    runout_at = len(actions)
                actions.append(f"d db {cards_text(cards)}")
    if shows and runout_at is not None:
        return actions[:runout_at] + shows + actions[runout_at:]
    return actions + shows


def phh_text(
    hand: Hand,
    *,
    names: Sequence[str] | None = None,
    hand_number: int | None = None,
    table_seats: Sequence[int] | None = None,
    seat_count: int | None = None,
    extra: Mapping[str, Value] | None = None,
) -> str:
    """Return a finished hand as PHH text; ``names`` are by seat, ``extra`` keys start with ``_``.

    ``table_seats`` maps the hand's seats to the table's (when busted seats sit out of a
    freezeout hand) and ``seat_count`` is the table's size; both default to the hand's own.
    """
    config = hand.config
    order = hand.order
    n = config.seats
    fields: dict[str, Value] = {"variant": VARIANT_CODES[config.variant], "ante_trimming_status": True}
    fields["antes"] = [config.ante] * n
    blinds = [0] * n
    blinds[0], blinds[1] = config.small_blind, config.big_blind  # heads-up PHH reverses this too
    fields["blinds_or_straddles"] = blinds
    if config.variant is Variant.FIXED_LIMIT:
        fields["small_bet"] = config.bet_size(0)
        fields["big_bet"] = config.bet_size(2)
    else:
        fields["min_bet"] = config.big_blind
    fields["starting_stacks"] = [config.stacks[s] for s in order]
    fields["actions"] = phh_actions(hand)
    final = hand.final_stacks()
    fields["finishing_stacks"] = [final[s] for s in order]
    if names is not None:
        fields["players"] = [names[s] for s in order]
    if hand_number is not None:
        fields["hand"] = hand_number
    fields["seats"] = [(table_seats[s] if table_seats is not None else s) + 1 for s in order]
    fields["seat_count"] = seat_count or n
    raked = sum(e.amount for e in hand.events if isinstance(e, Raked))
    if raked:
        fields["_rake"] = raked
    for key, value in (extra or {}).items():
        if not key.startswith("_") or key in FORBIDDEN_FIELDS or key in fields:
            raise ValueError(f"extra PHH field {key!r} must start with '_' and not be {sorted(FORBIDDEN_FIELDS)} or ours")
        fields[key] = value
    return "".join(f"{key} = {_toml(value)}\n" for key, value in fields.items())


def phhs_text(hands: Iterable[str]) -> str:
    """Return PHH texts joined into one ``.phhs`` document of tables ``[1]``, ``[2]``, ..."""
    return "\n".join(f"[{k}]\n{text}" for k, text in enumerate(hands, 1))


def write_phhs(path: str | Path, hands: Iterable[str]) -> None:
    """Write PHH texts to ``path`` as one ``.phhs`` file."""
    Path(path).write_text(phhs_text(hands), encoding="utf-8")


def _toml(value: Value) -> str:
    """Return a TOML literal for a scalar or a flat list (JSON's string escapes are TOML's).

    A list of plain numbers or strings is one encoder call: the hot path of live matches.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return _json(value)
    if not any(isinstance(item, bool) for item in value):
        return _json(list(value))
    return "[" + ", ".join(_toml(item) for item in value) + "]"
