"""The worked examples of RULES.md, played in the engine with decks stacked to order."""

from __future__ import annotations

import pytest

from dealer.engine.cards import parse_cards
from dealer.engine.rules import Awarded, Dealt, Hand, Posted, Raked, Returned, TableConfig, Variant, rake_shares
from dealer.errors import CardError, ConfigError, IllegalActionError
from hand_state import snapshot


def stacked(holes: list[str], board: str = "") -> list[int]:
    """Return a deck giving ``holes[k]`` to position k and ``board`` as the board (burns filled in).

    Deal order (dealer/engine/rules.py): one card to each position, a second to each, then burn, flop,
    burn, turn, burn, river.
    """
    hole = [parse_cards(h) for h in holes]
    chosen = parse_cards(board)
    rest = [c for c in range(52) if c not in {*chosen, *(c for h in hole for c in h)}]
    board_cards = chosen + [rest.pop() for _ in range(5 - len(chosen))]
    burns = [rest.pop() for _ in range(3)]
    flop, turn, river = board_cards[:3], board_cards[3], board_cards[4]
    deck = [h[0] for h in hole] + [h[1] for h in hole]
    deck += [burns[0], *flop, burns[1], turn, burns[2], river]
    return deck + rest


def start(stacks: tuple[int, ...], blinds: tuple[int, int], deck: list[int] | None = None, **options: object) -> Hand:
    """Start a hand with the button on the last seat, so seat k is position k."""
    config = TableConfig(stacks=stacks, button=len(stacks) - 1, small_blind=blinds[0], big_blind=blinds[1], **options)
    return Hand(config, deck if deck is not None else list(range(52)))


def check_round(hand: Hand) -> None:
    """Check (or call) until the street changes."""
    street = hand.street
    while hand.actor is not None and hand.street == street:
        hand.check_call()


def test_deal_order_skips_the_burns() -> None:
    deck = stacked(["AcAd", "KcKd", "QcQd"], "2h3h4h5h7s")
    hand = start((100, 100, 100), (1, 2), deck)
    assert hand.hole == tuple(tuple(parse_cards(h)) for h in ["AcAd", "KcKd", "QcQd"])
    assert [deck[k] for k in (0, 3)] == parse_cards("AcAd")
    check_round(hand)
    check_round(hand)
    assert hand.board == parse_cards("2h3h4h5h")
    assert deck[7:10] == parse_cards("2h3h4h") and deck[11] == parse_cards("5h")[0] and deck[13] == parse_cards("7s")[0]


def test_pot_limit_bet_is_at_most_the_pot_and_raise_at_most_pot_after_call() -> None:
    hand = start((1000, 1000), (25, 50), variant=Variant.POT_LIMIT)
    hand.check_call()  # the button completes the small blind: the pot is 100
    hand.check_call()
    assert hand.street == 1 and hand.total_pot() == 100
    legal = hand.legal()
    assert (legal.min_to, legal.max_to, legal.bet) == (50, 100, True)
    hand.raise_to(100)
    legal = hand.legal()
    assert (legal.call, legal.min_to, legal.max_to) == (100, 200, 400)
    assert not hand.can_raise(401)
    hand.raise_to(400)


def test_no_limit_minimum_raise_adds_the_last_bet() -> None:
    hand = start((1000, 1000, 1000), (1, 2))
    for _ in range(3):
        hand.check_call()
    hand.raise_to(5)
    assert hand.legal().min_to == 10
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        hand.raise_to(9)
    assert snapshot(hand) == before
    hand.raise_to(10)
    assert hand.max_bet == 10


def test_fixed_limit_preflop_cap_counts_the_big_blind() -> None:
    hand = start((1000, 1000, 1000), (1, 2), variant=Variant.FIXED_LIMIT)
    for to in (4, 6, 8):  # the big blind's 2 is the bet; raise, re-raise, cap
        legal = hand.legal()
        assert (legal.min_to, legal.max_to) == (to, to)
        hand.raise_to(to)
    legal = hand.legal()
    assert hand.actor == 2 and not legal.can_raise and legal.call == 4 and legal.fold
    with pytest.raises(IllegalActionError):
        hand.raise_to(10)


