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
  last after the flop and wins more of what is behind.

A comparison weights the columns by coefficients fitted on other deals (``dealer.stats.control``): a
learned value function, linear in these features; since every column has mean zero, any fixed
weights keep the estimate unbiased. Same run-outs and estimates as ``dealer.stats.aivat`` (exact turn and
river, the pre-flop sample for the flop's "before", an even share before the deal).
"""

from __future__ import annotations

from dealer.engine.rules import Hand
from dealer.stats.aivat import Cache, chance_changes

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
)
_POT = {1: 0, 2: 1, 3: 2}  # node index (0 the deal) -> column of its pot feature
_BEHIND = {0: 3, 1: 4, 2: 5, 3: 6}
_BUTTON = {1: 7, 2: 8, 3: 9}


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
    return rows
