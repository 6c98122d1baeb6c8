"""Protobuf's wire encoding written by hand, the primitives of ``dealer.connect.wire``: varints, field
keys, remembered encodings of integers, packed fields and framed items. Knows no message of ours
but the one framing an item (DealerMessage.items, field 1) and Item.table (field 1).

Bytes are joined, never chained with ``+`` (a + b + c): compiled by mypyc 1.19, the chain's
intermediate is never freed: a leak of every hand's items (``benchmarks/memory.py`` shows it as growth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar, final

from dealer.engine.cards import CARD_NAMES

T = TypeVar("T")
_ITEMS_TAG: Final = b"\x0a"  # DealerMessage.items is field 1, length-delimited
_MASK64: Final = (1 << 64) - 1
_MEMO_LIMIT = 1 << 14  # values remembered per encoding table, about 2 MB at most (others: encoded at each use)
_BY_VALUE: Final = 1 << 16  # values below are remembered in a list indexed by the value (at most 512 kB)


def _varint(value: int) -> bytes:
    """Protobuf's base-128 varint; a negative int64 as its 64-bit two's complement (10 bytes)."""
    if 0 <= value < 0x200000:  # up to three bytes without the loop: request ids, amounts
        if value < 0x80:
            return bytes((value,))
        if value < 0x4000:
            return bytes((value & 0x7F | 0x80, value >> 7))
        return bytes((value & 0x7F | 0x80, value >> 7 & 0x7F | 0x80, value >> 14))
    if value < 0:
        value &= _MASK64
    elif value < 1 << 56:  # up to eight bytes (decision seeds): gathered in one word, a machine int when compiled
        word = size = 0
        while value > 0x7F:
            word |= (value & 0x7F | 0x80) << size
            value >>= 7
            size += 8
        return (word | value << size).to_bytes(size // 8 + 1, "little")
    out: list[int] = []  # not a bytearray: compiled, its appends are calls; a list's are inline
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire_type: int) -> bytes:
    """A field's key: its number and wire type (0 varint, 2 length-delimited)."""
    return _varint(number << 3 | wire_type)


@final
class _Encodings:
    """Integers' encodings, remembered: a bare varint, or with ``number`` a whole varint field.

    A field's encoding of 0 is empty, as proto3 leaves default values out. With ``head``, every encoding of
    the field starts with those bytes (the fields before it, when they are constant). Values from 0 to _BY_VALUE - 1
    are remembered in a list indexed by the value (compiled, an index and a length check: a dict's lookup
    cost ten times as much, with the value boxed as an int object to hash it), others in a dict; at most
    _MEMO_LIMIT values in all (others: encoded at each use).
    """

    __slots__ = ("beyond", "by_value", "head", "kept", "key")

    def __init__(self, number: int | None = None, head: bytes = b"") -> None:
        self.key = None if number is None else _tag(number, 0)
        self.head = head
        self.by_value: list[bytes | None] = []  # grown on demand up to _BY_VALUE (None: not encoded yet)
        self.beyond: dict[int, bytes] = {}  # the values outside the list's range
        self.kept = 0  # values remembered, in both

    def __getitem__(self, value: int) -> bytes:
        by_value = self.by_value
        if 0 <= value < len(by_value):
            encoded = by_value[value]
            if encoded is not None:
                return encoded
        elif value < 0 or value >= _BY_VALUE:
            found = self.beyond.get(value)
            if found is not None:
                return found
        return self._encode(value)

    def _encode(self, value: int) -> bytes:
        """``value``'s encoding, remembered while fewer than _MEMO_LIMIT are."""
        if self.key is None:
            encoded = _varint(value)
        elif value:
            encoded = b"".join((self.head, self.key, _varint(value)))
        else:
            encoded = self.head  # a zero field is left out
        if self.kept < _MEMO_LIMIT:
            self.kept += 1
            if 0 <= value < _BY_VALUE:
                by_value = self.by_value
                if value >= len(by_value):  # grown to twice its size at least: a few growths in all
                    by_value.extend([None] * (min(max(value + 1, 2 * len(by_value)), _BY_VALUE) - len(by_value)))
                by_value[value] = encoded
            else:
                self.beyond[value] = encoded
        return encoded


_VARINT: Final = _Encodings()  # bare varints: lengths and packed elements
_ITEM_TABLE: Final = _Encodings(1)  # Item.table
_FIELDS: Final = [_Encodings(number) for number in range(20)]  # varint fields by number (of any message)


def _card_field(number: int) -> tuple[bytes, ...]:
    """One card as an element of the repeated string field ``number``, by card."""
    key = _tag(number, 2)
    return tuple(key + b"\x02" + name.encode() for name in CARD_NAMES)


def by_table_seat(values: Sequence[T], seat_map: list[int], table_seats: int, absent: T) -> Sequence[T]:
    """Engine-seat values laid out by table seat; seats not dealt in (freezeout) get ``absent``."""
    if len(seat_map) == table_seats:  # every seat is dealt in: engine seats are table seats
        return values
    laid_out = [absent] * table_seats
    for engine_seat, table_seat in enumerate(seat_map):
        laid_out[table_seat] = values[engine_seat]
    return laid_out


def _varints(values: Sequence[int]) -> bytes:
    """The varints of ``values`` one after another: a packed repeated field's body."""
    if len(values) == 2:  # heads-up, the common table, without the join
        first, second = values
        return _VARINT[first] + _VARINT[second]
    return b"".join([_VARINT[value] for value in values])


def frame_head(heads: list[bytes | None], head: bytes, body: int) -> bytes:
    """An ``items`` entry up to its message's body of ``body`` bytes (the frame's key and size, the Item's
    fields ``head`` up to its message's key, the message's size), remembered in ``heads`` by ``body`` (the
    heads of one ``head``): one part of a join where there were four."""
    if body < len(heads):
        found = heads[body]
        if found is not None:
            return found
    size = _VARINT[body]
    made = b"".join((_ITEMS_TAG, _VARINT[len(head) + len(size) + body], head, size))
    if body < len(heads):
        heads[body] = made
    return made


HEADS: Final = 256  # the message sizes up to which a frame's head is remembered (``frame_head``)
_PAIRS: Final = tuple(bytes((x & 0x7F | 0x80, x >> 7 | 0x80)) for x in range(1 << 14))  # 14 bits, more follow
_LAST_PAIRS: Final = tuple(bytes((x & 0x7F | 0x80, x >> 7)) for x in range(1 << 11))  # the last 11 bits (and 0s)


def long_varint(value: int) -> tuple[bytes, bytes, bytes, bytes]:
    """The varint of ``value`` in four parts: from the tables of its 14-bit groups where it has 50 to 53 bits
    (eight bytes; decision seeds, ``dealer.league.seeds``), else whole in the first part."""
    if 1 << 49 <= value < 1 << 53:
        pairs = _PAIRS
        return pairs[value & 0x3FFF], pairs[value >> 14 & 0x3FFF], pairs[value >> 28 & 0x3FFF], _LAST_PAIRS[value >> 42]
    return _varint(value), b"", b"", b""


def _message(key: bytes, body: bytes) -> bytes:
    """A length-delimited field: key, length, body."""
    return b"".join((key, _VARINT[len(body)], body))
