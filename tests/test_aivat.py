"""dealer.aivat: each chance node's luck term has expectation zero exactly (enumerated over every
card that can come, with bots that react to the cards), the pre-flop estimate is exchangeable
between seats (so the deal's term averages to zero exactly), the all-in case agrees with
dealer.equity, and on simulated play the correction keeps the mean and removes variance."""

from __future__ import annotations

import itertools
import random
import statistics

import pytest

from dealer.aivat import PREFLOP_BOARDS, chance_luck, chance_terms, shares
from dealer.cards import parse_cards, shuffled_deck
from dealer.equity import adjusted_net
from dealer.evaluator import evaluate
from dealer.rules import Hand, TableConfig

HU = TableConfig(stacks=(10_000, 10_000), button=1, small_blind=50, big_blind=100)


def _deck(holes: list[list[int]], board: list[int]) -> list[int]:
    """A heads-up deck dealing ``holes`` by position and ``board``, the other cards in order."""
    rest = [c for c in range(52) if c not in set(board) | {c for h in holes for c in h}]
    deck = [holes[0][0], holes[1][0], holes[0][1], holes[1][1], rest.pop(), *board[:3], rest.pop(), board[3],
            rest.pop(), board[4]]
    return deck + rest


def _reactive(hand: Hand) -> None:
    """Play a hand to its end: bet the pot with a pair or better, call with any draw to it, else check/fold."""
    while hand.actor is not None:
        s, legal = hand.actor, hand.legal()
        strong = bool(hand.board) and evaluate((*hand.hole[s], *hand.board)) >> 20 >= 1
        if strong and legal.can_raise:
            hand.raise_to(min(legal.max_to, max(legal.min_to, hand.total_pot())))
        elif strong or legal.call <= 100:
            hand.check_call()
        else:
            hand.fold()


def test_turn_and_river_terms_have_zero_mean_over_every_card_whatever_the_bots_do():
    holes = [parse_cards("AhKh"), parse_cards("QsQd")]
    flop = parse_cards("2h7hJc")
    unseen = [c for c in range(52) if c not in set(flop) | {c for h in holes for c in h}]
    turn_terms: dict[int, list[float]] = {}
    river_sums: dict[int, list[float]] = {}
    fixed = None
    # Every turn (with one river each: the turn's term does not depend on it), and for some turns every river.
    deals = [(t, next(r for r in unseen if r != t)) for t in unseen]
    deals += [(t, r) for t in unseen[::9] for r in unseen if r != t]
    for turn, river in dict.fromkeys(deals):  # each deal once
        hand = Hand.start(HU, _deck(holes, [*flop, turn, river]))
        for _ in range(4):  # limp, check, check, check: the same pots into the turn every time
            hand.check_call()
        _reactive(hand)  # from the turn on the bots bet, call and fold by the cards that came
        terms = chance_terms(hand)
        assert all(abs(sum(row)) < 1e-9 for row in terms)
        fixed = fixed or terms[:2]
        assert terms[:2] == fixed  # the deal and the flop: the same cards, the same pots
        assert turn_terms.setdefault(turn, terms[2]) == terms[2]
        if len(terms) > 3 and turn in unseen[::9]:
            sums = river_sums.setdefault(turn, [0.0, 0.0, 0])
            sums[0] += terms[3][0]
            sums[1] += terms[3][1]
            sums[2] += 1
    assert len(turn_terms) == len(unseen)
    assert abs(statistics.fmean(t[0] for t in turn_terms.values())) < 1e-9
    assert any(abs(t[0]) > 50 for t in turn_terms.values())  # the terms themselves are not zero
    assert river_sums  # some of those turns were bet and called to the river
    for turn, (total, _, count) in river_sums.items():  # given the turn, the river's term averages to zero
        assert count == len(unseen) - 1 and abs(total / count) < 1e-9, turn


def test_preflop_estimate_is_exchangeable_so_the_deal_term_averages_to_zero_exactly():
    # The boards depend on the set of hole cards only: swapping the seats' cards swaps the shares,
    # so over all deals each seat's estimated share averages exactly 1/2 and the deal's term to 0.
    rng = random.Random(5)
    for _ in range(20):
        cards = rng.sample(range(52), 4)
        a = shares([(cards[0], cards[1]), (cards[2], cards[3])], [], ((0, 1),))[0]
        b = shares([(cards[2], cards[3]), (cards[0], cards[1])], [], ((0, 1),))[0]
        assert a == [b[1], b[0]]
        three = shares([(cards[0], cards[1]), (cards[2], cards[3]), (0, 1)] if 0 not in cards and 1 not in cards
                       else [(cards[0], cards[1]), (cards[2], cards[3]), (50, 51)], [], ((0, 1, 2), (0, 1)))
        assert sum(three[0]) == pytest.approx(1) and sum(three[1]) == pytest.approx(1) and three[1][2] == 0


def test_preflop_estimate_is_close_to_the_known_equity():
    # AA against KK: about 82% (exact 0.8236); the estimate's standard error is about 0.027.
    share = shares([tuple(parse_cards("AsAh")), tuple(parse_cards("KdKc"))], [], ((0, 1),))[0][0]
    assert abs(share - 0.8236) < 4 * (0.82 * 0.18 / PREFLOP_BOARDS) ** 0.5


def test_flop_all_in_agrees_with_the_all_in_adjustment_from_the_turn_on():
    holes = [parse_cards("AhKh"), parse_cards("QsQd")]
    hand = Hand.start(HU, _deck(holes, parse_cards("2h7hJc3c4d")))
    hand.check_call(), hand.check_call()
    hand.raise_to(10_000 - 100)  # all-in on the flop, called
    hand.check_call()
    assert hand.done
    terms = chance_terms(hand)
    assert len(terms) == 4
    net = [f - s for f, s in zip(hand.final_stacks(), HU.stacks, strict=True)]
    expected = adjusted_net(hand)
    assert expected is not None
    # The turn and river terms take the hand back to its equity when the betting ended, exactly.
    after_flop = [n - terms[2][s] - terms[3][s] for s, n in enumerate(net)]
    assert after_flop == pytest.approx(expected, abs=1e-6)
    # And the whole correction also removes the flop's and the deal's luck on the pots of that time.
    assert chance_luck(hand) == pytest.approx([sum(row[s] for row in terms) for s in range(2)])


def test_folded_hand_has_only_the_nodes_it_reached():
    hand = Hand.start(HU, shuffled_deck("fold", 12))
    hand.fold()
    assert len(chance_terms(hand)) == 1  # the deal only: the small blind folded before any board card
    assert chance_luck(hand)[0] == pytest.approx(-chance_luck(hand)[1])


def test_simulated_play_keeps_the_mean_and_removes_variance():
    # 1,500 random deals played by the reactive bots: the luck has mean 0 (within 4 standard
    # errors) and the corrected results are less spread than the raw ones.
    nets, lucks = [], []
    for h in range(1500):
        config = TableConfig(stacks=(10_000, 10_000), button=h % 2, small_blind=50, big_blind=100)
        hand = Hand.start(config, shuffled_deck(f"sim/{h}", 12))
        _reactive(hand)
        nets.append(hand.final_stacks()[0] - config.stacks[0])
        lucks.append(chance_luck(hand)[0])
    se = statistics.stdev(lucks) / len(lucks) ** 0.5
    assert abs(statistics.fmean(lucks)) < 4 * se
    corrected = [n - x for n, x in zip(nets, lucks, strict=True)]
    assert statistics.variance(corrected) < 0.8 * statistics.variance(nets)
