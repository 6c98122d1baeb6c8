"""The hand of Texas Hold'em as a pure state machine: no I/O, no clock, no randomness.

A ``Hand`` is built from a ``TableConfig`` and a deck (a list of card ints, dealt from index 0)
and moves from state to state by three actions: ``fold()``, ``check_call()`` and
``raise_to(total)``. Before each decision ``actor`` names the seat to act and ``legal()`` says
what it may do. Dealing, posting, run-outs, uncalled bets, pots, rake and showdown happen
automatically between decisions; each step appends a record to ``events``.

Betting follows ../shared/RULES.md, with the edge cases resolved as PokerKit resolves them
(our test oracle): the amount to call is the largest bet actually posted (a big blind all-in
for less is called for less); a short all-in does not reopen the betting for players who
already acted unless consecutive short all-ins add up to a full raise; the minimum raise is
the largest full raise of the round (at least the big blind, or the fixed-limit bet); in
fixed limit every bet or raise, short all-ins included, counts towards the cap, and the big
blind counts as the first bet pre-flop; a player who is the only one left with chips may
check or call but not raise; a main pot and side pots won by the same players are split as one
pot, and all the odd chips of a split pot go to its first winner left of the button (59 split
three ways is 21, 19, 19). Folding when a check is free is illegal here (the match layer
turns such a fold into a check).

Seats are numbered 0..n-1 clockwise; ``position`` 0 is the first seat left of the button and
position n-1 is the button (PHH's ``p1``..``pN``). Heads-up, position 0 is the big blind and
the button posts the small blind.

Deal order, part of the determinism contract: hole cards one at a time from position 0
(position k gets ``deck[k]`` and ``deck[n + k]``); then burn, three flop cards, burn, turn,
burn, river.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from dealer.engine.cards import check_distinct
from dealer.engine.evaluator import evaluate
from dealer.engine.memo import remember
from dealer.errors import ConfigError, IllegalActionError

MAX_SEATS: Final = 10


class Variant(enum.Enum):
    """The betting structure of one hand."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Everything a hand needs besides the deck: seats, stacks, button, stakes, rake.

    ``stacks`` are by seat. Fixed-limit bets default to the big blind (small bet) and twice it
    (big bet); ``cap`` is the number of bets per round in fixed limit (bet and three raises).
    Rake is ``rake_bps`` basis points of the pot of a hand that reaches the flop, rounded down, at most
    ``rake_cap`` per hand (``None``: no cap), taken from each pot in proportion (``rake_shares``).
    """

    stacks: tuple[int, ...]
    button: int
    small_blind: int
    big_blind: int
    variant: Variant = Variant.NO_LIMIT
    ante: int = 0
    small_bet: int = 0
    big_bet: int = 0
    cap: int = 4
    rake_bps: int = 0
    rake_cap: int | None = None

    def __post_init__(self) -> None:
        n = len(self.stacks)
        if (
            2 <= n <= MAX_SEATS and all(isinstance(s, int) for s in self.stacks) and min(self.stacks) > 0
            and 0 <= self.button < n and 0 <= self.small_blind <= self.big_blind and self.big_blind > 0
            and self.ante >= 0 and self.small_bet >= 0 and self.big_bet >= 0 and self.cap >= 1
            and 0 <= self.rake_bps <= 10_000 and (self.rake_cap is None or self.rake_cap >= 0)
        ):  # fmt: skip
            return  # valid (the common case, checked at once); else say everything that is wrong
        errors = []
        if not 2 <= n <= MAX_SEATS:
            errors.append(f"a table has 2 to {MAX_SEATS} seats, not {n}")
        if [s for s in self.stacks if not isinstance(s, int) or s <= 0]:
            errors.append(f"every stack must be a positive integer: {self.stacks}")
        if not 0 <= self.button < max(n, 1):
            errors.append(f"button seat {self.button} is not a seat of this table")
        if not 0 <= self.small_blind <= self.big_blind or self.big_blind <= 0:
            errors.append(f"blinds must satisfy 0 <= small <= big, big > 0: {self.small_blind}/{self.big_blind}")
        if self.ante < 0:
            errors.append(f"ante must not be negative: {self.ante}")
        if self.small_bet < 0 or self.big_bet < 0 or self.cap < 1:
            errors.append("fixed-limit bets must not be negative and the cap must be at least 1")
        if not 0 <= self.rake_bps <= 10_000 or (self.rake_cap is not None and self.rake_cap < 0):
            errors.append(
                f"rake must be 0..10000 basis points with a non-negative cap: {self.rake_bps}, {self.rake_cap}"
            )
        if errors:
            raise ConfigError("; ".join(errors))

    @property
    def seats(self) -> int:
        """The number of seats at the table."""
        return len(self.stacks)

    def bet_size(self, street: int) -> int:
        """The fixed-limit bet of a street (0 pre-flop .. 3 river); the minimum bet otherwise."""
        if self.variant is not Variant.FIXED_LIMIT:
            return self.big_blind
        small = self.small_bet or self.big_blind
        return small if street < 2 else (self.big_bet or 2 * small)


class Legal(NamedTuple):
    """What the actor may do: fold, check or call ``call`` chips, raise to a total in a range.

    ``min_to``/``max_to`` are totals for the round ("raise to"), 0 when no bet or raise is
    allowed; ``call`` is the chips a call adds (0 means check). ``bet`` says whether the
    raise is the first bet of the round.
    """

    fold: bool
    call: int
    min_to: int
    max_to: int
    bet: bool

    @property
    def can_raise(self) -> bool:
        """Whether a bet or raise is allowed at all."""
        return self.max_to > 0


class Posted(NamedTuple):
    """A forced bet: ``kind`` is ``ante``, ``small_blind`` or ``big_blind``."""

    seat: int
    kind: str
    amount: int
    all_in: bool


class Acted(NamedTuple):
    """A decision: ``kind`` is fold, check, call, bet or raise.

    ``amount`` is the chips added now; ``to`` the seat's total bet in the round afterwards.
    """

    seat: int
    kind: str
    amount: int
    to: int
    all_in: bool


class Dealt(NamedTuple):
    """Board cards dealt at the start of ``street`` (1 flop, 2 turn, 3 river)."""

    street: int
    cards: tuple[int, ...]


class Returned(NamedTuple):
    """The uncalled part of a bet, given back to its owner."""

    seat: int
    amount: int


class Raked(NamedTuple):
    """The house's rake taken from the pots."""

    amount: int


