"""Luck correction at every chance node (AIVAT's chance terms, Burch et al., AAAI 2018).

AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling: "AIVAT: A New Variance Reduction Technique
for Agent Evaluation in Imperfect Information Games") subtracts from a hand's result, at every
chance event ``c`` after history ``h``, the term ``V(h c) - E_c'[V(h c')]``: how much better the
card that came was than the average card, by a value function ``V``. Whatever ``V`` is and
whatever the bots do, each term has expectation zero given everything before it, so the
corrected result is an unbiased estimate of the hand's expected result; the closer ``V`` is to
the true value, the more luck it removes. Bots are black boxes here: only chance nodes are
corrected, unless a bot says its probabilities (below).

The value function is the dealer's, who knows every hole card: a seat's showdown share of the
pots so far, ``V_i = sum over pots of amount * share_i - contributed_i``, where ``share_i`` is its
expected share of that pot over the remaining boards among the pot's eligible seats (ties split
evenly; no rake, no odd chips: any fixed function is unbiased). Chance nodes: the hole-card deal,
flop, turn and river, with the pots and live seats as they stand when the cards come. Since
``E_c'[share(h c')] = share(h)``, a node's term for seat ``i`` is ``sum_pots amount *
(share_i(after) - share_i(before))``:

* river, turn: exact (the 44 rivers; the 990 turn-river pairs heads-up, also the flop's value);
* flop: ``share(before)`` is the pre-flop equity (1.7 million boards heads-up, too many):
  ``PREFLOP_BOARDS`` boards from a fixed, seeded pool of random deck orders, chosen by the hole
  cards alone (each board uniform over the unseen cards, and nothing about the flop enters: an
  unbiased estimate, as in ``dealer.engine.equity``);
* hole-card deal: ``share(after)`` is that same estimate, ``share(before)`` is exactly
  ``1 / eligible seats`` (the boards depend on the set of hole cards, not on who holds which, so
  the estimate is exchangeable among seats and averages exactly to an even share over deals).

Unseen cards are the deck minus every seat's hole cards (folded ones too: they are not in the
deck the next card comes from) and the board. The terms of one hand sum to zero over the seats.
It generalises ``dealer.engine.equity``'s all-in adjustment: a hand all-in before the river ends up
scored by its equity when the betting ended, and every earlier card is corrected as well.

Decision terms (AIVAT with known strategies): at a decision whose bot reported the probability
``p(a)`` of each of its options (``read_strategy``), every seat's result is corrected by ``V(h a*)
- sum_a p(a) V(h a)``, the action taken against the average action, with the same ``V`` (the
pots and contributions just after the action; a fold leaves the folder nothing). Given the
history its expectation over the bot's draw is zero if the bot drew its action from the
probabilities it reported, so the estimate stays unbiased; a bot that lies biases only the
comparison it lies in, which is why these terms serve nothing but a comparison of its own versions.
"""

from __future__ import annotations

import itertools
import math
import random
import zlib
from collections.abc import Sequence

from dealer.engine.evaluator import (
    _CARD_KEY,
    _FIVE_OF_A_SUIT,
    _PLAIN_VALUES,
    _SUIT_SHIFT,
    _SUIT_START,
    evaluate,
    heads_up_showdowns,
    seven_card_value,
)
from dealer.engine.rules import Acted, Dealt, Hand, Legal, Posted, Returned, side_pots

PREFLOP_BOARDS = 200  # boards of the pre-flop equity estimate
_POOL_SIZE = 4096  # deck orders in the fixed pool the boards are drawn from
_POOL_DEPTH = 25  # cards kept of each order: enough to skip 10 seats' hole cards and make a board


def _pool() -> tuple[tuple[int, ...], ...]:
    """The fixed pool of random deck orders (their first ``_POOL_DEPTH`` cards), the same every run."""
    rng = random.Random("dealer.aivat preflop pool")  # its words as before the folders: the same pool
    return tuple(tuple(rng.sample(range(52), _POOL_DEPTH)) for _ in range(_POOL_SIZE))


_POOL = _pool()
Groups = tuple[tuple[int, ...], ...]
Cache = dict[tuple[int, Groups], list[list[float]]]
Option = tuple[bool, int, float]  # a strategy's option: folds, chips it adds, probability
Decision = tuple[tuple[Option, ...], int]  # a decision's options and the index of the one taken
TOLERANCE = 1e-6  # how far from 1 the probabilities of a strategy may sum


