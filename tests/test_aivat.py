"""dealer.stats.aivat: each chance node's luck term has expectation zero exactly (enumerated over every
card that can come, with bots that react to the cards), the pre-flop estimate is exchangeable
between seats (so the deal's term averages to zero exactly), the all-in case agrees with
dealer.engine.equity, and on simulated play the correction keeps the mean and removes variance."""

from __future__ import annotations

import random
import statistics

import pytest

from dealer.engine.cards import parse_cards, shuffled_deck
from dealer.engine.equity import adjusted_net
from dealer.engine.evaluator import evaluate
from dealer.engine.rules import Hand, TableConfig
from dealer.stats.aivat import PREFLOP_BOARDS, chance_luck, chance_terms, hand_luck, read_strategy, shares

HU = TableConfig(stacks=(10_000, 10_000), button=1, small_blind=50, big_blind=100)


def _deck(holes: list[list[int]], board: list[int]) -> list[int]:
    """A heads-up deck dealing ``holes`` by position and ``board``, the other cards in order."""
    rest = [c for c in range(52) if c not in set(board) | {c for h in holes for c in h}]
    deck = [
        holes[0][0],
        holes[1][0],
        holes[0][1],
        holes[1][1],
        rest.pop(),
        *board[:3],
        rest.pop(),
        board[3],
        rest.pop(),
        board[4],
    ]
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
        hand = Hand(HU, _deck(holes, [*flop, turn, river]))
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
        three = shares(
            [(cards[0], cards[1]), (cards[2], cards[3]), (0, 1)]
            if 0 not in cards and 1 not in cards
            else [(cards[0], cards[1]), (cards[2], cards[3]), (50, 51)],
            [],
            ((0, 1, 2), (0, 1)),
        )
        assert sum(three[0]) == pytest.approx(1) and sum(three[1]) == pytest.approx(1) and three[1][2] == 0


def test_preflop_estimate_is_close_to_the_known_equity():
    # AA against KK: about 82% (exact 0.8236); the estimate's standard error is about 0.027.
    share = shares([tuple(parse_cards("AsAh")), tuple(parse_cards("KdKc"))], [], ((0, 1),))[0][0]
    assert abs(share - 0.8236) < 4 * (0.82 * 0.18 / PREFLOP_BOARDS) ** 0.5


def test_flop_all_in_agrees_with_the_all_in_adjustment_from_the_turn_on():
    holes = [parse_cards("AhKh"), parse_cards("QsQd")]
    hand = Hand(HU, _deck(holes, parse_cards("2h7hJc3c4d")))
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
    hand = Hand(HU, shuffled_deck("fold", 12))
    hand.fold()
    assert len(chance_terms(hand)) == 1  # the deal only: the small blind folded before any board card
    assert chance_luck(hand)[0] == pytest.approx(-chance_luck(hand)[1])


def test_simulated_play_keeps_the_mean_and_removes_variance():
    # 1,500 random deals played by the reactive bots: the luck has mean 0 (within 4 standard
    # errors) and the corrected results are less spread than the raw ones.
    nets, lucks = [], []
    for h in range(1500):
        config = TableConfig(stacks=(10_000, 10_000), button=h % 2, small_blind=50, big_blind=100)
        hand = Hand(config, shuffled_deck(f"sim/{h}", 12))
        _reactive(hand)
        nets.append(hand.final_stacks()[0] - config.stacks[0])
        lucks.append(chance_luck(hand)[0])
    se = statistics.stdev(lucks) / len(lucks) ** 0.5
    assert abs(statistics.fmean(lucks)) < 4 * se
    corrected = [n - x for n, x in zip(nets, lucks, strict=True)]
    assert statistics.variance(corrected) < 0.8 * statistics.variance(nets)


# ------------------------------------------------------------------ decision terms (known strategies)


def _decide(hand: Hand, decisions: dict, strategy: list[tuple[str, int, float]], choice: str, to: int = 0) -> None:
    """Apply ``choice`` for the actor and keep its reported ``strategy`` as the dealer does (dealer.league.match)."""
    legal, index, bet = hand.legal(), len(hand.events), hand.bets[hand.actor]
    acted = hand.fold() if choice == "fold" else hand.check_call() if choice == "check_call" else hand.raise_to(to)
    got = read_strategy(strategy, legal, bet, acted)
    assert not isinstance(got, str), got
    decisions[index] = got