class Shown(NamedTuple):
    """Hole cards shown at showdown, in showdown order, with the hand's value."""

    seat: int
    cards: tuple[int, int]
    value: int


class Awarded(NamedTuple):
    """One pot (0 = main pot) and what each winner got from it.

    Consecutive pots won by the same players are awarded as one (``eligible`` is the first's).
    """

    pot: int
    amount: int
    eligible: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]


Event = Posted | Acted | Dealt | Returned | Raked | Shown | Awarded

# Builds a record from a tuple of all its fields, as ``Acted(*fields)`` does but without the
# NamedTuple's Python-level ``__new__`` (half the cost of a record; used on the hot paths).
_record: Final = tuple.__new__
# The records' classes as the compiled module's constants: compiled, a class's name is a module lookup at each use.
_LEGAL: Final = Legal
_POSTED: Final = Posted
_ACTED: Final = Acted
_DEALT: Final = Dealt
_RETURNED: Final = Returned
_SHOWN: Final = Shown
_AWARDED: Final = Awarded
# Legal, Acted and blinds' Posted records already made, each keyed by an int that packs all its fields (so exactly by
# what it holds; fields out of the packing's bounds are not remembered): a record is immutable and equal
# to its fields, so one made once serves every hand that makes it again. Making a NamedTuple through
# ``tuple.__new__`` and freeing it cost about 900 instructions; a tuple key's lookup about 700, an int's
# far less. Bounded: cleared when full; no clock, I/O or randomness, the results are those made anew.
_MADE_LIMIT: Final = 4096
_MADE_BITS: Final = 20  # chips packed in a key are under 2**20
_MADE_LEGAL: Final[dict[int, Legal]] = {}
_MADE_ACTED: Final[dict[int, Acted]] = {}
_MADE_POSTED: Final[dict[int, Posted]] = {}


