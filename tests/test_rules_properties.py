"""Property tests of the rules engine over random tables, decks and legal play."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.engine.rules import Acted, Awarded, Hand, Posted, Raked, Returned, TableConfig, Variant, side_pots
from dealer.errors import IllegalActionError
from hand_state import snapshot


@st.composite
def tables(draw: st.DrawFn) -> TableConfig:
    """Tables of 2..10 seats with short and deep stacks, any variant, antes and rake sometimes."""
    players = draw(st.integers(2, 10))
    big = draw(st.integers(1, 20))
    return TableConfig(
        stacks=tuple(draw(st.lists(st.integers(1, 60 * big), min_size=players, max_size=players))),
        button=draw(st.integers(0, players - 1)),
        small_blind=draw(st.integers(0, big)),
        big_blind=big,
        variant=draw(st.sampled_from(Variant)),
        ante=draw(st.sampled_from((0, 0, 1, big))),
        rake_bps=draw(st.sampled_from((0, 500))),
        rake_cap=draw(st.sampled_from((None, 3))),
    )


def probe_illegal(hand: Hand) -> None:
    """Require every action outside ``legal()`` to raise ``IllegalActionError`` and change nothing."""
    legal = hand.legal()
    illegal: list[int | None] = []  # raise-to totals; None stands for a fold
    if legal.can_raise:
        illegal += [legal.min_to - 1, legal.max_to + 1]
    else:
        illegal += [hand.max_bet + 1, hand.max_bet + 10_000]
    if not legal.fold:
        illegal.append(None)
    before = snapshot(hand)
    for to in illegal:
        try:
            hand.fold() if to is None else hand.raise_to(to)
        except IllegalActionError:
            assert snapshot(hand) == before
        else:
            raise AssertionError(f"{'fold' if to is None else f'raise to {to}'} was accepted; legal: {legal}")


@settings(max_examples=300, deadline=None)
@given(tables(), st.permutations(range(52)), st.data())
def test_random_hands_keep_every_invariant(config: TableConfig, deck: list[int], data: st.DataObject) -> None:
    hand = Hand(config, deck)
    total = sum(config.stacks)
    while hand.actor is not None:
        assert sum(hand.stacks) + hand.total_pot() == total
        assert min(hand.stacks) >= 0
        probe_illegal(hand)
        legal = hand.legal()
        choice = data.draw(st.sampled_from(["call"] + ["fold"] * legal.fold + ["raise"] * legal.can_raise))
        if choice == "fold":
            hand.fold()
        elif choice == "call":
            hand.check_call()
        else:
            to = data.draw(st.integers(legal.min_to, legal.max_to))
            assert hand.can_raise(to)
            hand.raise_to(to)
    final = hand.final_stacks()
    rake = sum(e.amount for e in hand.events if isinstance(e, Raked))
    assert min(final) >= 0
    assert sum(final) + rake == total
    awards = [e for e in hand.events if isinstance(e, Awarded)]
    assert sum(e.amount for e in awards) + rake == sum(hand.contributed)
    assert all(sum(won for _, won in e.shares) == e.amount for e in awards)
    # The rake comes from every pot in proportion to its size: within a chip of the exact share.
    pots = side_pots(hand.contributed, hand.folded, hand.order)
    raked, after = hand.raked_pots()
    assert raked == rake and [e for _, e in after] == [e for _, e in pots]
    whole = sum(a for a, _ in pots)
    assert all(
        0 <= a - left <= a and abs((a - left) - rake * a / whole) < 1
        for (a, _), (left, _) in zip(pots, after, strict=True)
    )
    paid = [0] * config.seats
    for event in hand.events:
        if isinstance(event, (Posted, Acted)):
            paid[event.seat] += event.amount
        elif isinstance(event, Returned):
            paid[event.seat] -= event.amount
    assert paid == hand.contributed
    won = [0] * config.seats
    for award in awards:
        for seat, amount in award.shares:
            won[seat] += amount
    assert [config.stacks[s] - paid[s] + won[s] for s in range(config.seats)] == final