def test_a_river_decision_with_known_strategy_leaves_no_variance_and_the_right_mean():
    # At the river the dealer's value is exact: corrected by the decision term, folding and calling
    # give the same result, the caller's expected result under its strategy.
    holes, board = [parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2h7hJc9s3d")
    strategy = [("fold", 0, 0.3), ("check_call", 0, 0.7)]
    outcomes = {}
    for choice in ("fold", "check_call"):
        hand = Hand(HU, _deck(holes, board))
        for _ in range(7):  # limp, check to the river, then the first to act checks
            hand.check_call()
        hand.raise_to(300)  # a bet of 300 into 200
        decisions: dict = {}
        _decide(hand, decisions, strategy, choice)
        chance, known = hand_luck(hand, decisions)
        assert chance == chance_luck(hand) and abs(sum(known)) < 1e-9
        net = [f - s for f, s in zip(hand.final_stacks(), HU.stacks, strict=True)]
        outcomes[choice] = (net, [net[s] - chance[s] - known[s] for s in range(2)])
    expected = [0.3 * outcomes["fold"][0][s] + 0.7 * outcomes["check_call"][0][s] for s in range(2)]
    assert outcomes["fold"][0] != outcomes["check_call"][0]
    for choice in outcomes:
        chance_free = [outcomes[choice][1][s] + chance_luck_of(choice, holes, board)[s] for s in range(2)]
        assert chance_free == pytest.approx(expected), choice


def chance_luck_of(choice: str, holes, board) -> list[float]:
    """The chance luck of the river spot above (the same for both choices: the cards came before)."""
    hand = Hand(HU, _deck(holes, board))
    for _ in range(7):
        hand.check_call()
    hand.raise_to(300)
    hand.fold() if choice == "fold" else hand.check_call()
    return chance_luck(hand)


def test_decision_and_chance_terms_keep_the_exact_expectation_over_a_whole_tree():
    # From the turn on: the seat to act bets or checks by a known strategy, the other calls or folds
    # by one, every river card comes, then the bots react to it. The expectation of the result
    # corrected by the decision terms and the river's term over every branch (weighted by the
    # strategies) equals that of the raw result.
    holes, flop = [parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2h7hJc")
    turn = parse_cards("9s")[0]
    unseen = [c for c in range(52) if c not in set(flop) | {turn} | {c for h in holes for c in h}]
    bet_p, call_p = 0.4, 0.55
    raw = corrected = weight_sum = 0.0
    spreads: dict[str, list[float]] = {"known": []}
    for river in unseen:
        for first in ("bet", "check"):
            seconds = ("check_call", "fold") if first == "bet" else ("check_call",)
            for second in seconds:
                hand = Hand(HU, _deck(holes, [*flop, turn, river]))
                for _ in range(4):  # limp, check the flop
                    hand.check_call()
                decisions: dict = {}
                opener = [("check_call", 0, 1 - bet_p), ("bet_raise", 200, bet_p)]
                _decide(hand, decisions, opener, "bet_raise" if first == "bet" else "check_call", 200)
                if first == "bet":
                    _decide(hand, decisions, [("check_call", 0, call_p), ("fold", 0, 1 - call_p)], second)
                    weight = bet_p * (call_p if second == "check_call" else 1 - call_p)
                else:
                    _decide(hand, decisions, [("check_call", 0, 1.0)], "check_call")  # a pure strategy: no term
                    weight = 1 - bet_p
                _reactive(hand)
                known = hand_luck(hand, decisions)[1]
                terms = chance_terms(hand)  # the deal, flop and turn are fixed here: only the river's term varies
                river_luck = terms[3][0] if len(terms) > 3 else 0.0
                net = hand.final_stacks()[0] - HU.stacks[0]
                weight /= len(unseen)
                raw += weight * net
                corrected += weight * (net - river_luck - known[0])
                weight_sum += weight
                spreads["known"].append(known[0])
    assert weight_sum == pytest.approx(1)
    assert corrected == pytest.approx(raw, abs=1e-6)
    assert max(abs(k) for k in spreads["known"]) > 100  # the decision terms themselves are not zero


def test_reported_strategies_are_checked_and_read_as_the_dealer_applies_them():
    hand = Hand(HU, shuffled_deck("strategy", 12))
    legal, bet = hand.legal(), hand.bets[hand.actor]  # the small blind: fold, call 50, raise 200..10000
    acted = hand.check_call()
    good = read_strategy([("fold", 0, 0.25), ("check_call", 0, 0.5), ("bet_raise", 300, 0.25)], legal, bet, acted)
    assert good == (((True, 0, 0.25), (False, 50, 0.5), (False, 250, 0.25)), 1)
    bad = {
        "probabilities sum to 0.9": [("fold", 0, 0.4), ("check_call", 0, 0.5)],
        "the probability of fold is nan": [("fold", 0, float("nan")), ("check_call", 0, 1.0)],
        "the probability of fold is -0.5": [("fold", 0, -0.5), ("check_call", 0, 1.5)],
        "option raise to 150 is outside 200..10000": [("check_call", 0, 0.5), ("bet_raise", 150, 0.5)],
        "option of unknown action type 7": [("check_call", 0, 0.5), ("7", 0, 0.5)],
        "the action taken (call 50) has no probability": [("fold", 0, 1.0), ("check_call", 0, 0.0)],
    }
    for reason, options in bad.items():
        got = read_strategy(options, legal, bet, acted)
        assert isinstance(got, str) and got.startswith(reason) and "\n" not in got, (reason, got)
    free = Hand(HU, shuffled_deck("strategy", 12))
    free.check_call()
    legal, bet = free.legal(), free.bets[free.actor]  # the big blind may check: a fold would be a check
    acted = free.check_call()
    assert read_strategy([("fold", 0, 0.5), ("check_call", 0, 0.5)], legal, bet, acted) == (((False, 0, 1.0),), 0)