def _made_legal(call: int, min_to: int, max_to: int, bet: bool) -> Legal:
    """The Legal record ``(call > 0, call, min_to, max_to, bet)``: the one made before if it is remembered."""
    if not (0 <= call < 1 << _MADE_BITS and 0 <= min_to < 1 << _MADE_BITS and max_to >= 0):
        return _record(_LEGAL, (call > 0, call, min_to, max_to, bet))  # (not packed: not remembered)
    key = ((((max_to << _MADE_BITS) | min_to) << _MADE_BITS | call) << 1) + (1 if bet else 0)
    record = _MADE_LEGAL.get(key)
    if record is None:
        record = remember(_MADE_LEGAL, key, _record(_LEGAL, (call > 0, call, min_to, max_to, bet)), _MADE_LIMIT)
    return record


def _made_acted(seat: int, kind: str, code: int, amount: int, to: int, all_in: bool) -> Acted:
    """The Acted record ``(seat, kind, amount, to, all_in)`` of a check or call (``code`` 0: which one is told
    by the amount), a bet (1) or a raise (2): the one made before if it is remembered."""
    if not (0 <= seat < 256 and 0 <= amount < 1 << _MADE_BITS and to >= 0):
        return _record(_ACTED, (seat, kind, amount, to, all_in))  # (not packed: not remembered)
    key = ((((((to << _MADE_BITS) | amount) << 8 | seat) << 1) + (1 if all_in else 0)) << 2) + code
    record = _MADE_ACTED.get(key)
    if record is None:
        record = remember(_MADE_ACTED, key, _record(_ACTED, (seat, kind, amount, to, all_in)), _MADE_LIMIT)
    return record


def _made_blind(seat: int, kind: str, amount: int, all_in: bool) -> Posted:
    """The Posted record ``(seat, kind, amount, all_in)`` of a small or big blind: the one made before if it
    is remembered."""
    if not (0 <= seat < 256 and 0 <= amount < 1 << _MADE_BITS):
        return _record(_POSTED, (seat, kind, amount, all_in))  # (not packed: not remembered)
    key = ((((amount << 8 | seat) << 1) + (1 if all_in else 0)) << 1) + (1 if kind == "big_blind" else 0)
    record = _MADE_POSTED.get(key)
    if record is None:
        record = remember(_MADE_POSTED, key, _record(_POSTED, (seat, kind, amount, all_in)), _MADE_LIMIT)
    return record


def _rotations(n: int) -> tuple[tuple[int, ...], ...]:
    """For each seat of an ``n``-seat table, all the seats clockwise from it (itself first)."""
    return tuple(tuple((first + k) % n for k in range(n)) for first in range(n))


_ROTATIONS: Final = tuple(_rotations(n) for n in range(MAX_SEATS + 1))  # by table size, then first seat