def test_fixed_limit_cap_after_the_flop_is_four_bets() -> None:
    hand = start((1000, 1000, 1000), (1, 2), variant=Variant.FIXED_LIMIT)
    check_round(hand)
    for to in (2, 4, 6, 8):
        assert hand.legal().min_to == to == hand.legal().max_to
        hand.raise_to(to)
    assert not hand.legal().can_raise
    check_round(hand)
    check_round(hand)
    assert hand.street == 3 and hand.legal().min_to == 4  # the big bet on the river


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after() -> None:
    hand = Hand(TableConfig(stacks=(100, 100), button=0, small_blind=1, big_blind=2), stacked(["AcAd", "KcKd"]))
    posts = [(e.seat, e.kind, e.amount) for e in hand.events if isinstance(e, Posted)]
    assert posts == [(0, "small_blind", 1), (1, "big_blind", 2)]
    assert hand.actor == 0 and hand.position == (1, 0)
    hand.check_call()
    assert hand.actor == 1
    hand.check_call()
    assert hand.street == 1 and hand.actor == 1
    hand.check_call()
    assert hand.actor == 0


def test_short_all_in_does_not_reopen_betting() -> None:
    hand = start((1000, 158, 1000), (5, 10))
    check_round(hand)
    hand.raise_to(100)
    assert hand.legal().max_to == 148
    hand.raise_to(148)  # all-in for less than a full raise
    assert hand.stacks[1] == 0
    legal = hand.legal()
    assert hand.actor == 2 and legal.min_to == 248  # the last full raise (100) still counts
    hand.check_call()
    legal = hand.legal()
    assert hand.actor == 0 and not legal.can_raise and legal.call == 48 and legal.fold
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        hand.raise_to(248)
    assert snapshot(hand) == before


def test_three_way_all_in_makes_two_side_pots() -> None:
    deck = stacked(["AcAd", "KcKd", "QcQd", "7h4c"], "2c3d8h9sJs")
    hand = start((50, 100, 150, 500), (1, 2), deck)
    hand.raise_to(150)  # position 2, all-in
    hand.check_call()  # the button covers everyone
    hand.check_call()  # small blind all-in for 50
    hand.check_call()  # big blind all-in for 100
    assert hand.done and len(hand.board) == 5
    pots = [(e.amount, e.eligible, e.shares) for e in hand.events if isinstance(e, Awarded)]
    assert pots == [(200, (0, 1, 2, 3), ((0, 200),)), (150, (1, 2, 3), ((1, 150),)), (100, (2, 3), ((2, 100),))]
    assert hand.final_stacks() == [200, 150, 100, 350]


def test_split_pot_odd_chips_go_to_the_first_winner_left_of_the_button() -> None:
    deck = stacked(["2c3c", "4d5d", "7h8h", "9c8d"], "AsKsQsJsTs")
    hand = start((100, 100, 100, 100), (1, 2), deck, ante=1)
    hand.check_call()
    hand.check_call()
    hand.fold()  # the small blind's 1 and the four antes are dead money: the pot is 11
    while hand.actor is not None:
        hand.check_call()
    awarded = [e for e in hand.events if isinstance(e, Awarded)]
    assert [(e.amount, e.shares) for e in awarded] == [(11, ((1, 5), (2, 3), (3, 3)))]
    assert hand.final_stacks() == [98, 102, 100, 100]


def test_uncalled_bet_is_returned() -> None:
    hand = start((100, 100, 100), (1, 2))
    check_round(hand)
    hand.raise_to(50)
    hand.fold()
    hand.fold()
    assert Returned(0, 50) in hand.events
    assert hand.final_stacks() == [104, 98, 98]


def test_everyone_all_in_runs_out_the_board() -> None:
    hand = start((30, 40, 100), (1, 2), stacked(["AcAd", "KcKd", "QcQd"], "2c3d8h9sJs"))
    hand.raise_to(100)
    hand.check_call()
    hand.check_call()
    assert hand.done and hand.actor is None
    assert [e.street for e in hand.events if isinstance(e, Dealt)] == [1, 2, 3]
    assert hand.final_stacks() == [90, 20, 60]


