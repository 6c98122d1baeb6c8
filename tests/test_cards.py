"""Tests of cards and the seeded shuffle: golden decks (the cross-language contract), partial
shuffles, permutations, determinism, the rare rejection path, and card parsing errors."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealer.engine import cards
from dealer.engine.cards import DECK_SIZE, card_name, cards_text, check_distinct, parse_card, parse_cards, shuffled_deck
from dealer.errors import CardError

# Recorded from the implementation of the specification in dealer/engine/cards.py; a bot in another
# language that reimplements the shuffle must reproduce them.
GOLDEN_DECKS = {
    2026: "4c5c4hQdAsAh9s9c4sJs9h8h6cKc2hTsAd8d3cTdKd5h2s2c7d6h8s2d3s7cQsQh5dJd3hKhTc4dThJh9d8cJc7hAc5sQc3d6s7sKs6d",
    0: "QdTh3s2h7hKhAs9hJh2d9sKdTs5hQhTc9dAd4d3d2s6hAh6d4h8d7c4c7d9c5sAc6cJs8s7sQs8hJcKc2c5d3h5cQc4sKs6s3cTdJd8c",
    "league-7": (
        "7cJhJsTd6c2h3s4s8d4h2cThKd8c7dQdKcQcAh7h3d9h9sTs2dQs6h3h5cJcJd5dKhAc6d8h8s4d7s2s9d6sKsQhAdTcAs4c9c5s3c5h"
    ),
}


def reference_deck(seed: int | str, bounds: tuple[int, ...] | None = None) -> list[int]:
    """The specification of the module docstring, written plainly (``bounds``: override of the
    rejection bounds of ``uniform(52 - i)`` by step, to force rejections)."""
    key = str(seed).encode("utf-8")
    stream: list[int] = []
    counter = 0

    def draw() -> int:
        nonlocal counter
        if not stream:
            digest = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
            stream.extend(int.from_bytes(digest[k : k + 4], "big") for k in range(0, 32, 4))
            counter += 1
        return stream.pop(0)

    deck = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1):
        m = DECK_SIZE - i
        bound = bounds[i] if bounds else 2**32 - 2**32 % m
        while (u := draw()) >= bound:
            pass
        j = i + u % m
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_golden_first_cards() -> None:
    assert cards_text(shuffled_deck(2026)[:9]) == "4c5c4hQdAsAh9s9c4s"
    assert cards_text(shuffled_deck(2026, 9)[:9]) == "4c5c4hQdAsAh9s9c4s"


@pytest.mark.parametrize("seed", list(GOLDEN_DECKS))
def test_golden_full_decks(seed: int | str) -> None:
    assert cards_text(shuffled_deck(seed)) == GOLDEN_DECKS[seed]
    assert cards_text(reference_deck(seed)) == GOLDEN_DECKS[seed]


def test_integer_and_string_seeds_are_the_same_key() -> None:
    assert shuffled_deck(2026) == shuffled_deck("2026")


@pytest.mark.parametrize("seed", [*range(300), "abc", "", "héllo", 2**70, -5])
def test_matches_the_reference_and_partial_shuffles_deal_the_same_cards(seed: int | str) -> None:
    full = shuffled_deck(seed)
    assert full == reference_deck(seed)
    for count in (0, 1, 4, 8, 9, 12, 20, 51):
        assert shuffled_deck(seed, count)[:count] == full[:count]
    assert shuffled_deck(seed, 60) == full


def test_rejected_words_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    # With the bounds cut to a third, about two words in three are rejected: this runs the
    # rare path that draws further blocks.
    bounds = tuple(b // 3 for b in cards._BOUNDS)
    monkeypatch.setattr(cards, "_BOUNDS", bounds)
    monkeypatch.setattr(cards, "_NEVER_REJECTED", min(bounds))
    for seed in range(200):
        full = reference_deck(seed, bounds)
        assert shuffled_deck(seed) == full
        assert shuffled_deck(seed, 12)[:12] == full[:12]


@given(st.one_of(st.integers(), st.text(max_size=20)), st.integers(min_value=0, max_value=60))
def test_every_deck_is_a_permutation_and_every_seed_gives_one_deck(seed: int | str, count: int) -> None:
    deck = shuffled_deck(seed, count)
    assert sorted(deck) == list(range(DECK_SIZE))
    assert shuffled_deck(seed, count) == deck


def test_unseeded_decks_are_permutations() -> None:
    decks = [shuffled_deck() for _ in range(5)]
    assert all(sorted(deck) == list(range(DECK_SIZE)) for deck in decks)
    assert len({tuple(deck) for deck in decks}) > 1


def test_parse_card_and_names() -> None:
    assert parse_card("Ah") == 50 and parse_card("ah") == 50 and parse_card("AH") == 50
    assert parse_card("2c") == 0 and card_name(51) == "As"
    assert all(parse_card(card_name(card)) == card for card in range(DECK_SIZE))
    assert parse_cards("AhKd") == [50, 45] and parse_cards("Ah Kd 2c") == [50, 45, 0] and parse_cards("") == []


@pytest.mark.parametrize("text", ["", "A", "Ahh", "1h", "Ax", "hA", "10h"])
def test_parse_card_errors(text: str) -> None:
    with pytest.raises(CardError, match="not a card"):
        parse_card(text)


def test_parse_cards_errors() -> None:
    with pytest.raises(CardError, match="not a list of cards"):
        parse_cards("AhK")
    with pytest.raises(CardError, match="not a card"):
        parse_cards("AhKx")


def test_check_distinct() -> None:
    check_distinct([])
    check_distinct(list(range(DECK_SIZE)))
    with pytest.raises(CardError, match="dealt twice: Ah"):
        check_distinct([50, 1, 50])
    with pytest.raises(CardError, match="not a card"):
        check_distinct([0, 52])
    with pytest.raises(CardError, match="not a card"):
        check_distinct([-1, 3])