@dataclass(slots=True, init=False)
class Hand:
    """One hand in progress. ``Hand(config, deck)`` posts the forced bets, deals, and stops at the first decision.

    A dataclass for its comparison and repr; ``__init__`` is written out because the generated
    one (with default factories) was a large part of the cost of a short hand.
    """

    config: TableConfig
    deck: tuple[int, ...]
    order: tuple[int, ...]  # seats by position, position 0 first
    position: tuple[int, ...]  # position of each seat
    stacks: list[int]
    bets: list[int]
    contributed: list[int]
    folded: list[bool]
    hole: tuple[tuple[int, int], ...]
    board: list[int]
    street: int
    pot: int  # chips collected from finished rounds (antes included)
    events: list[Event]
    actors: list[int]  # seats still to act this round, the actor first
    max_bet: int
    raise_amount: int  # largest full increment this round
    raise_count: int  # bets and raises this round (fixed-limit cap)
    short_sum: int  # consecutive short all-in increments since the last full raise
    acted: set[int]
    opener: int  # last aggressor of the round, else its first actor (showdown order)
    done: bool
    n: int  # seats
    bet_sizes: tuple[int, int, int, int]  # minimum bet (fixed-limit bet) by street
    fixed_limit: bool
    _legal: Legal | None = field(compare=False, repr=False)  # legal() until the next action

    def __init__(self, config: TableConfig, deck: Sequence[int]) -> None:
        """Post antes and blinds, deal the hole cards, and stop at the first decision."""
        n = len(config.stacks)
        if len(deck) < 2 * n + 8:
            raise ConfigError(f"a deck for {n} seats needs at least {2 * n + 8} cards, got {len(deck)}")
        check_distinct(deck)
        rotations = _ROTATIONS[n]
        order = rotations[(config.button + 1) % n]
        position = rotations[-order[0] % n]  # position[s] == (s - order[0]) % n
        self.config = config
        self.deck = deck = tuple(deck)
        self.order = order
        self.position = position
        self.stacks = list(config.stacks)
        self.bets = [0] * n
        self.contributed = [0] * n
        self.folded = [False] * n
        self.hole = tuple([(deck[k], deck[n + k]) for k in position])
        self.board = []
        self.street = 0
        self.pot = 0
        self.events = []
        self.actors = []
        self.max_bet = 0
        self.raise_amount = 0
        self.raise_count = 0
        self.short_sum = 0
        self.acted = set()
        self.opener = 0
        self.done = False
        self.n = n
        self.fixed_limit = config.variant is Variant.FIXED_LIMIT
        if self.fixed_limit:
            small, big = config.bet_size(0), config.bet_size(2)
            self.bet_sizes = (small, small, big, big)
        else:
            self.bet_sizes = (config.big_blind,) * 4
        self._legal = None
        self._post_forced_bets()

    # ----------------------------------------------------------------- queries

    @property
    def actor(self) -> int | None:
        """The seat to act, or ``None`` when the hand is over."""
        return self.actors[0] if self.actors else None

    def to_call(self, seat: int) -> int:
        """Chips that seat must add to call (limited by its stack)."""
        return min(self.stacks[seat], self.max_bet - self.bets[seat])

    def total_pot(self) -> int:
        """All chips in the middle: collected pots plus the bets of this round."""
        total = self.pot
        for bet in self.bets:  # a loop, not ``sum``: compiled, the builtin is a lookup and a call (a request asks)
            total += bet
        return total

    def legal(self) -> Legal:
        """What the actor may do now; raises ``IllegalActionError`` when the hand is over."""
        legal = self._legal
        if legal is not None:
            return legal
        if not self.actors:
            self._require_actor()  # raises
        seat = self.actors[0]
        max_bet, bet, stack = self.max_bet, self.bets[seat], self.stacks[seat]
        call = max_bet - bet if max_bet - bet < stack else stack
        min_to = max_to = 0
        if self._raise_refusal(seat, call) is None:
            # At least the largest full raise of the round (or the minimum bet), capped by the
            # stack; at most all-in, or the pot-limit raise.
            all_in = stack + bet
            step = self.bet_sizes[self.street]
            if self.raise_amount > step:
                step = self.raise_amount
            min_to = max_bet + step if max_bet + step < all_in else all_in
            if self.fixed_limit:
                max_to = min_to
            elif self.config.variant is Variant.POT_LIMIT:
                max_to = min(all_in, max(min_to, 2 * max_bet - bet + self.total_pot()))
            else:
                max_to = all_in
        self._legal = legal = _made_legal(call, min_to, max_to, max_bet == 0)
        return legal

    def final_stacks(self) -> list[int]:
        """Each seat's stack at the end of the hand (raises if the hand is not over)."""
        if not self.done:
            raise IllegalActionError("the hand is not over")
        return list(self.stacks)

    # ----------------------------------------------------------------- actions

    def verify_fold(self) -> None:
        """Raise ``IllegalActionError`` unless the actor may fold."""
        seat = self._require_actor()
        if self.to_call(seat) == 0:
            raise IllegalActionError(f"seat {seat} may not fold: nothing to call, check instead")

    def can_fold(self) -> bool:
        """Whether the actor may fold now."""
        return bool(self.actors) and self.to_call(self.actors[0]) > 0

    def fold(self) -> Acted:
        """Fold the actor's hand."""
        self.verify_fold()
        self._legal = None
        seat = self.actors.pop(0)
        self.acted.add(seat)
        self.folded[seat] = True
        record = _record(_ACTED, (seat, "fold", 0, self.bets[seat], False))
        self.events.append(record)
        if not self.actors or self.folded.count(False) <= 1:
            self._end_round()
        return record

    def check_call(self) -> Acted:
        """Check, or call the largest bet (all-in for less when the stack is short)."""
        if not self.actors:
            self._require_actor()  # raises
        seat = self.actors[0]
        self._legal = None
        stacks, bets = self.stacks, self.bets
        amount = self.max_bet - bets[seat]
        if amount > stacks[seat]:
            amount = stacks[seat]
        self.actors.pop(0)
        self.acted.add(seat)
        # ``x[i] = x[i] - y``, not ``x[i] -= y``: compiled, an augmented assignment to a list item is
        # generic Python arithmetic, this a machine int's (so here and wherever chips move)
        stacks[seat] = stacks[seat] - amount
        bets[seat] = bets[seat] + amount
        self.contributed[seat] = self.contributed[seat] + amount
        record = _made_acted(seat, "call" if amount else "check", 0, amount, bets[seat], stacks[seat] == 0)
        self.events.append(record)
        if not self.actors:  # (a check, call or raise folds nobody: two players or more are left)
            self._end_round()
        return record

    def verify_raise(self, to: object) -> None:
        """Raise ``IllegalActionError`` unless the actor may bet or raise to a total of ``to``."""
        self._raise_total(to)

    def _raise_total(self, to: object) -> int:
        """``to``, if the actor may bet or raise to that total; else raise ``IllegalActionError`` saying why."""
        legal = self.legal()
        seat = self.actors[0]
        if not legal.max_to:
            raise IllegalActionError(f"seat {seat} may not bet or raise: {self._raise_refusal(seat, legal.call)}")
        if not isinstance(to, int) or not legal.min_to <= to <= legal.max_to:
            raise IllegalActionError(f"seat {seat} may raise to {legal.min_to}..{legal.max_to}, not {to}")
        return to

    def can_raise(self, to: object) -> bool:
        """Whether the actor may bet or raise to a total of ``to``."""
        try:
            self.verify_raise(to)
        except IllegalActionError:
            return False
        return True

    def raise_to(self, to: object) -> Acted:
        """Bet or raise to a total of ``to`` chips in this round (anything but a legal int total is
        refused with ``IllegalActionError``)."""
        legal = self._legal or self.legal()
        if not (isinstance(to, int) and legal.max_to and legal.min_to <= to <= legal.max_to):
            to = self._raise_total(to)  # raises, with the reason
        self._legal = None
        seat = self.actors[0]
        max_bet = self.max_bet
        kind = "bet" if max_bet == 0 else "raise"
        increment = to - max_bet
        folded, stacks = self.folded, self.stacks
        added = to - self.bets[seat]
        stacks[seat] = stacks[seat] - added
        self.bets[seat] = to
        self.contributed[seat] = self.contributed[seat] + added
        self.max_bet = to
        # Everyone after the raiser who can still act, round to the seat before it.
        if self.n == 2:
            self.actors = [1 - seat] if stacks[1 - seat] > 0 else []  # (the other is in: it was not over)
        else:
            self.actors = [s for s in _ROTATIONS[self.n][seat][1:] if not folded[s] and stacks[s] > 0]
        self.opener = seat
        raise_amount = self.raise_amount
        if increment >= raise_amount:
            self.acted.clear()
            self.raise_amount = raise_amount = increment
        self.acted.add(seat)
        self.raise_count += 1
        if stacks[seat]:
            self.short_sum = 0
        else:
            self.short_sum += increment
            if self.short_sum >= raise_amount:
                self.short_sum = 0
        if type(to) is int:
            record = _made_acted(seat, kind, 1 if max_bet == 0 else 2, added, to, stacks[seat] == 0)
        else:  # (an int's subclass, as a bool: made as given)
            record = _record(_ACTED, (seat, kind, added, to, stacks[seat] == 0))
        self.events.append(record)
        if not self.actors:
            self._end_round()
        return record

    # ----------------------------------------------------------------- internals

    def _require_actor(self) -> int:
        if not self.actors:
            raise IllegalActionError("the hand is over: nobody is to act")
        return self.actors[0]

    def _raise_refusal(self, seat: int, call: int) -> str | None:
        """Why the actor may not bet or raise at all, or ``None`` if it may."""
        if call < self.raise_amount:
            return "a short all-in cannot be raised by a player facing less than a full raise"
        if self.fixed_limit and self.raise_count >= self.config.cap:
            return f"the round is capped at {self.config.cap} bets"
        if self.short_sum and self.short_sum < self.raise_amount and seat in self.acted:
            return "a short all-in does not reopen the betting for a player who already acted"
        bets, stacks, folded, max_bet = self.bets, self.stacks, self.folded, self.max_bet
        if stacks[seat] <= max_bet - bets[seat]:
            return "the stack does not cover more than a call"
        if self.n == 2:  # heads-up the other player is in (else the hand is over)
            other = 1 - seat
            return None if stacks[other] + bets[other] > max_bet else "every other player has folded or is all-in"
        for s in range(self.n):
            if s != seat and not folded[s] and stacks[s] + bets[s] > max_bet:
                return None
        return "every other player has folded or is all-in"

    def _post_forced_bets(self) -> None:
        config, order, stacks, bets, contributed, events = (
            self.config,
            self.order,
            self.stacks,
            self.bets,
            self.contributed,
            self.events,
        )
        if config.ante:
            for s in order:
                amount = min(config.ante, stacks[s])
                stacks[s] = stacks[s] - amount
                contributed[s] = contributed[s] + amount
                self.pot += amount
                events.append(_record(_POSTED, (s, "ante", amount, stacks[s] == 0)))
        n = self.n
        small, big = (order[1], order[0]) if n == 2 else (order[0], order[1])
        self._post_blind(small, "small_blind", config.small_blind)
        self._post_blind(big, "big_blind", config.big_blind)
        max_bet = 0
        for bet in bets:
            if bet > max_bet:
                max_bet = bet
        self.max_bet = max_bet
        self.raise_count = 1 if max_bet else 0
        # The seat after the largest blind opens (ties: the later position), as PokerKit does; so
        # when no blind is posted (a zero small blind, a big blind all-in on its ante) position 0.
        if n == 2:  # the big blind is position 0, the small blind (the button) position 1
            last = 0 if bets[big] > bets[small] else 1
        else:
            _, last = max(zip(bets, self.position, strict=True))
        self._begin_round((order[last] + 1) % n)

    def _post_blind(self, seat: int, kind: str, blind: int) -> None:
        """Post ``seat``'s blind (all-in for less when its stack is short; nothing when it is 0)."""
        stacks = self.stacks
        amount = blind if blind < stacks[seat] else stacks[seat]
        if amount:
            stacks[seat] = stacks[seat] - amount
            self.bets[seat] = self.bets[seat] + amount
            self.contributed[seat] = self.contributed[seat] + amount
            self.events.append(_made_blind(seat, kind, amount, stacks[seat] == 0))

    def _begin_round(self, opener: int) -> None:
        """Queue the players who can act this round, starting from ``opener``.

        A player acts if it has chips and is covered by someone: its bet is below the second
        largest stack-plus-bet of the players in the hand.
        """
        stacks, bets, folded = self.stacks, self.bets, self.folded
        if self.n == 2:  # heads-up both players are in (else the hand is over): no sort
            first, other = stacks[0] + bets[0], stacks[1] + bets[1]
            second = first if first < other else other
        else:
            second = sorted([stacks[s] + bets[s] for s in range(self.n) if not folded[s]])[-2]
        self.opener = opener
        self.actors = actors = [
            s for s in _ROTATIONS[self.n][opener] if not folded[s] and stacks[s] > 0 and bets[s] < second
        ]
        self.acted.clear()
        self.raise_amount = 0
        self.short_sum = 0
        if not actors or (len(actors) == 1 and bets[actors[0]] >= self.max_bet):
            self._end_round()

    def _end_round(self) -> None:
        """Return an uncalled bet, collect the bets, then deal on, or settle the hand."""
        self.actors.clear()
        bets, stacks, folded = self.bets, self.stacks, self.folded
        top = second = leader = collected = 0  # the two largest bets, the first seat of the largest, their sum
        for seat, bet in enumerate(bets):  # one loop, not sorted, index and sum (each a call when compiled)
            collected += bet
            if bet > top:
                top, second, leader = bet, top, seat
            elif bet > second:
                second = bet
        if top > second:
            excess = top - second
            stacks[leader] = stacks[leader] + excess
            self.contributed[leader] = self.contributed[leader] - excess
            bets[leader] = second
            collected -= excess
            self.events.append(_record(_RETURNED, (leader, excess)))
        self.pot += collected
        self.bets = [0] * self.n
        self.max_bet = 0
        if folded.count(False) == 1:
            self._settle(showdown=False)
            return
        if self.street == 3:
            self._settle(showdown=True)
            return
        if self.n == 2:  # both are in
            can_bet = (stacks[0] > 0) + (stacks[1] > 0)
        else:
            can_bet = len([s for s in range(self.n) if not folded[s] and stacks[s] > 0])
        self._deal_street()
        if can_bet <= 1:
            while self.street < 3:
                self._deal_street()
            self.opener = self.order[0]
            self._settle(showdown=True)
            return
        self.raise_count = 0
        self._begin_round(self.order[0])

    def _deal_street(self) -> None:
        self.street = street = self.street + 1
        start = 2 * self.n + 1 if street == 1 else 2 * self.n + 1 + 2 * street
        cards = self.deck[start : start + (3 if street == 1 else 1)]
        self.board.extend(cards)
        self.events.append(_record(_DEALT, (street, cards)))

    def _settle(self, showdown: bool) -> None:
        """Split the pots among the best eligible hands, after the rake."""
        folded, events = self.folded, self.events
        values: dict[int, int] = {}
        if showdown:
            hole, board = self.hole, tuple(self.board)
            for s in _ROTATIONS[self.n][self.opener]:  # showdown order: from the opener, clockwise
                if not folded[s]:
                    values[s] = value = evaluate(hole[s] + board)
                    events.append(_record(_SHOWN, (s, hole[s], value)))
        rake, pots = self.raked_pots()
        if rake:
            events.append(Raked(rake))
        stacks = self.stacks
        for index, (amount, eligible, shares) in enumerate(award(pots, values if showdown else None)):
            for s, won in shares:
                stacks[s] = stacks[s] + won
            events.append(_record(_AWARDED, (index, amount, tuple(eligible), shares)))
        self.pot = 0
        self.done = True

    def raked_pots(self) -> tuple[int, list[tuple[int, list[int]]]]:
        """The rake and the pots after it, as the hand settles them: the hand's rake is split over its
        pots in proportion to their sizes, so a short all-in player's main pot pays only its share."""
        pots = self._pots()
        total = 0
        for amount, _ in pots:
            total += amount
        rake = self._rake(total) if self.config.rake_bps else 0
        if not rake:
            return 0, pots
        shares = rake_shares(rake, pots)
        return rake, [(pots[k][0] - shares[k], pots[k][1]) for k in range(len(pots))]

    def _pots(self) -> list[tuple[int, list[int]]]:
        """Main pot then side pots: (amount, eligible seats in position order)."""
        return side_pots(self.contributed, self.folded, self.order)

    def _rake(self, total: int) -> int:
        if not self.config.rake_bps or self.street == 0:
            return 0
        rake = total * self.config.rake_bps // 10_000
        return rake if self.config.rake_cap is None else min(rake, self.config.rake_cap)


