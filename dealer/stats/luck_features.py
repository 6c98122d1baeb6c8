"""Luck features of a finished hand: the chance terms of ``dealer.stats.aivat`` split by street and weighted
by what the betting could still make of them, each with expectation zero (pure: no I/O, clock or RNG).

AIVAT's chance term at a node is ``V(h c) - E_c'[V(h c')]``. With a value function linear in the seats'
showdown shares, ``V(h c) = sum_j phi_j(h) * share(h c)`` where the weights ``phi_j`` are fixed
before the card comes, the term is ``sum_j phi_j(h) * (share(h c) - share(h))``: each product
``phi_j(h) * (share after - share before)`` has expectation zero given ``h`` (the share is a
martingale over the cards), whatever ``phi`` is and whatever the bots do. ``dealer.stats.aivat`` uses one
weight, the pot so far. Here every node gives several columns (``FEATURES``):

* ``pot`` by street (flop, turn, river): the pot so far times the change of share, as ``dealer.stats.aivat``
  (its deal-node term is a fixed multiple of the deal's ``behind`` column, so it is not repeated);
* ``behind`` by street (deal, flop, turn, river): the chips still behind (the smallest stack left
  among the seats not folded) times the change of share: the betting a card can still unlock;
* ``button`` by street after the deal: ``behind`` again, only for the seat on the button, which acts
  last after the flop and wins more of what is behind;
* ``duel`` on the turn and the river (``DUELS``, and on the river ``STRENGTHS``): the chips behind times
  the change a card made to ``duel_k x (share - 1 / m)``, where ``duel_k`` says that every one of the ``m`` seats
  still in holds a hand of category ``k`` or better (a pair, two pair) that uses a hole card (better
  than the board alone), or (``STRENGTHS``) a hand that beats at least that share of the hands an
  opponent could hold (``strength``: its hand on the river, against a fixed list of holdings), and
  ``share`` is the seat's showdown share among them. This is the betting war the shares alone do not
  see: measured on the benchmark pairs, nearly all the variance left is in the few deals where a turn
  or river gives both seats a hand worth stacks, and a bot that bets by its hand's strength goes to
  war when both think themselves strong, whatever the categories (two pair against a paired board's
  own two pair, two straights). Its "before" is the exact mean over every card that could have come
  (cards in nobody's hand, not on the board), so it too has expectation zero. A duplicate comparison
  splits these columns by the seat the new version held (``dealer.stats.paired``): at a node both
  seatings reached alike they are equal and opposite, and only split do they tell which version the
  card favoured.

A comparison weights the columns by coefficients fitted on other deals (``dealer.stats.control``): a
learned value function, linear in these features; since every column has mean zero, any fixed
weights keep the estimate unbiased. Same run-outs and estimates as ``dealer.stats.aivat`` (exact turn and
river, the pre-flop sample for the flop's "before", an even share before the deal).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import lru_cache

from dealer.engine.evaluator import evaluate, hand_category
from dealer.engine.rules import Hand
from dealer.stats.aivat import Cache, chance_changes, shares

FEATURES: tuple[str, ...] = (
    "pot flop",
    "pot turn",
    "pot river",
    "behind deal",
    "behind flop",
    "behind turn",
    "behind river",
    "button flop",
    "button turn",
    "button river",
    "duel pair turn",
    "duel two pair turn",
    "duel pair river",
    "duel two pair river",
    "duel strength 70 river",
    "duel strength 80 river",
)
DUELS = (1, 2)  # the hand categories of the duel columns: a pair, two pair (``evaluator.hand_category``)
STRENGTHS = (70, 80)  # the strengths (percent of HOLDINGS beaten, ties half) of the river's next duel columns
HOLDINGS = 60  # opponent holdings a hand's strength is measured against
DUEL_COLUMNS: tuple[int, ...] = tuple(k for k, name in enumerate(FEATURES) if name.startswith("duel"))
_POT = {1: 0, 2: 1, 3: 2}  # node index (0 the deal) -> column of its pot feature
_BEHIND = {0: 3, 1: 4, 2: 5, 3: 6}
_BUTTON = {1: 7, 2: 8, 3: 9}
_DUEL = {2: 10, 3: 10 + len(DUELS)}  # node -> first duel column (the river's: DUELS, then STRENGTHS)
_LIMITS = tuple(k * 2 * HOLDINGS // 100 for k in STRENGTHS)  # the strengths in half points


def _holdings() -> tuple[tuple[int, int], ...]:
    """Every two-card holding in a fixed, seeded order, the same every run (``strength``'s opponents)."""
    pairs = list(itertools.combinations(range(52), 2))
    random.Random("dealer.luck_features holdings").shuffle(pairs)
    return tuple(pairs)


_HOLDINGS = _holdings()


def luck_features(hand: Hand, cache: Cache | None = None) -> list[list[float]]:
    """Each seat's luck features (``FEATURES``, in chips) of a finished hand: one row by seat. Each
    column has expectation zero over the cards (module doc)."""
    n = hand.n
    rows = [[0.0] * len(FEATURES) for _ in range(n)]
    stacks = hand.config.stacks
    button = hand.config.button
    for node, (contributed, folded, changes) in enumerate(chance_changes(hand, {} if cache is None else cache)):
        if not changes:
            continue
        behind = float(min(stacks[s] - contributed[s] for s in range(n) if not folded[s]))
        for amount, s, change in changes:
            row = rows[s]
            if node in _POT:
                row[_POT[node]] += amount * change
            row[_BEHIND[node]] += behind * change
            if node in _BUTTON and s == button:
                row[_BUTTON[node]] += behind * change
        if node in _DUEL:
            _add_duels(rows, hand, node, [s for s in range(n) if not folded[s]], behind)
    return rows


def _add_duels(rows: list[list[float]], hand: Hand, node: int, live: list[int], behind: float) -> None:
    """Add the duel columns of the turn (node 2) or river (node 3): behind x (after - exact mean before)."""
    seats, board = tuple(live), tuple(hand.board[: node + 2])
    after = _duel(hand.hole, seats, board)
    before = _duel_mean(hand.hole, seats, board[:-1])
    first = _DUEL[node]
    for k, s in enumerate(live):
        for j, (x, x0) in enumerate(zip(after[k], before[k], strict=True)):
            rows[s][first + j] += behind * (x - x0)


def _board_category(board: Sequence[int]) -> int:
    """The category of the board's own best hand (pairs and sets only below five cards)."""
    if len(board) >= 5:
        return hand_category(evaluate(board))
    counts = sorted((sum(1 for c in board if c >> 2 == r) for r in {c >> 2 for c in board}), reverse=True)
    if counts[0] >= 3:
        return 7 if counts[0] == 4 else 3
    return 0 if counts[0] < 2 else 2 if len(counts) > 1 and counts[1] == 2 else 1


def strength(holes: Sequence[Sequence[int]], board: Sequence[int]) -> int:
    """How many of ``STRENGTHS`` the weakest hand of ``holes`` reaches on a river ``board``: the share of
    ``HOLDINGS`` opponent holdings it beats (ties half), the first of ``_HOLDINGS`` with no card of that
    hand or of the board. The strength of a hand against a random one, as a bot that bets by its equity
    sees it; a fixed function of the cards, so the duel columns built on it keep their exact mean. Counts
    stop as soon as the answer is known (a hand below the first, or every hand above the last)."""
    mine = [evaluate((*hole, *board)) for hole in holes]
    points, seen = [0] * len(holes), [0] * len(holes)
    lowest, highest = 2 * HOLDINGS - _LIMITS[0], _LIMITS[-1]  # half points one may lose; enough for the last
    for a, b in _HOLDINGS:
        if a in board or b in board:
            continue
        theirs = evaluate((a, b, *board))
        for k, hole in enumerate(holes):
            if seen[k] < HOLDINGS and a not in hole and b not in hole:
                points[k] += 2 if mine[k] > theirs else mine[k] == theirs
                seen[k] += 1
                if 2 * seen[k] - points[k] > lowest:
                    return 0
        if all(p >= highest or n == HOLDINGS for p, n in zip(points, seen, strict=True)):
            break
    return sum(1 for limit in _LIMITS if min(points) >= limit)


def _duel(hole: tuple[tuple[int, int], ...], live: tuple[int, ...], board: tuple[int, ...]) -> list[list[float]]:
    """``duel_k x (share - 1 / m)`` by seat of ``live`` (rows) and duel column (``DUELS`` categories, and on
    the river ``STRENGTHS``) on a turn or river board, the share over every river of a turn board
    (``aivat.shares``)."""
    floor = _board_category(board)
    least = min(hand_category(evaluate((*hole[s], *board))) for s in live)
    duels = [float(least > floor and least >= k) for k in DUELS]
    if len(board) == 5:
        level = strength([hole[s] for s in live], board)
        duels += [float(level > j) for j in range(len(STRENGTHS))]
    if not any(duels):
        return [[0.0] * len(duels) for _ in live]
    share = shares(hole, board, (live,))[0]
    return [[d * (share[s] - 1 / len(live)) for d in duels] for s in live]


@lru_cache(maxsize=4096)
def _duel_mean(hole: tuple[tuple[int, int], ...], live: tuple[int, ...], board: tuple[int, ...]) -> list[list[float]]:
    """The exact mean of ``_duel`` over every card that may follow ``board`` (in nobody's hand)."""
    dead = {c for pair in hole for c in pair}
    cards = [c for c in range(52) if c not in dead and c not in board]
    total: list[list[float]] = []
    for card in cards:
        duels = _duel(hole, live, (*board, card))
        if not total:  # as wide as ``_duel``'s rows (the river's have the strength columns too)
            total = [[0.0] * len(values) for values in duels]
        for row, values in zip(total, duels, strict=True):
            for j, v in enumerate(values):
                row[j] += v / len(cards)
    return total
