"""All-in adjustment: score a hand that was all-in before the river by its expected result.

When the betting is over before the river (every live player but at most one is all-in), the
rest of the board is luck that no decision can change. ``adjusted_net`` replaces what each seat
actually won with what it wins on average over every possible run-out, minus what it put in. The
expectation of the adjusted result over the run-out is exactly the actual result's, so the
adjustment removes variance without adding bias (the "all-in adjusted" or "EV" figures).

Rules of the calculation:

* Unseen cards are the deck minus the board at the time of the all-in and minus the hole cards of
  the players still in. Folded players' cards are treated as unseen (no player saw them), so they
  can appear in the run-out: the adjusted figure is the equity as the players themselves knew it.
* Each run-out is settled exactly as the engine settles a hand (``Hand._pots``: main and side
  pots, dead money, ties sharing a pot with all the odd chips to the first winner in position
  order). The rake is applied the same way as well: it depends only on the pot sizes, which the
  run-out does not change, so it is the same amount, taken from each pot in the same proportion
  (``rules.rake_shares``), and the adjusted nets sum to minus the rake, as the actual nets do.
* From the flop or the turn every run-out is enumerated (at most C(45, 2) = 990 boards): exact.
* Pre-flop (C(48, 5) = 1,712,304 boards heads-up) exact enumeration is too slow in pure Python,
  so ``PREFLOP_SAMPLES`` boards heads-up (``2 * PREFLOP_SAMPLES / players`` multiway, the same
  work) are drawn from the unseen cards by a ``random.Random`` seeded with the known cards (the
  live players' hole cards): consecutive five-card slices of repeated shuffles. Each sampled
  board is uniformly distributed, so the average is an unbiased estimate of the exact equity
  (its sampling error, a standard error of at most 0.5 / sqrt(samples) of the pot, is tiny next
  to a hand's spread) and the same situation always gets the same figure. This is the one
  deviation from "exact".

Speed (seven-card values straight from the evaluator's tables): about 1-2 ms per flop all-in,
under 0.5 ms per turn all-in, ~5-8 ms per pre-flop all-in.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence

from dealer.engine.evaluator import _CARD_KEY, _SUIT_START, evaluate, heads_up_showdowns, seven_card_value
from dealer.engine.rules import Acted, Dealt, Hand, Posted, award

PREFLOP_SAMPLES = 1000  # run-outs drawn for a pre-flop all-in (an unbiased estimate)
EXACT_LIMIT = 20_000  # enumerate every run-out when there are at most this many


def runout_start(hand: Hand) -> int | None:
    """The number of board cards when the betting ended, if a run-out followed; else ``None``.

    A run-out is a finished hand whose last decision or forced bet is followed by ``Dealt`` events
    with two or more players still in.
    """
    if not hand.done or hand.folded.count(False) < 2:
        return None
    dealt = 0
    for event in reversed(hand.events):  # back to the last decision or forced bet
        if isinstance(event, (Acted, Posted)):
            break
        if isinstance(event, Dealt):
            dealt += len(event.cards)
    if not dealt:
        return None
    return len(hand.board) - dealt


def _sampled_runouts(rng: random.Random, unseen: list[int], missing: int, count: int) -> list[tuple[int, ...]]:
    """``count`` run-outs, each a uniformly random ``missing``-card subset of ``unseen``.

    Consecutive slices of one shuffle are disjoint boards, each uniform on its own; a fresh
    shuffle starts when one runs out (much faster than a ``sample`` call per board).
    """
    deck = list(unseen)
    per_shuffle = len(deck) // missing
    out: list[tuple[int, ...]] = []
    while len(out) < count:
        _shuffle(rng, deck)
        out.extend(tuple(deck[k * missing : (k + 1) * missing]) for k in range(min(per_shuffle, count - len(out))))
    return out


def _shuffle(rng: random.Random, deck: list[int]) -> None:
    """``rng.shuffle(deck)``, the same permutation from the same generator: Fisher-Yates from the last
    position, each index drawn by rejection from ``getrandbits`` as ``random.Random`` draws it, written
    out so that mypyc compiles the loop (``random.shuffle`` is interpreted: most of a pre-flop all-in's
    cost), and tied to the generator's bits only, not to the library's version of the loop."""
    getrandbits = rng.getrandbits
    for i in range(len(deck) - 1, 0, -1):
        k = (i + 1).bit_length()
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]


def _settle_share(values: Sequence[int], pots: Sequence[tuple[int, list[int]]], won: list[int]) -> None:
    """Add what each seat wins from ``pots`` (after rake) given the hand values by seat, split
    exactly as the engine splits them (``dealer.engine.rules.award``)."""
    for _, _, shares in award(pots, values):
        for s, chips in shares:
            won[s] += chips


def expected_winnings(
    hole: Sequence[tuple[int, int]],
    board: Sequence[int],
    pots: Sequence[tuple[int, list[int]]],
    dead: Sequence[int] = (),
    *,
    samples: int = PREFLOP_SAMPLES,
    seed: object = None,
) -> tuple[list[float], bool]:
    """Each seat's average winnings from ``pots`` over the run-outs of ``board`` to five cards.

    ``hole`` is by seat (only seats named in the pots matter); ``pots`` are (amount after rake,
    eligible seats in position order); ``dead`` are other known cards to exclude. Returns the
    averages and whether they are exact (every run-out) rather than a seeded sample.
    """
    n = len(hole)
    live = sorted({s for _, eligible in pots for s in eligible})
    seen = set(board) | set(dead) | {c for s in live for c in hole[s]}
    unseen = [c for c in range(52) if c not in seen]
    missing = 5 - len(board)
    won = [0] * n
    values = [0] * n
    board = tuple(board)
    if missing == 0:
        for s in live:
            values[s] = evaluate((*hole[s], *board))
        _settle_share(values, pots, won)
        return [float(w) for w in won], True
    total_boards = math.comb(len(unseen), missing)
    exact = total_boards <= EXACT_LIMIT
    runouts: Iterable[tuple[int, ...]]
    if exact:
        runouts = itertools.combinations(unseen, missing)
        count = total_boards
    else:
        rng = random.Random(repr(seed) if seed is not None else repr((tuple(hole[s] for s in live), board)))
        count = max(1, samples * 2 // len(live))  # the same number of evaluations at any table size
        runouts = _sampled_runouts(rng, unseen, missing, count)
    keys = _CARD_KEY
    base = _SUIT_START + sum(keys[c] for c in board)
    holes = [(s, (*hole[s], *board), base + keys[hole[s][0]] + keys[hole[s][1]]) for s in live]
    if len(pots) == 1 and len(holes) == 2:  # the common case, unrolled: heads-up, one pot
        amount = pots[0][0]
        (s0, cards0, key0), (s1, cards1, key1) = holes
        first = pots[0][1][0]
        w0, w1, ties = heads_up_showdowns(key0, cards0, key1, cards1, runouts)
        half, odd = divmod(amount, 2)
        won[s0] = w0 * amount + ties * (half + (odd if first == s0 else 0))
        won[s1] = w1 * amount + ties * (half + (odd if first == s1 else 0))
    else:
        for extra in runouts:
            k = 0
            for c in extra:
                k += keys[c]
            for s, cards, key in holes:
                values[s] = seven_card_value(key + k, cards, extra)
            _settle_share(values, pots, won)
    return [w / count for w in won], exact


def adjusted_net(hand: Hand, *, samples: int = PREFLOP_SAMPLES) -> list[float] | None:
    """Each seat's expected net chips over the run-outs of an all-in before the river, else ``None``.

    ``None`` when the hand is not over, ended by folds, or had its betting go to the river. The
    result is by engine seat: expected winnings minus contribution (exact from the flop or the
    turn, an unbiased seeded sample pre-flop; see the module docstring).
    """
    start = runout_start(hand)
    if start is None:
        return None
    board = hand.board[:start]
    _, pots = hand.raked_pots()
    won, _ = expected_winnings(hand.hole, board, pots, samples=samples)
    return [w - c for w, c in zip(won, hand.contributed, strict=True)]