def rake_shares(rake: int, pots: Sequence[tuple[int, list[int]]]) -> list[int]:
    """Split ``rake`` chips over ``pots`` in proportion to their amounts: each pot pays
    ``rake * amount // total``, and the chips those floors leave go one each to the pots with the
    largest remainders (the main pot first among equal ones). No pot pays more than it holds."""
    total = sum([amount for amount, _ in pots])
    shares = [rake * amount // total for amount, _ in pots]
    odd = rake - sum(shares)
    if odd:
        remainders = [(-(rake * amount % total), k) for k, (amount, _) in enumerate(pots)]
        for _, k in sorted(remainders)[:odd]:
            shares[k] += 1
    return shares


def side_pots(contributed: Sequence[int], folded: Sequence[bool], order: Sequence[int]) -> list[tuple[int, list[int]]]:
    """Main pot then side pots of chips put in so far: (amount, eligible seats in position order);
    ``order`` is the seats by position. Also used to value a hand part-way (``dealer.stats.aivat``)."""
    live = [s for s in order if not folded[s]]
    levels = {contributed[s] for s in live}
    if len(levels) == 1 and 0 not in levels:  # nobody all-in for less: one pot of every chip
        total = 0
        for chips in contributed:
            total += chips
        return [(total, live)]
    pots: list[tuple[int, list[int]]] = []
    previous = 0
    for level in sorted(levels):
        amount = sum([min(c, level) - min(c, previous) for c in contributed])
        eligible = [s for s in live if contributed[s] >= level]
        if amount:
            pots.append((amount, eligible))
        previous = level
    leftover = sum([c - min(c, previous) for c in contributed])
    if leftover:  # dead money above every live player's level goes to the last pot
        amount, eligible = pots[-1]
        pots[-1] = (amount + leftover, eligible)
    return pots


def award(
    pots: Sequence[tuple[int, list[int]]], values: Mapping[int, int] | Sequence[int] | None
) -> list[tuple[int, list[int], tuple[tuple[int, int], ...]]]:
    """Who wins what: (amount, eligible, shares) per pot, given hand values by seat (``None``:
    no showdown, every eligible seat wins). Ties split with the odd chips to the first winner
    left of the button; pots with the same winners are split as one (PokerKit kills the losing
    hands first, which leaves such pots with the same contenders, and merges them)."""
    merged: list[tuple[int, list[int], list[int]]] = []  # amount, eligible, winners
    for amount, eligible in pots:
        if values is None:
            winners = eligible
        else:
            best = values[eligible[0]]
            for s in eligible:  # a loop, not ``max`` of a list: compiled, the builtin is a lookup and a call
                if values[s] > best:
                    best = values[s]
            winners = [s for s in eligible if values[s] == best]
        if merged and merged[-1][2] == winners:
            merged[-1] = (merged[-1][0] + amount, merged[-1][1], winners)
        else:
            merged.append((amount, eligible, winners))
    awards = []
    for amount, eligible, winners in merged:
        if len(winners) == 1:
            shares: tuple[tuple[int, int], ...] = ((winners[0], amount),)
        else:
            share, odd = divmod(amount, len(winners))
            shares = ((winners[0], share + odd), *[(s, share) for s in winners[1:]])
        awards.append((amount, eligible, shares))
    return awards