def test_rake_is_taken_from_each_pot_in_proportion_not_from_the_main_pot_first() -> None:
    # Seat 2 is all-in for its 1-chip ante (a main pot of 4) and holds the best hand; the others
    # call 20 each (a side pot of 60). 5% of 64 is 3: the main pot pays 3 * 4 / 64 = 0.19, the side
    # pot 2.81, the odd chip going to the larger remainder. "Main pot first" took 3 of the short
    # player's 4 chips.
    deck = stacked(["7c2d", "8h3s", "AcAd", "9d4h"], "KsQsJh5c6d")
    hand = start((1000, 1000, 1, 1000), (10, 20), deck, ante=1, rake_bps=500)
    while hand.actor is not None:
        hand.check_call()
    assert Raked(3) in hand.events
    awards = [(e.pot, e.amount, e.eligible) for e in hand.events if isinstance(e, Awarded)]
    assert awards == [(0, 4, (0, 1, 2, 3)), (1, 57, (0, 1, 3))]
    assert hand.final_stacks()[2] == 4
    assert hand.raked_pots() == (3, [(4, [0, 1, 2, 3]), (57, [0, 1, 3])])


@pytest.mark.parametrize(
    ("rake", "amounts", "shares"),
    [
        (18, [4, 356], [0, 18]),  # 0.2 and 17.8: the odd chip to the larger remainder
        (10, [100, 100, 100], [4, 3, 3]),  # equal remainders: the main pot first
        (3, [1, 1, 1, 97], [0, 0, 0, 3]),  # 0.03 each and 2.91
        (7, [10, 60], [1, 6]),  # exact: 1 and 6
        (100, [1, 99], [1, 99]),  # a 100% rake takes every pot whole
    ],
)
def test_rake_shares_split_the_rake_in_proportion_to_the_pots(rake: int, amounts: list[int], shares: list[int]) -> None:
    pots = [(amount, [0]) for amount in amounts]
    assert rake_shares(rake, pots) == shares
    assert sum(shares) == rake and all(0 <= s <= a for s, a in zip(shares, amounts, strict=True))


def test_rake_is_capped_and_only_taken_after_a_flop() -> None:
    hand = start((1000, 1000, 1000), (1, 2), rake_bps=500, rake_cap=3)
    hand.raise_to(20)
    hand.fold()
    hand.fold()
    assert hand.done and not [e for e in hand.events if isinstance(e, Raked)]
    assert sum(hand.final_stacks()) == 3000
    hand = start((1000, 1000, 1000), (1, 2), rake_bps=500, rake_cap=3)
    hand.raise_to(40)
    hand.check_call()
    hand.check_call()  # a pot of 120 reaches the flop: 5% is 6, capped at 3
    while hand.actor is not None:
        hand.check_call()
    assert Raked(3) in hand.events
    assert sum(hand.final_stacks()) == 3000 - 3
    awarded = sum(e.amount for e in hand.events if isinstance(e, Awarded))
    assert awarded == 117


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    hand = start((100, 100, 100), (1, 2))
    before = snapshot(hand)
    for action in (lambda: hand.raise_to(3), lambda: hand.raise_to(101), lambda: hand.raise_to(4.5)):
        with pytest.raises(IllegalActionError):
            action()
        assert snapshot(hand) == before
    check_round(hand)
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        hand.fold()  # nothing to call: check instead
    assert snapshot(hand) == before
    hand.raise_to(10)
    hand.fold()
    hand.fold()
    assert hand.done
    before = snapshot(hand)
    for action in (hand.fold, hand.check_call, lambda: hand.raise_to(20), hand.legal):
        with pytest.raises(IllegalActionError):
            action()
        assert snapshot(hand) == before


def test_bad_decks_and_tables_are_refused() -> None:
    config = TableConfig(stacks=(100, 100), button=0, small_blind=1, big_blind=2)
    deck = stacked(["AcAd", "KcKd"])
    with pytest.raises(CardError):
        Hand(config, [*deck[:5], deck[0], *deck[6:]])
    with pytest.raises(ConfigError):
        Hand(config, deck[:11])
    with pytest.raises(ConfigError):
        TableConfig(stacks=(100,), button=0, small_blind=1, big_blind=2)
    with pytest.raises(ConfigError):
        TableConfig(stacks=(100, 0), button=0, small_blind=2, big_blind=1)


