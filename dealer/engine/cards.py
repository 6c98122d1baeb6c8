"""Cards, and decks that are reproducible from a seed on any platform and in any language.

A card is an ``int`` from 0 to 51: ``rank * 4 + suit`` with ranks ``23456789TJQKA`` (0..12) and
suits ``cdhs`` (0..3). Its text form is rank then suit, for example ``"Ah"``.

Seeded shuffle (the specification a bot in another language can reimplement):

1. The key is the seed as UTF-8 bytes (integers are written in decimal first).
2. The random stream is SHA-256(key || counter), counter = 0, 1, 2, ... as 8-byte big-endian;
   each 32-byte digest yields eight 32-bit big-endian unsigned integers, used in order.
3. ``uniform(m)``: draw ``u``; if ``u >= 2**32 - 2**32 % m`` draw again; else return ``u % m``.
4. Start from the canonical deck 0..51 and for ``i`` from 0 to 50 swap position ``i`` with
   position ``i + uniform(52 - i)`` (forward Fisher-Yates). The deck is dealt from position 0.
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from collections.abc import Iterable, Sequence
from typing import Final

from dealer.errors import CardError

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
DECK_SIZE: Final = 52
CARD_NAMES: Final[tuple[str, ...]] = tuple(r + s for r in RANKS for s in SUITS)
_CARD_INDEX: Final = {name: i for i, name in enumerate(CARD_NAMES)}
# Shuffle step i draws ``uniform(_MODULI[i])``, whose words from ``_BOUNDS[i]`` up are rejected.
_MODULI: Final = tuple(range(DECK_SIZE, 1, -1))
_BOUNDS = tuple(2**32 - 2**32 % m for m in _MODULI)
_NEVER_REJECTED = min(_BOUNDS)  # a word below every bound
# The unpackers of ``_words``: a shuffle first takes at most 7 blocks (51 words), then one more
# block at a time on the rare rejections.
_WORDS: Final = [struct.Struct(f">{8 * count}I") for count in range(8)]
_COUNTERS: Final = [k.to_bytes(8, "big") for k in range(8)]  # the counters of those first blocks
_CANONICAL: Final = tuple(range(DECK_SIZE))  # the deck before the shuffle


def parse_card(text: str) -> int:
    """Return the card for its two-character name, such as ``"Td"``."""
    try:
        return _CARD_INDEX[text[0].upper() + text[1:].lower()] if len(text) == 2 else _CARD_INDEX[text]
    except KeyError:
        raise CardError(f"not a card: {text!r} (expected rank of {RANKS} then suit of {SUITS})") from None


def parse_cards(text: str) -> list[int]:
    """Return the cards of a concatenated string such as ``"AhKd"`` (spaces allowed)."""
    text = text.replace(" ", "")
    if len(text) % 2:
        raise CardError(f"not a list of cards: {text!r}")
    return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def card_name(card: int) -> str:
    """Return the two-character name of a card."""
    return CARD_NAMES[card]


def cards_text(cards: Iterable[int]) -> str:
    """Return cards as one concatenated string, as PHH writes them (``"AhKd"``)."""
    return "".join(CARD_NAMES[c] for c in cards)


def _words(key: bytes, start: int, count: int) -> tuple[int, ...]:
    """Blocks ``start``.. of the SHA-256 counter stream, as 32-bit words (8 per block)."""
    sha256 = hashlib.sha256
    if start + count <= len(_COUNTERS):
        counters = _COUNTERS[start : start + count]
    else:
        counters = [k.to_bytes(8, "big") for k in range(start, start + count)]
    # joined, not ``key + counter``: compiled by mypyc 1.19, a sum passed to a call is never freed (a leak per deal)
    digests = b"".join([sha256(b"".join((key, counter))).digest() for counter in counters])
    return _WORDS[count].unpack(digests)


def seed_key(seed: int | str) -> bytes:
    """Return the byte key of a seed (integers in decimal, then UTF-8)."""
    return str(seed).encode("utf-8")


def shuffled_deck(seed: int | str | None = None, cards: int = DECK_SIZE) -> list[int]:
    """Return a shuffled deck: reproducible from ``seed``, else from the OS's secure source.

    With ``cards`` < 52 only the first ``cards`` steps of the shuffle run: the first ``cards``
    positions are final after them, so the cards dealt are exactly those of the full shuffle.
    """
    deck = list(_CANONICAL)
    if seed is None:
        secrets.SystemRandom().shuffle(deck)
        return deck
    key = seed_key(seed)
    steps = min(cards, DECK_SIZE - 1)
    if steps <= 0:
        return deck
    words = _words(key, 0, (steps + 7) // 8)  # rejections are rare: no spare block
    never_rejected: int = _NEVER_REJECTED  # a global read once (compiled, each read is a lookup)
    for i in range(steps):
        # The rule while no word is rejected: step i uses word i (typed: machine ints when compiled).
        word: int = words[i]
        if word >= never_rejected:  # it may be: start again by the rule's loop
            deck = list(_CANONICAL)
            break
        j = i + word % (DECK_SIZE - i)
        deck[i], deck[j] = deck[j], deck[i]
    else:
        return deck
    w = 0
    for i in range(steps):
        while True:
            if w == len(words):
                words += _words(key, w // 8, 1)
            u = words[w]
            w += 1
            if u < _BOUNDS[i]:
                break
        j = i + u % _MODULI[i]
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def check_distinct(cards: Sequence[int]) -> None:
    """Raise ``CardError`` unless every card is valid and appears at most once."""
    bits = 0  # a bit per card, 52 bits: compiled, a machine word, where a set hashed every card (per deal)
    for c in cards:
        if not 0 <= c < DECK_SIZE or bits >> c & 1:
            break
        bits |= 1 << c
    else:
        return
    distinct = set(cards)
    if len(distinct) != len(cards):
        seen: set[int] = set()
        for c in cards:
            if c in seen:
                raise CardError(f"card dealt twice: {CARD_NAMES[c]}")
            seen.add(c)
    for c in cards:
        if not 0 <= c < DECK_SIZE:
            raise CardError(f"not a card: {c!r}")
