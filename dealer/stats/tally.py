"""Running sums of a match's hands, kept exactly: ``ExactSum`` and ``GroupedSums`` (``dealer.stats.stats``
re-exports them) and the match's ``Tally`` by bot and duplicate group (``dealer.stats.records`` re-exports it).

Pure arithmetic on ints, folded in as each hand ends: the same sums whatever order the hands end in.
Compiled by mypyc (``setup.py``), as the fold runs at the end of every hand; its classes still pickle
(a worker's part of a match crosses processes), and none is subclassed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dealer.stats.records import HandRecord
    from dealer.stats.stats import Estimate


class ExactSum:
    """A sum of floats kept exactly, as an integer over ``2**shift``: the same whatever the order
    the values come in (hands end in any order), and ``value`` is that sum correctly rounded."""

    __slots__ = ("n", "shift")

    def __init__(self, value: float = 0.0) -> None:
        self.n = 0
        self.shift = 0
        if value:
            self.add(value)

    def add(self, x: float) -> None:
        """Add one finite value."""
        num, den = x.as_integer_ratio()
        k = den.bit_length() - 1  # den is 2**k
        if k > self.shift:
            self.n <<= k - self.shift
            self.shift = k
        self.n += num << (self.shift - k)

    def merge(self, other: ExactSum) -> None:
        """Add ``other``'s sum (another process's part of the match), exactly."""
        if other.shift > self.shift:
            self.n <<= other.shift - self.shift
            self.shift = other.shift
        self.n += other.n << (self.shift - other.shift)

    @property
    def value(self) -> float:
        """The sum, correctly rounded (int / int rounds correctly)."""
        return self.n / (1 << self.shift)


class GroupedSums:
    """Running sums of groups' totals T and hand counts H, enough for ``bb_per_100_grouped``
    without keeping the groups: a match's statistics in memory that does not grow with its length.

    The sums of T, T^2, T*H are kept exactly (integers over a power of two: every float is one),
    so the estimate does not depend on the order in which groups are added or sums merged, its
    mean is exactly ``fsum(T) / sum(H)`` and its residual the exact sum of squares, rounded once.
    """

    __slots__ = ("groups", "hands", "hands_sq", "shift", "t", "th", "tt")

    def __init__(self) -> None:
        self.groups = 0
        self.hands = 0
        self.hands_sq = 0  # sum of H^2
        self.shift = 0  # T sums are integers over 2**shift (T^2 over 2**(2 * shift))
        self.t = 0
        self.th = 0
        self.tt = 0

    def _rescale(self, shift: int) -> None:
        """Put the sums over 2**shift (a finer scale: nothing is lost)."""
        up = shift - self.shift
        self.t <<= up
        self.th <<= up
        self.tt <<= 2 * up
        self.shift = shift

    def add(self, total: float, hands: int) -> None:
        """Add one group: its total ``total`` over ``hands`` hands (at least one)."""
        if hands <= 0:
            raise ValueError("every group must have at least one hand")
        n, d = total.as_integer_ratio()
        k = d.bit_length() - 1  # d is 2**k
        if k > self.shift:
            self._rescale(k)
        n <<= self.shift - k
        self.t += n
        self.th += n * hands
        self.tt += n * n
        self.groups += 1
        self.hands += hands
        self.hands_sq += hands * hands

    def merge(self, other: GroupedSums) -> None:
        """Add every group of ``other`` (another match's, say)."""
        if other.shift > self.shift:
            self._rescale(other.shift)
        up = self.shift - other.shift
        self.t += other.t << up
        self.th += other.th << up
        self.tt += other.tt << (2 * up)
        self.groups += other.groups
        self.hands += other.hands
        self.hands_sq += other.hands_sq

    def bb_per_100(self, big_blind: int) -> Estimate:
        """The ratio estimate of ``bb_per_100_grouped`` over the groups added (ValueError if none)."""
        from dealer.stats.stats import Estimate, _check_big_blind  # here: stats.py imports this module

        _check_big_blind(big_blind)
        g, hands = self.groups, self.hands
        if not g:
            raise ValueError("bb_per_100_grouped needs at least one group")
        ratio = self.t / (1 << self.shift) / hands  # int / int is correctly rounded: fsum(T) / sum(H)
        if g < 2:
            stderr = math.inf
        else:  # sum((T - R H)^2) = sum T^2 - 2 R sum T H + R^2 sum H^2, with R the float ratio, exactly
            rn, rd = ratio.as_integer_ratio()
            s = self.shift
            numerator = self.tt * rd * rd - ((2 * rn * self.th * rd) << s) + ((rn * rn * self.hands_sq) << (2 * s))
            residual = numerator / ((rd * rd) << (2 * s))
            stderr = math.sqrt(residual / ((g - 1) * g)) / (hands / g)
        return Estimate(ratio, stderr, g).scaled(100 / big_blind)

    def moments(self) -> tuple[int, float, float]:
        """Units, mean and sum of squared deviations of the totals (each group one unit), each exact and
        rounded once: the state of a sequential test, the same whatever order the totals came in."""
        g, scale = self.groups, 1 << self.shift
        if not g:
            return 0, 0.0, 0.0
        return g, self.t / (scale * g), (g * self.tt - self.t * self.t) / (g * scale * scale)

    def as_json(self) -> list[int]:
        """The sums as integers (JSON keeps them exactly)."""
        return [self.groups, self.hands, self.hands_sq, self.shift, self.t, self.th, self.tt]

    @classmethod
    def from_json(cls, values: Sequence[int]) -> GroupedSums:
        """Sums written by ``as_json``."""
        sums = cls()
        sums.groups, sums.hands, sums.hands_sq, sums.shift, sums.t, sums.th, sums.tt = (int(v) for v in values)
        return sums


class BotTally:
    """One bot's running totals over a match: hands, chips, big blinds won (raw and all-in
    adjusted), the sum of squares of big blinds per hand, and its duplicate groups. The float
    sums are exact (``stats.ExactSum``), so they do not depend on the order the hands end in."""

    __slots__ = ("_adjusted", "_raw", "_squares", "chips", "groups", "hands")

    def __init__(self) -> None:
        self.hands = 0
        self.chips = 0
        self._raw = ExactSum()
        self._adjusted = ExactSum()
        self._squares = ExactSum()
        self.groups = GroupedSums()

    def add(self, chips: int, won: float, adjusted: float) -> None:
        """One hand: chips won, and big blinds won raw and all-in adjusted."""
        self.hands += 1
        self.chips += chips
        self._raw.add(won)
        self._adjusted.add(adjusted)
        self._squares.add(won * won)

    def merge(self, other: BotTally) -> None:
        """Add another part of the match's totals (``dealer.league.workers``): exact, so the same in any order."""
        self.hands += other.hands
        self.chips += other.chips
        self._raw.merge(other._raw)
        self._adjusted.merge(other._adjusted)
        self._squares.merge(other._squares)
        self.groups.merge(other.groups)

    @property
    def raw(self) -> float:
        """Big blinds won."""
        return self._raw.value

    @property
    def adjusted(self) -> float:
        """Big blinds won, all-in hands scored by equity."""
        return self._adjusted.value

    @property
    def squares(self) -> float:
        """The sum over hands of the squared big blinds won."""
        return self._squares.value

    def as_json(self) -> dict[str, object]:
        """JSON-ready (floats as Python writes them: they read back the same)."""
        return {
            "hands": self.hands,
            "chips": self.chips,
            "raw": self.raw,
            "adjusted": self.adjusted,
            "squares": self.squares,
            "groups": self.groups.as_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotTally:
        """Totals written by ``as_json``."""
        tally = cls()
        tally.hands, tally.chips = int(data["hands"]), int(data["chips"])
        tally._raw = ExactSum(float(data["raw"]))
        tally._adjusted = ExactSum(float(data["adjusted"]))
        tally._squares = ExactSum(float(data["squares"]))
        tally.groups = GroupedSums.from_json(data["groups"])
        return tally


class _Group:
    """A duplicate group still in play: the hands of it seen, and by bot the big blinds won (an
    exact sum: the same in any order) and hands played."""

    __slots__ = ("hands", "seen", "totals")

    def __init__(self) -> None:
        self.seen = 0
        self.totals: dict[str, ExactSum] = {}
        self.hands: dict[str, int] = {}

    def add(self, name: str, won: float) -> None:
        """One bot's result in one hand of the group."""
        if name in self.totals:
            self.totals[name].add(won)
            self.hands[name] += 1
        else:
            self.totals[name] = ExactSum(won)
            self.hands[name] = 1


class Tally:
    """A match's hands folded as they end: ``BotTally`` by bot name, and the duplicate groups still open.

    A duplicate group is every hand of the match with one deal set and hand number; its totals
    by bot (big blinds, hands) are summed exactly and go into the bots'
    ``GroupedSums`` once all ``group_sizes[deal_set]`` tables of the deal set have played it (or
    at ``close``, for a match stopped early). Only groups in play are kept.
    """

    def __init__(self, group_sizes: dict[str, int] | None = None) -> None:
        """``group_sizes``: tables per deal set (a deal set not named has one table)."""
        self.group_sizes = dict(group_sizes or {})
        self.bots: dict[str, BotTally] = {}
        self.hands = 0  # hand records folded in
        self._open: dict[tuple[str, int], _Group] = {}

    def add(self, record: HandRecord) -> None:
        """Fold one finished hand in."""
        self.hands += 1
        bb, bots, ev = record.big_blind, self.bots, record.ev_net
        size = self.group_sizes.get(record.deal_set, 1)
        group: _Group | None = None
        if size > 1:
            key = (record.deal_set, record.hand)
            group = self._open.get(key)
            if group is None:
                group = self._open[key] = _Group()
            group.seen += 1
        for name, chips in record.net.items():
            tally = bots.get(name)
            if tally is None:
                tally = bots[name] = BotTally()
            won = chips / bb
            tally.add(chips, won, ev[name] / bb if ev is not None else won)
            if group is None:
                tally.groups.add(won, 1)
            else:
                group.add(name, won)
        if group is not None and group.seen == size:
            del self._open[key]
            self._fold(group)

    def _fold(self, group: _Group) -> None:
        for name, total in group.totals.items():
            self.bots[name].groups.add(total.value, group.hands[name])

    def close(self) -> None:
        """Fold in the groups not every table played (a match stopped early, a freezeout)."""
        for group in self._open.values():
            self._fold(group)
        self._open.clear()

    def merge(self, other: Tally) -> None:
        """Add a closed tally of other deal sets of the match (another worker process's part)."""
        assert not other._open, "an open tally is not merged"
        self.group_sizes.update(other.group_sizes)
        self.hands += other.hands
        for name, theirs in other.bots.items():
            mine = self.bots.get(name)
            if mine is None:
                mine = self.bots[name] = BotTally()
            mine.merge(theirs)

    def as_json(self) -> dict[str, object]:
        """JSON-ready (after ``close``)."""
        assert not self._open, "an open tally is not written"
        return {"hands": self.hands, "bots": {name: t.as_json() for name, t in sorted(self.bots.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        """A closed tally written by ``as_json``."""
        tally = cls()
        tally.hands = int(data["hands"])
        tally.bots = {name: BotTally.from_json(t) for name, t in data["bots"].items()}
        return tally