def test_legal_and_acted_records_made_again_are_the_ones_made_before_and_the_memo_stays_bounded() -> None:
    from dealer.engine import rules

    def play() -> tuple[list[rules.Legal], list[rules.Acted]]:
        hand = start((200, 200), (1, 2))
        legals, acts = [hand.legal()], [hand.check_call()]  # the button calls the big blind
        legals.append(hand.legal())
        acts.append(hand.check_call())  # the big blind checks: the flop
        legals.append(hand.legal())
        acts.append(hand.fold() if hand.legal().fold else hand.check_call())
        return legals, acts

    first, again = play(), play()
    assert first == again
    # the same records, not equal copies: remembered by all their fields
    assert all(a is b for a, b in zip(first[0] + first[1], again[0] + again[1], strict=True))
    assert [r.kind for r in first[1]] == ["call", "check", "check"]
    assert first[0][0] == rules.Legal(True, 1, 4, 200, False)
    # a record differing in any field is another record
    hand = start((200, 201), (1, 2))
    assert hand.legal() == rules.Legal(True, 1, 4, 201, False) != first[0][0]
    hand.check_call()
    assert hand.legal() == rules.Legal(False, 0, 4, 200, False) and hand.legal() is first[0][1]
    # bounded: full, the memo is cleared, and records are made anew (equal, if not the same)
    for k in range(rules._MADE_LIMIT + 10):
        assert rules._made_acted(0, "call", 0, k + 1, k + 1, False) == (0, "call", k + 1, k + 1, False)
    assert len(rules._MADE_ACTED) <= rules._MADE_LIMIT
    assert play() == first
    # the key packs every field: records differing in one field alone are other records
    made = rules._made_acted
    assert made(0, "bet", 1, 300, 300, False) == (0, "bet", 300, 300, False)
    assert made(0, "raise", 2, 300, 300, False) == (0, "raise", 300, 300, False)
    assert made(0, "call", 0, 300, 300, False) == (0, "call", 300, 300, False)
    assert made(1, "call", 0, 300, 300, False) == (1, "call", 300, 300, False)
    assert made(0, "call", 0, 300, 300, True) == (0, "call", 300, 300, True)
    assert made(0, "call", 0, 300, 301, False) == (0, "call", 300, 301, False)
    assert rules._made_legal(5, 10, 20, False) == (True, 5, 10, 20, False) != rules._made_legal(5, 10, 20, True)
    assert rules._made_legal(0, 10, 20, True) == (False, 0, 10, 20, True) != rules._made_legal(0, 10, 21, True)
    # fields past the packing's bounds: made as given, not remembered
    size = len(rules._MADE_ACTED), len(rules._MADE_LEGAL)
    assert made(300, "call", 0, 1 << 20, 1 << 21, True) == (300, "call", 1 << 20, 1 << 21, True)
    assert rules._made_legal(1 << 20, 1 << 21, 1 << 22, False) == (True, 1 << 20, 1 << 21, 1 << 22, False)
    assert (len(rules._MADE_ACTED), len(rules._MADE_LEGAL)) == size
    # a raise made again in another hand is the record made before
    raises = [start((200, 200), (1, 2)).raise_to(6) for _ in range(2)]
    assert raises[0] == (1, "raise", 5, 6, False) and raises[0] is raises[1]
    # and so are the blinds: small or big, of a seat, an amount, all-in or not
    blinds = [start((200, 200), (1, 2)).events[:2] for _ in range(2)]
    assert blinds[0] == [(1, "small_blind", 1, False), (0, "big_blind", 2, False)]
    assert all(a is b for a, b in zip(blinds[0], blinds[1], strict=True))
    assert start((200, 2), (2, 2)).events[:2] == [(1, "small_blind", 2, True), (0, "big_blind", 2, False)]
    assert start((2, 200), (2, 2)).events[:2] == [(1, "small_blind", 2, False), (0, "big_blind", 2, True)]
