"""Tilted deals: a comparison's turn and river drawn from a proposal that deals more often the run-outs
where both hands are made, each deal's result weighted by ``p / q`` (importance sampling).

Why: what duplicate deals and the luck corrections leave of a comparison's variance sits in a dozen
stack-sized wars per 6,000 deals, nearly all in deals where both hands have made something by the
river. The dealer chooses the cards, so it can deal those run-outs more often and count each one
less: ``E_q[w X] = E_p[X]`` for any result ``X`` of the deal, so the weighted mean keeps the plain
mean whatever the bots do, and the luck corrections keep their zero mean (taken under ``p``).

How, exactly (no normalising constant estimated): the hole cards and the flop are those of the
ordinary shuffle of the deal's key (``cards.shuffled_deck``). Of the ``N`` unordered pairs of the
cards left, pair ``i`` becomes {turn, river} with probability ``q_i = (1 - u) g_i / G + u / N``,
``g_i`` a whole-number score of the two hands' levels on that board (``Proposal.score``), ``G`` their
sum, ``u`` the share drawn as the shuffle would (``Proposal.uniform``, a fraction); which of the two is
the turn is a fair coin, as in the shuffle. Under the shuffle each pair has ``p_i = 1 / N``, so the
deal's weight is ``w = p_i / q_i = b G / ((b - a) N g_i + a G)`` for ``u = a / b``: exact, and at most
``1 / u``. The pair is drawn with whole numbers from a SHA-256 stream of the key, so the same key
gives the same deck and weight on any machine; both seatings of a duplicate deal share them.

Heads-up tables only (every comparison's tables are). The scores were chosen on the pools of
``benchmarks/compare_verdicts.py`` with seed ``verdicts36-dev`` (``benchmarks/tilt_study.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
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


def level(hole: tuple[int, int], board: list[int], board_category: int) -> int:
    """A hand's level on a five-card board: its category if the hole cards make it better than the
    board's own category, else 0 (the board plays)."""
    category = hand_category(evaluate([*hole, *board]))
    return category if category > board_category else 0


@dataclass(frozen=True)
class Proposal:
    """How the turn and river are drawn: ``scores[lo][hi]`` by the two hands' levels (``lo`` capped at
    ``len(scores) - 1``, ``hi`` at the row's length - 1), and the ``uniform`` share drawn as the shuffle."""

    scores: tuple[tuple[int, ...], ...] = SCORES
    uniform: Fraction = Fraction(1, 10)

    def __post_init__(self) -> None:
        if not self.scores or any(not row or any(not isinstance(g, int) or g < 1 for g in row) for row in self.scores):
            raise ValueError(f"the scores must be rows of whole numbers >= 1, not {self.scores}")
        if not 0 < self.uniform <= 1:
            raise ValueError(f"the uniform share must be in (0, 1], not {self.uniform}")

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
    """A heads-up deal's twelve cards and its weight: the shuffle of ``key`` with its turn and river
    drawn from ``proposal`` (each swapped in from where the shuffle put it; burns are never seen)."""
    deck = shuffled_deck(key, DECK_SIZE)
    holes = ((deck[0], deck[2]), (deck[1], deck[3]))
    turn, river, weight = draw_turn_river(key, holes, deck[5:8], proposal)
    for position, card in ((TURN, turn), (RIVER, river)):
        at = deck.index(card)
        deck[position], deck[at] = deck[at], deck[position]
    return tuple(deck[:HEADS_UP_CARDS]), weight


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
