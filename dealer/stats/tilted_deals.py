"""Tilted deals: a comparison's hole cards, flop, turn and river drawn from a proposal that deals more often
the hands and boards where the two hands meet, each deal's result weighted by ``p / q`` (importance sampling).

Why: what duplicate deals and the luck corrections leave of a comparison's variance sits in a dozen
stack-sized wars per 6,000 deals, nearly all in deals where both hands have made something by the
river, after play that parted on the flop. The dealer chooses the cards, so it can deal those boards
more often and count each one less: ``E_q[w X] = E_p[X]`` for any result ``X`` of the deal, so the
weighted mean keeps the plain mean whatever the bots do, and the luck corrections keep their zero mean
(taken under ``p``).

How, exactly (no normalising constant estimated): the hole cards are drawn first, then the flop, then the
turn and river, each stage from a mixture of a score and the shuffle; the burns are the ordinary shuffle's
of the deal's key (``cards.shuffled_deck``), never seen:

* The hole cards: of the ``N0`` pairs (seat 0's hand, seat 1's hand) of two disjoint hands, pair ``h``
  with probability ``(1 - u0) g_h / G0 + u0 / N0``, ``g_h`` a whole-number score of the two hands' classes
  (``hole_class``: a high pair, a low pair, two high cards, an ace, suited, the rest), ``G0`` their sum
  over every pair, counted exactly by class (``HOLE_COUNTS``). Each hand's two cards come in a fair order.
* The flop: of the ``N1`` flops (sets of three of the cards left), flop ``f`` with probability
  ``(1 - u1) g_f / G1 + u1 / N1``, ``g_f`` a whole-number score of the two hands' levels on the flop
  counted from ranks alone (``flop_level``), ``G1`` their sum over every flop, counted exactly
  by rank (a flop's score depends on its ranks only: ``Proposal.flop_groups``). Its order on the table
  is a fair draw of the six, as in the shuffle.
* The turn and river: of the ``N`` unordered pairs of the cards left, pair ``i`` becomes {turn, river}
  with probability ``q_i = (1 - u) g_i / G + u / N``, ``g_i`` a whole-number score of the two hands'
  levels on that board (``Proposal.score``), ``G`` their sum; which of the two is the turn is a fair
  coin, as in the shuffle.

Under the shuffle each pair of hands has ``1 / N0``, each flop ``1 / N1`` and each pair ``1 / N``, so for
``u = a / b`` a stage's weight is ``b G / ((b - a) N g + a G)``, at most ``1 / u``, and the deal's is the
product of the three: exact. Each draw is whole-number arithmetic on a SHA-256 stream of the key, so the
same key gives the same deck and weight on any machine; both seatings of a duplicate deal share them.

Heads-up tables only (every comparison's tables are). The run-out scores were chosen on the pools of
``benchmarks/compare_verdicts.py`` with seed ``verdicts36-dev``, the flop scores and then the hole scores on
its shuffled pools of seeds ``tiltdev60`` and ``tiltdev61``, 120,000 deals a pair (``benchmarks/tilt_study.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Final

from dealer.config.choices import Deals
from dealer.engine.cards import DECK_SIZE, shuffled_deck
from dealer.engine.evaluator import _CARD_KEY, _SUIT_START, evaluate, hand_category, seven_card_value

HEADS_UP_CARDS: Final = 12  # 2 seats: holes 0-3, flop 5-7, turn 9, river 11 (burns 4, 8, 10)
TURN: Final = 9
RIVER: Final = 11
# The score of a run-out by (the lower level of the two hands, capped at 2; the higher, capped at 3), where
# a hand's level is its category (0 high card .. 8 straight flush) if above the board's own, else 0.
SCORES: Final = ((1, 2, 3, 8), (8, 8, 20, 20), (20, 20, 20, 20))
FLOP: Final = (5, 6, 7)
# The score of a flop by the two hands' levels on it (``flop_level``: 0 nothing, 1 a pair, 2 two pair or
# better), ``FLOP_SCORES[lower][higher - lower]``: most where one hand has hit and the other not, whose play
# parts on the flop and may meet on the turn or river; least where both have paired and play alike.
FLOP_SCORES: Final = ((8, 16, 24), (2, 3), (6,))
# The score of a deal's hole cards by the two hands' classes (``hole_class``: 0 a pair of jacks or better, 1 a
# lower pair, 2 two cards of ten or better, 3 an ace and a lower card, 4 suited, 5 anything else),
# ``HOLE_SCORES[lower][higher - lower]``: most where strong hands meet (a high pair and two high cards), least
# where one hand is weak and the other strong (the weak one folds in both seatings).
HOLE_SCORES: Final = ((3, 3, 9, 2, 6, 1), (3, 6, 4, 6, 4), (7, 5, 8, 6), (2, 5, 4), (5, 4), (2,))
HOLE_CLASSES: Final = 6
RANK_CARDS: Final = 4  # cards of each rank
RANK_FLOPS: Final = tuple(combinations_with_replacement(range(DECK_SIZE // RANK_CARDS), 3))  # 455 multisets
RANK_FLOP_PARTS: Final = tuple(tuple((r, ranks.count(r)) for r in sorted(set(ranks))) for ranks in RANK_FLOPS)
_CHOOSE: Final = tuple(tuple(comb(n, k) for k in range(4)) for n in range(RANK_CARDS + 1))
# Which proposal deals a comparison's tilted decks, recorded in its compare.json (``dealer verify`` re-deals
# this one only): 1 the run-outs' stage alone (before issue 35's eighth attempt), 2 the flop's stage too, 3 the
# hole cards' stage too (issue 35's ninth attempt).
PROPOSAL_VERSION: Final = 3


def _rank_category(multiplicities: list[int]) -> int:
    """The category that ranks alone make: 0 no pair, 1 a pair, 2 two pair, 3 trips, 6 full house, 7 quads."""
    ordered = sorted(multiplicities, reverse=True)
    top, second = ordered[0], ordered[1] if len(ordered) > 1 else 0
    if top >= 4:
        return 7
    if top == 3:
        return 6 if second >= 2 else 3
    if top == 2:
        return 2 if second >= 2 else 1
    return 0


def _multiplicities(ranks: list[int]) -> list[int]:
    """How many times each rank of ``ranks`` comes."""
    return [ranks.count(r) for r in set(ranks)]


def flop_level(hole_ranks: tuple[int, int], flop_ranks: tuple[int, int, int]) -> int:
    """A hand's level on a flop from ranks alone (no straights or flushes): the category its hole ranks make
    with the flop's, capped at 2 (two pair or better), if above the flop's own, else 0."""
    own = _rank_category(_multiplicities(list(flop_ranks)))
    category = _rank_category(_multiplicities([*hole_ranks, *flop_ranks]))
    return min(category, 2) if category > own else 0


@cache  # one entry per pair of hole ranks: 91 at most
def _flop_levels(hole_ranks: tuple[int, ...]) -> tuple[int, ...]:
    """A hand's ``flop_level`` on each flop of ``RANK_FLOPS``: the flop's stage reads it from here."""
    low, high = hole_ranks
    return tuple(flop_level((low, high), ranks) for ranks in RANK_FLOPS)


def hole_class(hole: tuple[int, int]) -> int:
    """A hand's class before the flop (``HOLE_SCORES``): 0 a pair of jacks or better, 1 a lower pair, 2 two
    cards of ten or better, 3 an ace and a lower card, 4 suited, 5 anything else."""
    low, high = sorted(card // RANK_CARDS for card in hole)
    if low == high:
        return 0 if low >= 9 else 1  # ranks 0 (a deuce) to 12 (an ace): 9 is a jack
    if low >= 8:
        return 2
    if high == 12:
        return 3
    return 4 if hole[0] % RANK_CARDS == hole[1] % RANK_CARDS else 5


HANDS: Final = tuple(combinations(range(DECK_SIZE), 2))  # every hand of two cards, lower card first
_HANDS_BY_CLASS: Final = tuple(tuple(h for h in HANDS if hole_class(h) == k) for k in range(HOLE_CLASSES))


def _hole_counts() -> tuple[tuple[int, ...], ...]:
    """How many (seat 0's hand, seat 1's hand) of two disjoint hands there are, by the two hands' classes:
    for each hand of a class, the other class's hands less those that hold one of its cards."""
    holding = [[0] * DECK_SIZE for _ in range(HOLE_CLASSES)]  # hands of a class holding a card
    for k, hands in enumerate(_HANDS_BY_CLASS):
        for hand in hands:
            for card in hand:
                holding[k][card] += 1
    counts = [[0] * HOLE_CLASSES for _ in range(HOLE_CLASSES)]
    for a, hands in enumerate(_HANDS_BY_CLASS):
        for x, y in hands:
            for b in range(HOLE_CLASSES):
                counts[a][b] += len(_HANDS_BY_CLASS[b]) - holding[b][x] - holding[b][y] + (a == b)
    return tuple(tuple(row) for row in counts)


