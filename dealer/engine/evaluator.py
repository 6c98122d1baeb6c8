"""Poker hand values: ``evaluate`` ranks the best five-card hand among 5, 6 or 7 cards.

A value is ``category << 20`` followed by up to five 4-bit ranks that break ties (the ranks of
the groups, largest groups first, then the kickers), so higher is better and equal values tie.

Speed comes from tables built at import. Each card has a key that adds its rank's power of 5 (a
base-5 digit per rank, so a sum identifies the rank multiset) above a 4-bit counter for its suit
(counters start at 3, so bit 3 of a counter is set exactly when that suit has five cards). A
hand without a flush is one dict lookup keyed by its rank multiset; a flush (in which no full
house or quads can also hide among seven cards) is one list lookup keyed by that suit's ranks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations_with_replacement
from typing import Final

CATEGORY_NAMES: tuple[str, ...] = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
_HIGH_CARD, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL_HOUSE, _QUADS, _STRAIGHT_FLUSH = range(9)

_POW5: Final = tuple(5**rank for rank in range(13))
_SUIT_SHIFT: Final = 16  # the rank multiset key sits above the four suit counters
_SUIT_START: Final = 0x3333
_FIVE_OF_A_SUIT: Final = 0x8888
_CARD_KEY: Final = tuple(_POW5[card >> 2] << _SUIT_SHIFT | 1 << 4 * (card & 3) for card in range(52))
_CARD_BIT: Final = tuple(1 << (card >> 2) for card in range(52))
_FLUSH_SUIT: Final = {0x8 << 4 * suit: suit for suit in range(4)}

# Rank bitmasks of the ten straights, best first, each with the rank of its top card.
_STRAIGHTS = (*((0x1F << low, low + 4) for low in range(8, -1, -1)), (0x100F, 3))
# The category of five cards that make no straight, from their rank group sizes, largest first.
_GROUPS_CATEGORY = {
    (4, 1): _QUADS,
    (3, 2): _FULL_HOUSE,
    (3, 1, 1): _TRIPS,
    (2, 2, 1): _TWO_PAIR,
    (2, 1, 1, 1): _PAIR,
    (1, 1, 1, 1, 1): _HIGH_CARD,
}


def _straight_top(mask: int) -> int:
    """Return the top rank of the best straight within a rank bitmask, or -1 if there is none."""
    for bits, top in _STRAIGHTS:
        if mask & bits == bits:
            return top
    return -1


def _five_value(category: int, ranks: Sequence[int]) -> int:
    """Pack a category and its tie-breaking ranks (most significant first) into a value."""
    value = category
    for rank in ranks:
        value = value << 4 | rank
    return value << 4 * (5 - len(ranks))


def _flush_table() -> list[int]:
    """Return the value of the best flush or straight flush for every rank bitmask of 5+ ranks."""
    table = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() >= 5:
            top = _straight_top(mask)
            if top >= 0:
                table[mask] = _STRAIGHT_FLUSH << 20 | top << 16
            else:
                ranks = [r for r in range(12, -1, -1) if mask >> r & 1]
                table[mask] = _five_value(_FLUSH, ranks[:5])
    return table


def _plain_table() -> dict[int, int]:
    """Return the best non-flush value of every rank multiset of 5, 6 or 7 cards, by its key.

    Five cards are valued directly; six or seven as the best of their hands one card smaller
    (unrolled, as this is most of the import time).
    """
    table: dict[int, int] = {}
    for hand in combinations_with_replacement(range(13), 5):
        if hand[0] == hand[4]:
            continue
        groups = sorted(set(hand), key=lambda r: (hand.count(r), r), reverse=True)
        category = _GROUPS_CATEGORY[tuple(map(hand.count, groups))]
        top = _straight_top(sum(1 << r for r in hand)) if category == _HIGH_CARD else -1
        key = sum(map(_POW5.__getitem__, hand))
        table[key] = _STRAIGHT << 20 | top << 16 if top >= 0 else _five_value(category, groups)
    get, p = table.__getitem__, _POW5
    for a, b, c, d, e, f in combinations_with_replacement(range(13), 6):
        if a != e and b != f:
            key = p[a] + p[b] + p[c] + p[d] + p[e] + p[f]
            table[key] = max(
                get(key - p[a]), get(key - p[b]), get(key - p[c]),
                get(key - p[d]), get(key - p[e]), get(key - p[f]),
            )  # fmt: skip
    for a, b, c, d, e, f, g in combinations_with_replacement(range(13), 7):
        if a != e and b != f and c != g:
            key = p[a] + p[b] + p[c] + p[d] + p[e] + p[f] + p[g]
            table[key] = max(
                get(key - p[a]), get(key - p[b]), get(key - p[c]), get(key - p[d]),
                get(key - p[e]), get(key - p[f]), get(key - p[g]),
            )  # fmt: skip
    return table


_FLUSH_VALUES: Final = _flush_table()
_PLAIN_VALUES: Final = _plain_table()


def evaluate(cards: Sequence[int]) -> int:
    """Return the value of the best five-card hand among 5, 6 or 7 distinct cards.

    Seven cards (hole cards plus board, the hot path) are unpacked rather than looped over: it
    measured faster. Valid, distinct cards are the caller's to ensure (``cards.check_distinct``).
    """
    if len(cards) == 7:
        a, b, c, d, e, f, g = cards
        key = (
            _SUIT_START + _CARD_KEY[a] + _CARD_KEY[b] + _CARD_KEY[c] + _CARD_KEY[d]
            + _CARD_KEY[e] + _CARD_KEY[f] + _CARD_KEY[g]
        )  # fmt: skip
    elif 5 <= len(cards) <= 6:
        key = _SUIT_START
        for card in cards:
            key += _CARD_KEY[card]
    else:
        raise ValueError(f"a hand has 5, 6 or 7 cards, not {len(cards)}")
    if key & _FIVE_OF_A_SUIT:
        suit = _FLUSH_SUIT[key & _FIVE_OF_A_SUIT]
        return _FLUSH_VALUES[sum([_CARD_BIT[c] for c in cards if c & 3 == suit])]
    return _PLAIN_VALUES[key >> _SUIT_SHIFT]


def seven_card_value(key: int, cards: tuple[int, ...], extra: tuple[int, ...]) -> int:
    """The value of ``cards + extra`` (seven cards) from their summed key: one lookup, unless five share a suit.

    For run-out loops, which add each run-out's card keys to a key computed once per seat.
    """
    if key & _FIVE_OF_A_SUIT:
        return evaluate(cards + extra)
    return _PLAIN_VALUES[key >> _SUIT_SHIFT]


def heads_up_showdowns(
    key0: int, cards0: tuple[int, ...], key1: int, cards1: tuple[int, ...], runouts: Iterable[tuple[int, ...]]
) -> tuple[int, int, int]:
    """Over run-outs completing two seats' cards (each seat's key and known cards, summed from
    ``_SUIT_START``): how often the first wins, the second wins, and they tie."""
    keys = _CARD_KEY
    w0 = w1 = ties = 0
    for extra in runouts:
        k = 0
        for c in extra:
            k += keys[c]
        v0 = seven_card_value(key0 + k, cards0, extra)
        v1 = seven_card_value(key1 + k, cards1, extra)
        if v0 > v1:
            w0 += 1
        elif v1 > v0:
            w1 += 1
        else:
            ties += 1
    return w0, w1, ties


def hand_category(value: int) -> int:
    """Return the category of a value: 0 (high card) to 8 (straight flush), as in ``CATEGORY_NAMES``."""
    return value >> 20
