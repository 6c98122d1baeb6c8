"""Tests of the hand evaluator: exhaustive five-card counts, PokerKit agreement, known cases."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pokerkit import Label, StandardHighHand

from dealer.engine.cards import cards_text, parse_cards
from dealer.engine.evaluator import CATEGORY_NAMES, evaluate, hand_category

FIVE_CARD_CATEGORY_COUNTS = {
    "straight flush": 40,
    "four of a kind": 624,
    "full house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three of a kind": 54_912,
    "two pair": 123_552,
    "pair": 1_098_240,
    "high card": 1_302_540,
}


def value(text: str) -> int:
    return evaluate(parse_cards(text))


def category_name(text: str) -> str:
    return CATEGORY_NAMES[hand_category(value(text))]


def test_all_five_card_hands() -> None:
    values = list(map(evaluate, combinations(range(52), 5)))
    counts = Counter(CATEGORY_NAMES[hand_category(v)] for v in values)
    assert counts == FIVE_CARD_CATEGORY_COUNTS
    assert len(set(values)) == 7_462


def test_category_names_order() -> None:
    assert CATEGORY_NAMES[0] == "high card" and CATEGORY_NAMES[8] == "straight flush"
    assert len(CATEGORY_NAMES) == 9


@pytest.mark.parametrize(
    ("worse", "better"),
    [
        ("5h4d3c2hAs", "6h5d4c3h2s"),  # the wheel is the lowest straight
        ("AhKdQcJhTs", "5c4c3c2cAc"),  # the steel wheel straight flush beats any straight
        ("5c4c3c2cAc", "6c5c4c3c2c"),  # ...but is the lowest straight flush
        ("KsKdQsQd9h", "KsKdQsQdTh"),  # two pair: the kicker decides
        ("KsKdQsQdAh", "AsAdKsKd2h"),  # two pair: the top pair counts before the kicker
        ("AsAd3s3dKh", "AsAd4s4d2h"),  # two pair: the second pair counts before the kicker
        ("AhKdQcJhTs", "2h3h4h5h7h"),  # flush beats straight
        ("2h3h4h5h7h", "2c2d2s3c3d"),  # full house beats flush
        ("AsAdAcKhKs", "2c2d2s2h3c"),  # quads beat a full house
        ("2c2d2s2h3c", "5c4c3c2cAc"),  # straight flush beats quads
        ("AsAdKcQh9s", "AsAdKcQhTs"),  # pair: the last kicker counts
        ("AsKdQcJh8s", "AsKdQcJh9h"),  # high card: the fifth card counts
        ("AsAd2c2h3s", "Ac2s3d4h5c"),  # a straight beats two pair
        ("AsAdAc3h2s", "Ac2s3d4h5c"),  # ...and three of a kind
    ],
)
def test_known_orderings(worse: str, better: str) -> None:
    assert value(worse) < value(better)


def test_hand_written_cases() -> None:
    assert category_name("5h4d3c2hAs") == "straight"
    assert category_name("5c4c3c2cAc") == "straight flush"
    assert category_name("AcKcQcJcTc") == "straight flush"
    assert value("AcKcQcJcTc") == value("AsKsQsJsTs")  # suits never break ties
    # Two pair, kicker decides; a third pair can be the kicker.
    assert value("KsKdQsQdAh2c3d") > value("KhKcQhQcJh2d3c")
    assert value("KsKdQsQd4h4c2d") == value("KhKcQhQc4s3d2c")
    assert value("KsKdQsQdJh4c4d") > value("KhKcQhQc4s3d2c")
    # Seven cards holding a flush and a straight: the flush counts.
    assert category_name("9h8h2h3h4hTc7d") == "flush"
    # Six-card inputs: best five of six.
    assert category_name("AhAdAcKhKd2c") == "full house"
    assert value("AhKhQhJhTh9h") == value("AdKdQdJdTd")
    assert value("6h5d4c3h2sAs") == value("6h5d4c3h2s")  # the ace cannot improve a six-high straight
    # Five-card inputs.
    assert category_name("2c3d4h5s7c") == "high card"
    assert category_name("TcJcQcKcAc") == "straight flush"
    # Two trips among seven cards make a full house with the lower trips as the pair.
    assert value("AhAdAcKhKdKc2s") == value("AsAdAcKhKs3c4d")


@pytest.mark.parametrize("n", [0, 4, 8])
def test_wrong_size(n: int) -> None:
    with pytest.raises(ValueError):
        evaluate(list(range(n)))


@given(st.lists(st.integers(0, 51), min_size=6, max_size=7, unique=True))
def test_best_of_subsets(cards: list[int]) -> None:
    assert evaluate(cards) == max(evaluate(five) for five in combinations(cards, 5))


@given(st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True), st.permutations(range(4)))
def test_suit_and_order_invariance(cards: list[int], suits: list[int]) -> None:
    renamed = [c & ~3 | suits[c & 3] for c in cards]
    assert evaluate(renamed) == evaluate(cards) == evaluate(sorted(cards))


@pytest.mark.filterwarnings("error")
def test_agrees_with_pokerkit() -> None:
    """Showdowns on a shared board agree with PokerKit, and so does the order of all hands seen.

    Sorting every sampled hand by our value and checking PokerKit agrees on each neighbour pair
    checks the comparison of every pair of sampled hands, with one PokerKit call per hand.
    """
    labels = list(Label)  # in the same order as CATEGORY_NAMES
    rng = random.Random(20240531)
    hands: list[tuple[int, StandardHighHand]] = []
    for _ in range(10_000):
        deck = rng.sample(range(52), 9)
        board = cards_text(deck[4:])
        pair = []
        for hole in (deck[:2], deck[2:4]):
            ours = evaluate(hole + deck[4:])
            theirs = StandardHighHand.from_game(cards_text(hole), board)
            assert labels[hand_category(ours)] == theirs.entry.label
            pair.append((ours, theirs))
            hands.append((ours, theirs))
        (a, pa), (b, pb) = pair
        assert ((a < b), (a == b)) == ((pa < pb), (pa == pb)), (cards_text(deck), a, b)
    hands.sort(key=lambda h: h[0])
    for (a, pa), (b, pb) in pairwise(hands):
        assert (pa == pb) if a == b else (pa < pb), (pa, pb)