def _preflop_boards(hole: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
    """``PREFLOP_BOARDS`` five-card boards, each uniform over the cards not in ``hole``: the first
    five unseen cards of consecutive deck orders of the pool, starting where the set of hole cards
    (not their seats) points."""
    seen = [False] * 52
    for pair in hole:
        seen[pair[0]] = seen[pair[1]] = True
    start = zlib.crc32(bytes(sorted([c for pair in hole for c in pair]))) % _POOL_SIZE
    boards: list[tuple[int, ...]] = []
    for k in range(PREFLOP_BOARDS):
        order = _POOL[(start + k) % _POOL_SIZE]
        board: list[int] = []
        for c in order:
            if not seen[c]:
                board.append(c)
                if len(board) == 5:
                    break
        boards.append(tuple(board))
    return boards


def _runouts(hole: Sequence[tuple[int, int]], board: Sequence[int]) -> list[tuple[int, ...]]:
    """Every completion of ``board`` to five cards from the unseen cards (pre-flop: the sample)."""
    if not board:
        return _preflop_boards(hole)
    seen = set(board) | {c for pair in hole for c in pair}
    return list(itertools.combinations([c for c in range(52) if c not in seen], 5 - len(board)))


def shares(hole: Sequence[tuple[int, int]], board: Sequence[int], groups: Groups) -> list[list[float]]:
    """For each group of seats (a pot's eligible seats), each seat's expected share of a pot over the
    completions of ``board`` (ties split evenly); by seat, 0 outside the group. Pre-flop the sample."""
    n = len(hole)
    out = [[0.0] * n for _ in groups]
    live = sorted({s for g in groups for s in g})
    keys = _CARD_KEY
    base = _SUIT_START
    for c in board:
        base += keys[c]
    cards = [tuple(hole[s]) + tuple(board) for s in range(n)]
    start = [base + keys[hole[s][0]] + keys[hole[s][1]] for s in range(n)]
    if len(groups) == 1 and len(groups[0]) == 2 and len(board) >= 3:  # heads-up, one pot, after the flop
        return _heads_up(hole, board, groups[0][0], groups[0][1], n)
    runouts = _runouts(hole, board)
    count = len(runouts)
    if len(groups) == 1 and len(groups[0]) == 2:  # heads-up, one pot, pre-flop
        s0, s1 = groups[0][0], groups[0][1]
        key0, key1, cards0, cards1 = start[s0], start[s1], cards[s0], cards[s1]
        w0, _, ties = heads_up_showdowns(key0, cards0, key1, cards1, runouts)
        out[0][s0] = (w0 + ties / 2) / count
        out[0][s1] = (count - w0 - ties + ties / 2) / count  # not 1 - share: exactly mirrored
        return out
    values = [0] * n
    for extra in runouts:
        k = 0
        for c in extra:
            k += keys[c]
        for s in live:
            values[s] = seven_card_value(start[s] + k, cards[s], extra)
        for g in range(len(groups)):
            group = groups[g]
            best = max([values[s] for s in group])
            winners = [s for s in group if values[s] == best]
            for s in winners:
                out[g][s] += 1 / len(winners)
    return [[x / count for x in row] for row in out]


def _heads_up(hole: Sequence[tuple[int, int]], board: Sequence[int], s0: int, s1: int, n: int) -> list[list[float]]:
    """``shares`` of one pot between two seats over every turn and river (or river), loops unrolled."""
    keys = _CARD_KEY
    seen = set(board) | {c for pair in hole for c in pair}
    unseen = [c for c in range(52) if c not in seen]
    base = _SUIT_START
    for c in board:
        base += keys[c]
    key0 = base + keys[hole[s0][0]] + keys[hole[s0][1]]
    key1 = base + keys[hole[s1][0]] + keys[hole[s1][1]]
    cards0 = tuple(hole[s0]) + tuple(board)
    cards1 = tuple(hole[s1]) + tuple(board)
    w0 = ties = count = 0
    if len(board) == 4:
        for c in unseen:
            k0, k1 = key0 + keys[c], key1 + keys[c]
            v0 = seven_card_value(k0, cards0, (c,))
            v1 = seven_card_value(k1, cards1, (c,))
            count += 1
            if v0 > v1:
                w0 += 1
            elif v0 == v1:
                ties += 1
    elif len(board) == 3:
        m = len(unseen)
        for i in range(m):
            t = unseen[i]
            t0, t1 = key0 + keys[t], key1 + keys[t]
            for j in range(i + 1, m):
                r = unseen[j]
                k0, k1 = t0 + keys[r], t1 + keys[r]
                if (k0 | k1) & _FIVE_OF_A_SUIT:
                    v0 = seven_card_value(k0, cards0, (t, r))
                    v1 = seven_card_value(k1, cards1, (t, r))
                else:
                    v0 = _PLAIN_VALUES[k0 >> _SUIT_SHIFT]
                    v1 = _PLAIN_VALUES[k1 >> _SUIT_SHIFT]
                count += 1
                if v0 > v1:
                    w0 += 1
                elif v0 == v1:
                    ties += 1
    else:
        v0, v1 = evaluate(cards0), evaluate(cards1)
        count, w0, ties = 1, int(v0 > v1), int(v0 == v1)
    out = [[0.0] * n]
    out[0][s0] = (w0 + ties / 2) / count
    out[0][s1] = (count - w0 - ties + ties / 2) / count  # not 1 - share: exactly mirrored
    return out


def _nodes(hand: Hand) -> list[tuple[int, list[int], list[bool]]]:
    """The chance nodes of a finished hand: (board cards before it, chips put in, folded) as they
    stood when its cards came; the hole-card deal first (board -1: nothing dealt yet)."""
    contributed, folded = [0] * hand.n, [False] * hand.n
    nodes: list[tuple[int, list[int], list[bool]]] = []
    board = 0
    dealt_hole = False
    for event in hand.events:
        if not dealt_hole and not isinstance(event, Posted):
            nodes.append((-1, list(contributed), list(folded)))
            dealt_hole = True
        if isinstance(event, Posted):
            contributed[event.seat] += event.amount
        elif isinstance(event, Acted):
            contributed[event.seat] += event.amount
            if event.kind == "fold":
                folded[event.seat] = True
        elif isinstance(event, Returned):
            contributed[event.seat] -= event.amount
        elif isinstance(event, Dealt):
            nodes.append((board, list(contributed), list(folded)))
            board += len(event.cards)
    return nodes


def _cached(cache: Cache, hand: Hand, board_len: int, groups: Groups) -> list[list[float]]:
    """``shares`` of the hand's board cut to ``board_len`` cards, computed once per hand."""
    got = cache.get((board_len, groups))
    if got is None:
        got = cache[(board_len, groups)] = shares(hand.hole, hand.board[:board_len], groups)
    return got


def chance_changes(hand: Hand, cache: Cache) -> list[tuple[list[int], list[bool], list[tuple[int, int, float]]]]:
    """What each chance node of a finished hand (the hole-card deal first, then each street dealt)
    changed: the chips each seat had put in and who had folded before it, and for each pot two or
    more seats contest, (its amount, a seat, that seat's share of it after the cards less before)."""
    steps: list[tuple[list[int], list[bool], list[tuple[int, int, float]]]] = []
    for before, contributed, folded in _nodes(hand):
        changes: list[tuple[int, int, float]] = []
        steps.append((contributed, folded, changes))
        pots = [
            (amount, tuple(eligible))
            for amount, eligible in side_pots(contributed, folded, hand.order)
            if len(eligible) > 1
        ]  # a pot of one seat is that seat's whatever comes
        if not pots:
            continue
        groups = tuple(sorted({g for _, g in pots}))
        after = 0 if before < 0 else (3 if before == 0 else before + 1)
        now = _cached(cache, hand, after, groups)
        if before < 0:
            then = [[1 / len(g) if s in g else 0.0 for s in range(hand.n)] for g in groups]
        else:
            then = _cached(cache, hand, before, groups)
        for amount, g in pots:
            k = groups.index(g)
            changes.extend((amount, s, now[k][s] - then[k][s]) for s in g)
    return steps


def chance_terms(hand: Hand, cache: Cache | None = None) -> list[list[float]]:
    """The luck terms of a finished hand's chance nodes in chips, one row by seat per node (the
    hole-card deal first, then each street dealt; module doc). Each row sums to 0 over the seats."""
    terms: list[list[float]] = []
    for _, _, changes in chance_changes(hand, {} if cache is None else cache):
        row = [0.0] * hand.n
        for amount, s, change in changes:
            row[s] += amount * change
        terms.append(row)
    return terms


def chance_luck(hand: Hand) -> list[float]:
    """Each seat's luck in a finished hand, summed over its chance nodes, in chips: subtract it from
    the seat's result for an unbiased, less noisy estimate. Sums to 0 over the seats."""
    luck = [0.0] * hand.n
    for row in chance_terms(hand):
        for s in range(hand.n):
            luck[s] += row[s]
    return luck


def read_strategy(options: Sequence[tuple[str, int, float]], legal: Legal, bet: int, taken: Acted) -> Decision | str:
    """A reported strategy, options as (action name, raise-to amount, probability), at a decision
    where ``legal`` held and the actor had bet ``bet`` in the round, then did ``taken``: the
    options as the dealer applies them (a fold when nothing is owed is a check; equal ones added
    up) and the index of the one taken, or a one-line reason why it cannot be used."""
    merged: dict[tuple[bool, int], float] = {}
    total = 0.0
    for kind, amount, probability in options:
        if not (math.isfinite(probability) and 0.0 <= probability <= 1.0):
            return f"the probability of {kind} is {probability!r}, not in [0, 1]"
        if kind == "fold" and legal.fold:
            key = (True, 0)
        elif kind == "fold" or kind == "check_call":
            key = (False, legal.call)
        elif kind == "bet_raise":
            if not (legal.max_to and legal.min_to <= amount <= legal.max_to):
                return f"option raise to {amount} is outside {legal.min_to}..{legal.max_to}"
            key = (False, amount - bet)
        else:
            return f"option of unknown action type {kind}"
        merged[key] = merged.get(key, 0.0) + probability
        total += probability
    if abs(total - 1.0) > TOLERANCE:
        return f"probabilities sum to {total:.9g}, not 1"
    done = (taken.kind == "fold", taken.amount)
    if merged.get(done, 0.0) <= 0.0:
        return f"the action taken ({taken.kind} {taken.amount}) has no probability in the strategy"
    keys = list(merged)
    return tuple([(k[0], k[1], merged[k] / total) for k in keys]), keys.index(done)


def _values(hand: Hand, cache: Cache, board_len: int, contributed: list[int], folded: list[bool]) -> list[float]:
    """Each seat's value ``V``: its expected share of the pots over the run-outs of the board so
    far, minus the chips it put in (module doc)."""
    values = [-float(c) for c in contributed]
    contested: list[tuple[int, tuple[int, ...]]] = []
    for amount, eligible in side_pots(contributed, folded, hand.order):
        if len(eligible) == 1:
            values[eligible[0]] += amount
        else:
            contested.append((amount, tuple(eligible)))
    if contested:
        groups = tuple(sorted({g for _, g in contested}))
        now = _cached(cache, hand, board_len, groups)
        for amount, g in contested:
            k = groups.index(g)
            for s in g:
                values[s] += amount * now[k][s]
    return values


def decision_luck(hand: Hand, decisions: dict[int, Decision], cache: Cache | None = None) -> list[float]:
    """Each seat's luck from the bots' draws at the decisions with known strategies, by the index
    of their ``Acted`` record in ``hand.events``: the sum of ``V(taken) - sum_a p(a) V(a)`` (module
    doc), in chips. Sums to 0 over the seats."""
    n = hand.n
    luck = [0.0] * n
    if cache is None:
        cache = {}
    contributed, folded = [0] * n, [False] * n
    board = 0
    for index, event in enumerate(hand.events):
        if isinstance(event, Acted):
            decision = decisions.get(index)
            if decision is not None:
                options, taken = decision
                seat = event.seat
                expected = [0.0] * n
                chosen: list[float] = []
                for k, (folds, added, probability) in enumerate(options):
                    after, out = list(contributed), list(folded)
                    after[seat] += added
                    out[seat] = out[seat] or folds
                    values = _values(hand, cache, board, after, out)
                    if k == taken:
                        chosen = values
                    for s in range(n):
                        expected[s] += probability * values[s]
                for s in range(n):
                    luck[s] += chosen[s] - expected[s]
            contributed[event.seat] += event.amount
            if event.kind == "fold":
                folded[event.seat] = True
        elif isinstance(event, Posted):
            contributed[event.seat] += event.amount
        elif isinstance(event, Returned):
            contributed[event.seat] -= event.amount
        elif isinstance(event, Dealt):
            board += len(event.cards)
    return luck


def hand_luck(hand: Hand, decisions: dict[int, Decision]) -> tuple[list[float], list[float]]:
    """``chance_luck`` and ``decision_luck`` of a finished hand, the shares computed once for both."""
    cache: Cache = {}
    chance = [0.0] * hand.n
    for row in chance_terms(hand, cache):
        for s in range(hand.n):
            chance[s] += row[s]
    return chance, decision_luck(hand, decisions, cache) if decisions else [0.0] * hand.n