HOLE_COUNTS: Final = _hole_counts()  # [class of seat 0's hand][class of seat 1's]: 1,624,350 in all
HOLE_PAIRS: Final = sum(map(sum, HOLE_COUNTS))  # N0: the pairs of disjoint hands
HOLE_CELLS: Final = tuple((i, j) for i in range(HOLE_CLASSES) for j in range(HOLE_CLASSES))  # (seat 0's, seat 1's)


def level(hole: tuple[int, int], board: list[int], board_category: int) -> int:
    """A hand's level on a five-card board: its category if the hole cards make it better than the
    board's own category, else 0 (the board plays)."""
    category = hand_category(evaluate([*hole, *board]))
    return category if category > board_category else 0


@dataclass(frozen=True)
class Proposal:
    """How the hole cards, then the flop, then the turn and river, are drawn. The holes: ``hole_scores[lo][hi
    - lo]`` by the two hands' classes (``hole_class``), and ``hole_uniform`` drawn as the shuffle. The turn and
    river: ``scores[lo][hi]`` by the two hands' levels (``lo`` capped at ``len(scores) - 1``, ``hi`` at the
    row's length - 1), and the ``uniform`` share drawn as the shuffle. The flop: ``flop_scores[lo][hi - lo]``
    by the two hands' flop levels (0-2), and ``flop_uniform`` drawn as the shuffle. A stage's scores all
    alike draw it as the shuffle does."""

    scores: tuple[tuple[int, ...], ...] = SCORES
    uniform: Fraction = Fraction(1, 10)
    flop_scores: tuple[tuple[int, ...], ...] = FLOP_SCORES
    flop_uniform: Fraction = Fraction(1, 5)
    hole_scores: tuple[tuple[int, ...], ...] = HOLE_SCORES
    hole_uniform: Fraction = Fraction(1, 5)

    def __post_init__(self) -> None:
        tables = (("scores", self.scores), ("flop scores", self.flop_scores), ("hole scores", self.hole_scores))
        for name, table in tables:
            if not table or any(not row or any(not isinstance(g, int) or g < 1 for g in row) for row in table):
                raise ValueError(f"the {name} must be rows of whole numbers >= 1, not {table}")
        if [len(row) for row in self.flop_scores] != [3, 2, 1]:
            raise ValueError(f"the flop scores must be rows of 3, 2 and 1 (lower levels 0-2), not {self.flop_scores}")
        if [len(row) for row in self.hole_scores] != list(range(HOLE_CLASSES, 0, -1)):
            raise ValueError(f"the hole scores must be rows of 6, 5, .., 1 (lower classes 0-5), not {self.hole_scores}")
        shares = (
            ("uniform share", self.uniform),
            ("flop's uniform share", self.flop_uniform),
            ("holes' uniform share", self.hole_uniform),
        )
        for name, share in shares:
            if not 0 < share <= 1:
                raise ValueError(f"the {name} must be in (0, 1], not {share}")

    def hole_score(self, first: int, second: int) -> int:
        """The score of a deal's hole cards whose hands are of classes ``first`` and ``second``."""
        low, high = (first, second) if first < second else (second, first)
        return self.hole_scores[low][high - low]

    def hole_weight(self, first: int, second: int) -> Fraction:
        """``p / q`` of a pair of hands of classes ``first`` (seat 0's) and ``second``: the shuffle's ``1 / N0``
        over the proposal's probability, the pair's mass over the masses' sum (``hole_stage``)."""
        masses, _, total = hole_stage(self)
        return Fraction(total, HOLE_PAIRS * masses[HOLE_CELLS.index((first, second))])

    def flop_score(self, holes: tuple[tuple[int, int], tuple[int, int]], flop_ranks: tuple[int, int, int]) -> int:
        """The score of a flop (by its ranks) for the two hands."""
        a, b = (flop_level((hole[0] // RANK_CARDS, hole[1] // RANK_CARDS), flop_ranks) for hole in holes)
        low, high = min(a, b), max(a, b)
        return self.flop_scores[low][high - low]

    def flop_groups(
        self, holes: tuple[tuple[int, int], tuple[int, int]]
    ) -> list[tuple[tuple[int, int, int], int, int]]:
        """Every flop's ranks (a multiset, ascending) that the cards left can make, how many flops make it, and
        its score: the flops grouped by rank, since a flop's score depends on its ranks only."""
        held = [0] * (DECK_SIZE // RANK_CARDS)
        for hole in holes:
            for card in hole:
                held[card // RANK_CARDS] += 1
        first, second = (_flop_levels(tuple(sorted(card // RANK_CARDS for card in hole))) for hole in holes)
        rows = self.flop_scores
        groups = []
        for ranks, parts, a, b in zip(RANK_FLOPS, RANK_FLOP_PARTS, first, second, strict=True):
            count = 1
            for rank, times in parts:
                count *= _CHOOSE[RANK_CARDS - held[rank]][times]
            if count:
                low, high = (a, b) if a < b else (b, a)
                groups.append((ranks, count, rows[low][high - low]))
        return groups

    def flop_masses(self, groups: list[tuple[tuple[int, int, int], int, int]]) -> list[int]:
        """Each flop's probability under the proposal times ``b N1 G1``, by group (``flop_uniform = a / b``)."""
        a, b = self.flop_uniform.numerator, self.flop_uniform.denominator
        n = sum(count for _, count, _ in groups)
        total = sum(count * g for _, count, g in groups)
        return [(b - a) * n * g + a * total for _, _, g in groups]

    def score(self, holes: tuple[tuple[int, int], tuple[int, int]], board: list[int]) -> int:
        """The score of a five-card board for the two hands."""
        board_category = hand_category(evaluate(board))
        a, b = (level(hole, board, board_category) for hole in holes)
        row = self.scores[min(min(a, b), len(self.scores) - 1)]
        return row[min(max(a, b), len(row) - 1)]

    def runouts(
        self, holes: tuple[tuple[int, int], tuple[int, int]], flop: list[int]
    ) -> tuple[list[tuple[int, int]], list[int]]:
        """Every unordered pair {turn, river} of the cards left, in card order, and its score (``score``'s,
        from the evaluator's summed card keys as ``dealer.engine.equity`` does: the dealer's hot path)."""
        seen = {*holes[0], *holes[1], *flop}
        left = [c for c in range(DECK_SIZE) if c not in seen]
        keys, rows = _CARD_KEY, self.scores
        top = len(rows) - 1
        widest = [len(row) - 1 for row in rows]
        board_key = _SUIT_START + sum(keys[c] for c in flop)
        f, h0, h1 = tuple(flop), (*holes[0], *flop), (*holes[1], *flop)
        k0 = board_key + keys[holes[0][0]] + keys[holes[0][1]]
        k1 = board_key + keys[holes[1][0]] + keys[holes[1][1]]
        pairs: list[tuple[int, int]] = []
        scores: list[int] = []
        for i, c in enumerate(left):
            kc = keys[c]
            for d in left[i + 1 :]:
                extra, k = (c, d), kc + keys[d]
                board = seven_card_value(board_key + k, f, extra) >> 20
                a = seven_card_value(k0 + k, h0, extra) >> 20
                b = seven_card_value(k1 + k, h1, extra) >> 20
                if a <= board:
                    a = 0
                if b <= board:
                    b = 0
                lo, hi = (a, b) if a < b else (b, a)
                if lo > top:
                    lo = top
                pairs.append(extra)
                scores.append(rows[lo][hi if hi < widest[lo] else widest[lo]])
        return pairs, scores

    def masses(self, scores: list[int]) -> list[int]:
        """Each pair's probability under the proposal times ``b N G`` (whole numbers; ``uniform = a / b``)."""
        a, b = self.uniform.numerator, self.uniform.denominator
        n, total = len(scores), sum(scores)
        return [(b - a) * n * g + a * total for g in scores]

    def weight(self, scores: list[int], index: int) -> Fraction:
        """``p / q`` of pair ``index``: the shuffle's probability ``1 / N`` over the proposal's."""
        return weight_of(self.masses(scores), index)


PROPOSAL: Final = Proposal()


@cache  # fixed for a proposal: laid out once, not for every deal
def hole_stage(proposal: Proposal) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The holes' stage of ``proposal`` by cell (``HOLE_CELLS``): each pair of hands' probability times ``b N0
    G0`` (``hole_uniform = a / b``; ``G0`` the pairs' scores' sum), the cell's pairs times it (the stretches the
    draw lays end to end), and their sum."""
    a, b = proposal.hole_uniform.numerator, proposal.hole_uniform.denominator
    scores = [proposal.hole_score(i, j) for i, j in HOLE_CELLS]
    total = sum(HOLE_COUNTS[i][j] * g for (i, j), g in zip(HOLE_CELLS, scores, strict=True))
    masses = tuple((b - a) * HOLE_PAIRS * g + a * total for g in scores)
    spans = tuple(HOLE_COUNTS[i][j] * m for (i, j), m in zip(HOLE_CELLS, masses, strict=True))
    return masses, spans, sum(spans)


def weight_of(masses: list[int], index: int) -> Fraction:
    """``p / q`` of pair ``index`` from the proposal's ``masses``: ``(1 / N) / (m_i / sum m)``, which is
    ``b G / m_i`` for the masses of ``Proposal.masses`` (their sum is ``b N G``)."""
    return Fraction(sum(masses), len(masses) * masses[index])


def _below(key: str, bound: int, stream: str) -> int:
    """A whole number uniform in [0, ``bound``) from the SHA-256 stream of ``key`` (rejection: exact)."""
    limit = 2**256 - 2**256 % bound
    counter = 0
    while True:
        word = int.from_bytes(hashlib.sha256(f"tilt|{stream}|{counter}|{key}".encode()).digest(), "big")
        if word < limit:
            return word % bound
        counter += 1


def pick(masses: list[int], point: int) -> int:
    """The index whose stretch of [0, sum of ``masses``) holds ``point``, the stretches laid end to end
    in order: a uniform point picks index ``i`` with probability ``masses[i] / sum``."""
    index = 0
    while point >= masses[index]:
        point -= masses[index]
        index += 1
    return index


def nth_flop(holes: tuple[tuple[int, int], tuple[int, int]], ranks: tuple[int, int, int], index: int) -> list[int]:
    """Flop ``index`` (0 to its group's count - 1) of the flops of ``ranks`` that the cards left make, in a
    fixed order: each rank's suits chosen among its cards left, one digit each of ``index``."""
    seen = {*holes[0], *holes[1]}
    cards: list[int] = []
    for rank in sorted(set(ranks)):
        left = [c for c in range(rank * RANK_CARDS, (rank + 1) * RANK_CARDS) if c not in seen]
        choices = list(combinations(left, ranks.count(rank)))
        index, digit = divmod(index, len(choices))
        cards.extend(choices[digit])
    return cards


def draw_flop(
    key: str, holes: tuple[tuple[int, int], tuple[int, int]], proposal: Proposal = PROPOSAL
) -> tuple[list[int], Fraction]:
    """The flop (in the order it is dealt) and its stage's weight, drawn from ``proposal`` with ``key``'s stream:
    a point of the flops' masses laid end to end, group by group, picks the group and the flop within it."""
    groups = proposal.flop_groups(holes)
    masses = proposal.flop_masses(groups)
    spans = [count * mass for (_, count, _), mass in zip(groups, masses, strict=True)]  # each group's flops
    total = sum(spans)
    point = _below(key, total, "flop")
    group = pick(spans, point)
    mass = masses[group]
    flop = nth_flop(holes, groups[group][0], (point - sum(spans[:group])) // mass)
    order = _below(key, 6, "flop order")  # a fair one of the six orders
    first = flop.pop(order // 2)
    second = flop.pop(order % 2)
    flops = sum(count for _, count, _ in groups)
    return [first, second, flop[0]], Fraction(total, flops * mass)  # p / q: (1 / N1) / (mass / total)


def draw_holes(key: str, proposal: Proposal = PROPOSAL) -> tuple[tuple[tuple[int, int], tuple[int, int]], Fraction]:
    """Seat 0's and seat 1's hole cards (each in the order dealt) and their stage's weight, drawn from
    ``proposal`` with ``key``'s stream: a point of the pairs' masses laid end to end, by the two hands'
    classes, picks the classes; two hands of them, uniform and drawn again until they share no card, the
    pair (uniform among that cell's disjoint pairs: exact); a fair coin per hand orders its two cards."""
    masses, spans, total = hole_stage(proposal)
    cell = pick(list(spans), _below(key, total, "holes"))
    first, second = HOLE_CELLS[cell]
    ours, theirs = _HANDS_BY_CLASS[first], _HANDS_BY_CLASS[second]
    attempt = 0
    while True:
        hand = ours[_below(key, len(ours), f"holes {attempt} seat 0")]
        other = theirs[_below(key, len(theirs), f"holes {attempt} seat 1")]
        if hand[0] not in other and hand[1] not in other:
            break
        attempt += 1
    order = _below(key, 4, "holes order")
    holes = (
        (hand[1], hand[0]) if order & 1 else hand,
        (other[1], other[0]) if order & 2 else other,
    )
    return holes, Fraction(total, HOLE_PAIRS * masses[cell])  # p / q: (1 / N0) / (mass / total)


def draw_turn_river(
    key: str, holes: tuple[tuple[int, int], tuple[int, int]], flop: list[int], proposal: Proposal = PROPOSAL
) -> tuple[int, int, Fraction]:
    """The turn, the river and the deal's weight ``p / q``, drawn from ``proposal`` with ``key``'s stream."""
    pairs, scores = proposal.runouts(holes, flop)
    masses = proposal.masses(scores)
    index = pick(masses, _below(key, sum(masses), "pair"))
    first, second = pairs[index]
    if _below(key, 2, "order"):
        first, second = second, first
    return first, second, weight_of(masses, index)


@lru_cache(maxsize=256)  # the seatings of a deal are dealt one after the other: one draw for all of them
def tilted_deck(key: str, proposal: Proposal = PROPOSAL) -> tuple[tuple[int, ...], Fraction]:
    """A heads-up deal's twelve cards and its weight: the shuffle of ``key`` with its hole cards, then its
    flop, then its turn and river, drawn from ``proposal`` (each card swapped in from where the shuffle put it;
    burns are never seen)."""
    deck = shuffled_deck(key, DECK_SIZE)
    holes, hole_weight = draw_holes(key, proposal)
    flop, flop_weight = draw_flop(key, holes, proposal)
    turn, river, weight = draw_turn_river(key, holes, flop, proposal)
    placed = ((0, holes[0][0]), (2, holes[0][1]), (1, holes[1][0]), (3, holes[1][1]), *zip(FLOP, flop, strict=True))
    for position, card in (*placed, (TURN, turn), (RIVER, river)):
        at = deck.index(card)
        deck[position], deck[at] = deck[at], deck[position]
    return tuple(deck[:HEADS_UP_CARDS]), hole_weight * flop_weight * weight


def dealt(key: str, cards: int, deals: str) -> tuple[list[int], float]:
    """The deck a hand is dealt from and its weight: ``cards`` of the shuffle of ``key`` (weight 1), or
    with ``Deals.TILTED`` the tilted deck (``tilted_deck``); ValueError for a table that is not heads-up."""
    if deals == Deals.PLAIN:
        return shuffled_deck(key, cards), 1.0
    if deals != Deals.TILTED:
        raise ValueError(f"deals must be one of {', '.join(Deals)}, not {deals!r}")
    if cards != HEADS_UP_CARDS:
        raise ValueError(f"tilted deals are for heads-up tables (12 cards), not a deal of {cards} cards")
    deck, weight = tilted_deck(key)
    return list(deck), float(weight)
