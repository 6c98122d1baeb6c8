"""A comparison's paired samples: each complete duplicate group of a match gives one sample, the
difference new - old in big blinds by estimator (pure: no gRPC, protobuf or I/O)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dealer.config.choices import Estimator
from dealer.stats.control import LEARNED_PRIOR, ControlSums
from dealer.stats.crossfit import FOLDS
from dealer.stats.luck_features import DUEL_COLUMNS, FEATURES
from dealer.stats.stats import GroupedSums

if TYPE_CHECKING:
    from dealer.stats.records import HandRecord, MatchResult

ESTIMATORS: tuple[str, ...] = tuple(Estimator)  # in the order results.json lists them
# The estimators whose value each sample has on its own, in the order the journal lists their sums;
# ``learned`` is fitted over the samples (``dealer.stats.control``).
SAMPLE_ESTIMATORS: tuple[str, ...] = tuple(e for e in Estimator if e not in (Estimator.LEARNED, Estimator.BASELINE))
FITTED: tuple[str, ...] = (Estimator.LEARNED, Estimator.BASELINE)  # ``full`` minus controls fitted on other folds
TWIN = "~twin"
"""A deal set's twin (``dealer.league.runner``): the reference bot of the ``baseline`` estimator plays its
tables on ``D`` and again on ``D + TWIN``, fresh cards dealt alike; both join ``D``'s duplicate group."""
BASELINE_COLUMNS = 2  # the baseline control by the engine seat the reference bot held (heads-up tables)


def group_of(deal_set: str) -> str:
    """The deal set whose duplicate group a table's hands join: its own, or the one it is the twin of."""
    return deal_set.removesuffix(TWIN)


@dataclass(frozen=True)
class Sample:
    """One paired sample: a duplicate group's difference new - old in big blinds, by estimator."""

    key: tuple[str, str, int]  # match, deal set, hand number
    raw: float
    adjusted: float  # all-in adjusted
    hands: int  # hands each version played in the group
    all_in: int  # hands of the group whose result was all-in adjusted
    luck: float = 0.0  # luck corrected (dealer.stats.aivat); the all-in adjusted figure for hands without it
    corrected: int = 0  # hands of the group with a luck-corrected result
    full: float | None = None  # luck and known strategies corrected; None: the luck-corrected figure
    known: int = 0  # hands of the group with a decision corrected by a known strategy
    # Each hand's own difference new - old in bb/100 units (100 * bb): plain play. On tilted deals
    # (``dealer.stats.tilted_deals``) every figure is weighted by the deal's p / q, these by its square root:
    # their mean square is then plain play's under the shuffle (only their variance is read).
    plain: tuple[float, ...] = ()
    controls: tuple[float, ...] | None = None  # luck features new - old (dealer.stats.luck_features), bb/100 units
    baseline: tuple[float, ...] | None = None  # the reference bot's control by seat (``sample_of``), bb/100 units
    reference_hands: int = 0  # hands the reference bot played for it (its deal and its twin)

    def value(self, estimator: str) -> float:
        """The difference in bb/100 units (100 * bb / hands) by an estimator of ``SAMPLE_ESTIMATORS``
        (``learned``: the ``full`` value, which the fitted correction starts from)."""
        if estimator == Estimator.FULL or estimator in FITTED:
            total = self.luck if self.full is None else self.full
        else:
            by: dict[str, float] = {Estimator.AIVAT: self.luck, Estimator.ALL_IN: self.adjusted}
            total = by.get(estimator, self.raw)
        return 100 * total / self.hands


def paired_samples(results: Iterable[MatchResult], new: str, old: str, reference: str | None = None) -> list[Sample]:
    """The paired samples of finished matches that kept their hand records, by hand number then match
    and deal set (an analysis of a pool of deals: a comparison streams them, ``PairedTally``).

    A group is every hand of one match on one deal set with one hand number; groups in which
    the two versions did not play the same number of hands (a stopped match) are left out.
    """
    groups: dict[tuple[str, str, int], list[HandRecord]] = {}
    for result in results:
        if result.records is None:
            raise ValueError(f"match {result.match_id} kept no hand records to pair (Match(records=True))")
        for record in result.records:
            groups.setdefault((result.match_id, group_of(record.deal_set), record.hand), []).append(record)
    samples = [s for key, records in groups.items() if (s := sample_of(key, records, new, old, reference)) is not None]
    samples.sort(key=lambda s: (s.key[2], s.key[0], s.key[1]))
    return samples


def sample_of(
    key: tuple[str, str, int], records: Iterable[HandRecord], new: str, old: str, reference: str | None = None
) -> Sample | None:
    """A group's sample from its hands, each difference summed exactly (``math.fsum``): the same floats
    whatever order the hands ended in, and exactly zero when the two versions did exactly the same
    (a bot compared with itself), never a rounding residue; ``None`` when the versions did not play
    the same number of hands in it. The hands of ``reference`` (the baseline's bot) make the
    sample's ``baseline`` control (``_add_reference``), not its figures."""
    terms: tuple[list[float], ...] = ([], [], [], [])  # raw, all-in, luck corrected, full
    counts = [0, 0, 0, 0, 0]  # new's hands, old's hands, all-in hands, corrected hands, known-strategy hands
    plain: list[float] = []
    features: list[list[float]] = []  # by column, each hand's terms
    complete = True  # every hand brought its luck features
    baseline: list[list[float]] = [[] for _ in range(BASELINE_COLUMNS)]  # by the reference's seat, D minus twin
    reference_hands = [0, 0]  # on the deal, on its twin
    weights: set[float] = set()  # the deal's p / q (one: every seating is dealt the same cards)
    for record in records:
        if reference is not None and reference in record.net:
            _add_reference(baseline, reference_hands, record, reference)
            continue
        _add(terms, counts, record, new, old)
        weights.add(record.weight)
        sign_net = [sign * record.net[name] for name, sign in ((new, 1), (old, -1)) if name in record.net]
        plain.append(100 * math.fsum(sign_net) / record.big_blind)
        complete = complete and _add_features(features, record, new, old)
    if not counts[0] or counts[0] != counts[1]:
        return None
    w = _weight(key, weights)
    raw, adjusted, luck, full = (w * math.fsum(t) for t in terms)
    controls = tuple(100 * w * math.fsum(c) / counts[0] for c in features) if complete and features else None
    twin = reference_hands[0] > 0 and reference_hands[0] == reference_hands[1]  # its deal and twin both played
    control = tuple(100 * math.fsum(c) / counts[0] for c in baseline) if twin else None
    return Sample(
        key,
        raw,
        adjusted,
        counts[0],
        counts[2],
        luck,
        counts[3],
        full if counts[4] else None,
        counts[4],
        tuple(math.sqrt(w) * x for x in plain),
        controls,
        control,
        sum(reference_hands),
    )


def _weight(key: tuple[str, str, int], weights: set[float]) -> float:
    """The weight of a group's deal (``dealer.stats.tilted_deals``: 1 unless its cards were tilted); a group
    whose hands carry different weights is a dealer bug (ValueError)."""
    if len(weights) != 1:
        raise ValueError(f"the hands of deal {key} carry different weights {sorted(weights)}: one deal, one weight")
    return weights.pop()


def _add_reference(baseline: list[list[float]], hands: list[int], record: HandRecord, reference: str) -> None:
    """Add a hand of the reference bot (the ``baseline`` estimator, ``dealer.league.runner``): its
    luck-corrected result in big blinds, plus on the group's own deal and minus on the twin deal, in the
    column of the engine seat it held. The twin is a deal of its own, dealt as the deal is and played by
    the same bots in the same seats, so each column has expectation exactly zero whatever the bots do
    (and the weights fitted on other folds keep it so); it measures how this deal's cards played for the
    reference against the versions' opponent, beyond how cards play on average."""
    name = reference
    value = _corrected(record, name) / record.big_blind
    twin = record.deal_set != group_of(record.deal_set)
    hands[twin] += 1
    baseline[list(record.net).index(name) % BASELINE_COLUMNS].append(-value if twin else value)


def _corrected(record: HandRecord, name: str) -> float:
    """A seat's most corrected result in chips: known strategies, else luck, else all-in, else raw."""
    for by in (record.full_net, record.luck_net, record.ev_net):
        if by is not None and name in by:
            return by[name]
    return record.net[name]


CONTROL_COLUMNS = len(FEATURES) + len(DUEL_COLUMNS)
"""The learned correction's columns: every luck feature, the duel columns twice (``_add_features``)."""


def learned_sums(columns: int) -> ControlSums:
    """The learned correction's sums: with its prior (``control.LEARNED_PRIOR``) when the columns are
    this dealer's (``CONTROL_COLUMNS``)."""
    return ControlSums(columns, _prior(columns))


def _prior(columns: int) -> tuple[float, ...] | None:
    return LEARNED_PRIOR if columns == len(LEARNED_PRIOR) == CONTROL_COLUMNS else None


def _add_features(features: list[list[float]], record: HandRecord, new: str, old: str) -> bool:
    """Add a hand's luck features (new's minus old's, in big blinds) by column; False without them.

    The duel columns (``luck_features.DUEL_COLUMNS``, the last ones) go twice, once for the hands in
    which the new version (or, against a field, the version in the hand) held the first engine seat
    and once for the others: where both seatings of a deal reached a card alike, their columns are
    equal and opposite, and only split do they say which version the card favoured. The seating is
    fixed before the deal, so each split column keeps expectation zero."""
    if record.features is None:
        return False
    seats = list(record.features)  # by engine seat (dealer.league.table builds it in seat order)
    block = 0 if seats.index(new if new in record.features else old) == 0 else 1
    for name, sign in ((new, 1), (old, -1)):
        row = record.features.get(name)
        if row is None:
            continue
        if not features:
            features.extend([] for _ in range(CONTROL_COLUMNS))
        for k, x in enumerate(row):
            column = k if k < DUEL_COLUMNS[0] else k + block * len(DUEL_COLUMNS)
            features[column].append(sign * x / record.big_blind)
    return True


def _add(terms: tuple[list[float], ...], counts: list[int], record: HandRecord, new: str, old: str) -> None:
    bb = record.big_blind
    ev, luck, full = record.ev_net, record.luck_net, record.full_net
    for name, sign, count in ((new, 1, 0), (old, -1, 1)):
        if name in record.net:
            adjusted = sign * (ev[name] if ev is not None else record.net[name]) / bb
            corrected = sign * luck[name] / bb if luck is not None else adjusted
            terms[0].append(sign * record.net[name] / bb)
            terms[1].append(adjusted)
            terms[2].append(corrected)
            terms[3].append(sign * full[name] / bb if full is not None else corrected)
            counts[count] += 1
    counts[2] += ev is not None
    counts[3] += luck is not None
    counts[4] += full is not None


class PairedSums:
    """Paired samples folded into running sums: by estimator the exact ``GroupedSums`` of the groups'
    totals (the figures: each duplicate group one unit), the verdict estimator's values in bb/100 as
    units of one (the sequential test's state) and the counts the report gives. Sums, not samples:
    memory that does not grow with the comparison, and the same figures whatever order they merge in."""

    __slots__ = (
        "all_in",
        "baseline",
        "controls",
        "corrected",
        "estimator",
        "informative",
        "known",
        "plain",
        "reference_hands",
        "totals",
        "values",
    )

    def __init__(self, estimator: str = "full") -> None:
        """``estimator``: the one of ``ESTIMATORS`` whose values the sequential test reads."""
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}, not {estimator!r}")
        self.estimator = estimator
        self.totals = {e: GroupedSums() for e in SAMPLE_ESTIMATORS}
        self.values = GroupedSums()  # with ``learned``: the ``full`` values (the fit corrects them)
        self.plain = GroupedSums()  # every hand's own difference, one unit each: what plain play would see
        self.controls: ControlSums | None = None  # the learned correction's sums, once a sample brings features
        self.baseline: ControlSums | None = None  # the baseline's sums, once a sample brings the reference's control
        self.reference_hands = 0  # hands the reference bot played (the baseline's cost)
        self.informative = 0  # samples whose value is not exactly zero
        self.all_in = 0  # hands all-in adjusted, luck corrected, with a known strategy
        self.corrected = 0
        self.known = 0

    @classmethod
    def of(cls, samples: Iterable[Sample], estimator: str = "full") -> PairedSums:
        """The sums of a list of samples (an analysis of kept samples)."""
        sums = cls(estimator)
        for sample in samples:
            sums.add(sample)
        return sums

    @property
    def deals(self) -> int:
        """Paired samples (duplicate groups) summed."""
        return self.values.groups

    @property
    def hands(self) -> int:
        """Hands each version played in them."""
        return self.totals["raw"].hands

    def add(self, sample: Sample) -> None:
        """Fold one sample in."""
        for estimator, sums in self.totals.items():
            sums.add(sample.value(estimator) * sample.hands / 100, sample.hands)
        value = sample.value(self.estimator)
        self.values.add(value, 1)
        for x in sample.plain:
            self.plain.add(x, 1)
        if sample.controls is not None:
            if self.controls is None:
                self.controls = learned_sums(len(sample.controls))
            self.controls.add(sample.key[2] % FOLDS, sample.value(Estimator.FULL), sample.controls)
        if sample.baseline is not None:
            if self.baseline is None:
                self.baseline = ControlSums(len(sample.baseline))
            self.baseline.add(sample.key[2] % FOLDS, sample.value(Estimator.FULL), sample.baseline)
        self.reference_hands += sample.reference_hands
        self.informative += value != 0
        self.all_in += sample.all_in
        self.corrected += sample.corrected
        self.known += sample.known

    def merge(self, other: PairedSums) -> None:
        """Add every sample of ``other`` (a later stretch of hands, another match's)."""
        if other.estimator != self.estimator:
            raise ValueError(f"paired sums of estimator {other.estimator!r} cannot join {self.estimator!r}'s")
        for estimator, sums in self.totals.items():
            sums.merge(other.totals[estimator])
        self.values.merge(other.values)
        self.plain.merge(other.plain)
        if other.controls is not None:
            if self.controls is None:
                self.controls = learned_sums(other.controls.columns)
            self.controls.merge(other.controls)
        if other.baseline is not None:
            if self.baseline is None:
                self.baseline = ControlSums(other.baseline.columns)
            self.baseline.merge(other.baseline)
        self.reference_hands += other.reference_hands
        self.informative += other.informative
        self.all_in += other.all_in
        self.corrected += other.corrected
        self.known += other.known

    def learned_moments(self) -> tuple[int, float, float] | None:
        """The ``learned`` figures' count, mean and sum of squared deviations (bb/100, each sample one
        unit), cross-fitted on the luck features (``dealer.stats.control``); None unless every sample brought
        them (then the ``learned`` figures are the ``full`` ones)."""
        return self.fitted_moments(Estimator.LEARNED)

    def fitted_moments(self, estimator: str) -> tuple[int, float, float] | None:
        """A fitted estimator's (``FITTED``: ``learned`` on the luck features, ``baseline`` on the reference
        bot's control) count, mean and sum of squared deviations, cross-fitted (``dealer.stats.control``);
        None for another estimator or unless every sample brought its columns (its figures are then
        ``full``'s)."""
        sums = {Estimator.LEARNED: self.controls, Estimator.BASELINE: self.baseline}.get(Estimator(estimator))
        if sums is not None and sums.n == self.deals:
            return sums.moments()
        return None

    def test_moments(self) -> tuple[int, float, float]:
        """What the sequential test reads: the verdict estimator's count, mean and sum of squared deviations."""
        moments = self.fitted_moments(self.estimator)
        return self.values.moments() if moments is None else moments

    def as_json(self) -> list[object]:
        """[informative, all_in, corrected, known, values, totals by estimator in ``SAMPLE_ESTIMATORS``
        order, plain, controls or null]. The controls are kept only when the verdict is taken from
        ``learned`` (a league's journal row per look): read back, the others' ``learned`` figures are
        ``full``'s."""
        counts: list[object] = [self.informative, self.all_in, self.corrected, self.known]
        totals = [self.totals[e].as_json() for e in SAMPLE_ESTIMATORS]
        keep = self.controls is not None and self.estimator == Estimator.LEARNED  # 7 KB a look: only when used
        controls = self.controls.as_json() if keep and self.controls is not None else None
        return [*counts, self.values.as_json(), *totals, self.plain.as_json(), controls]

    @classmethod
    def from_json(cls, estimator: str, data: Sequence[Any]) -> PairedSums:
        """Sums written by ``as_json``."""
        sums = cls(estimator)
        sums.informative, sums.all_in, sums.corrected, sums.known = (int(x) for x in data[:4])
        sums.values = GroupedSums.from_json(data[4])
        end = 5 + len(SAMPLE_ESTIMATORS)
        sums.totals = {e: GroupedSums.from_json(x) for e, x in zip(SAMPLE_ESTIMATORS, data[5:end], strict=True)}
        if len(data) > end:  # written before plain and controls were kept: neither
            sums.plain = GroupedSums.from_json(data[end])
            controls = data[end + 1]
            sums.controls = None if controls is None else ControlSums.from_json(controls, _prior(controls["columns"]))
        if sums.controls is not None and sums.controls.columns != CONTROL_COLUMNS:
            raise ValueError(
                f"its learned correction's sums have {sums.controls.columns} columns where this dealer keeps "
                f"{CONTROL_COLUMNS}: they were written by another version of the dealer"
            )
        return sums


@dataclass(frozen=True)
class Pairing:
    """What a comparison pairs: the two versions, the estimator its sequential test reads, and the hand
    numbers between two looks of the test (``every``: ``batch`` samples over the groups of a hand number)."""

    new: str
    old: str
    estimator: str = "full"
    every: int = 1
    reference: str | None = None  # the baseline's reference bot, whose hands make the control

    @classmethod
    def looking(
        cls, new: str, old: str, estimator: str, batch: int, groups: int, reference: str | None = None
    ) -> Pairing:
        """A test looked at after every ``batch`` samples, ``groups`` of them each hand number (rounded up
        to whole hand numbers: the looks fall where every group of a hand number is in)."""
        return cls(new, old, estimator, max(1, -(-batch // max(groups, 1))), reference)


class PairedTally:
    """A comparison's hands paired as they end: each duplicate group (one deal set and hand number) is
    held until every table of its deal set has played it, then folded into the sums of its stretch of
    ``every`` hand numbers; a stretch closes, in hand order, once all its groups are in.

    ``look(sums)`` sees the running sums at each close (the sequential test: return True to stop,
    nothing is folded after); ``keep`` keeps each closed stretch's sums instead (``checks``: a league's
    match, whose looks are taken once every match of the comparison is over). After ``finish``,
    ``rest`` holds what no closed stretch holds. Memory: the open groups and stretches, and with
    ``keep`` one sum per look, never a record per hand or deal.
    """

    def __init__(
        self,
        pairing: Pairing,
        group_sizes: Mapping[str, int],
        *,
        match_id: str = "",
        look: Callable[[PairedSums], bool] | None = None,
        keep: bool = False,
    ) -> None:
        """``group_sizes``: tables per deal set (the groups of a hand number are one per deal set, a twin's
        tables counted in its deal's group, ``group_of``)."""
        self.pairing = pairing
        self.sizes: dict[str, int] = {}
        for deal_set, size in group_sizes.items():
            self.sizes[group_of(deal_set)] = self.sizes.get(group_of(deal_set), 0) + size
        self.match_id = match_id
        self.look = look
        self.keep = keep
        self.sums = PairedSums(pairing.estimator)  # every closed stretch
        self.checks: list[PairedSums] = []  # with ``keep``: each closed stretch's own sums, in order
        self.rest = PairedSums(pairing.estimator)  # after ``finish``: the samples of stretches not closed
        self.stopped = False
        self._groups: dict[tuple[str, int], list[HandRecord]] = {}
        self._stretches: dict[int, list[Any]] = {}  # open stretch -> [its sums, groups still to come]
        self._closed = 0  # stretches closed

    def add(self, record: HandRecord) -> None:
        """Fold one finished hand in (nothing once stopped or finished)."""
        if self.stopped:
            return
        deal_set = group_of(record.deal_set)
        key = (deal_set, record.hand)
        group = self._groups.setdefault(key, [])
        group.append(record)
        if len(group) < self.sizes.get(deal_set, 1):
            return
        del self._groups[key]
        pairing = self.pairing
        index = record.hand // pairing.every
        stretch = self._stretches.get(index)
        if stretch is None:
            stretch = self._stretches[index] = [PairedSums(pairing.estimator), pairing.every * len(self.sizes)]
        sample = sample_of((self.match_id, deal_set, record.hand), group, pairing.new, pairing.old, pairing.reference)
        if sample is not None:
            stretch[0].add(sample)
        stretch[1] -= 1
        while not self.stopped and (head := self._stretches.get(self._closed)) is not None and head[1] == 0:
            del self._stretches[self._closed]
            self.close(head[0])

    def close(self, stretch: PairedSums) -> None:
        """Fold in the next stretch of hand numbers, complete (``add`` calls it; a league merges its
        matches' stretches through it), then look."""
        if self.stopped:
            return
        self._closed += 1
        self.sums.merge(stretch)
        if self.keep:
            self.checks.append(stretch)
        if self.look is not None and self.look(self.sums):
            self.stopped = True

    def finish(self) -> PairedSums:
        """Stop folding; ``rest`` then holds the stretches never closed (the match's last, incomplete
        one, or groups some table never played); return every sample folded, closed or not."""
        if not self.stopped:
            for index in sorted(self._stretches):
                self.rest.merge(self._stretches[index][0])
        self._stretches.clear()
        self._groups.clear()
        self.stopped = True
        total = PairedSums(self.pairing.estimator)
        total.merge(self.sums)
        total.merge(self.rest)
        return total

    def as_json(self) -> dict[str, object]:
        """A finished ``keep`` tally, JSON-ready (a league journal's row)."""
        assert self.stopped and self.keep, "only a finished tally that kept its checks is written"
        p = self.pairing
        return {
            "new": p.new,
            "old": p.old,
            "estimator": p.estimator,
            "every": p.every,
            "checks": [c.as_json() for c in self.checks],
            "rest": self.rest.as_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], match_id: str = "") -> PairedTally:
        """A finished tally written by ``as_json``."""
        pairing = Pairing(str(data["new"]), str(data["old"]), str(data["estimator"]), int(data["every"]))
        tally = cls(pairing, {}, match_id=match_id, keep=True)
        tally.checks = [PairedSums.from_json(pairing.estimator, c) for c in data["checks"]]
        for check in tally.checks:
            tally.sums.merge(check)
        tally.rest = PairedSums.from_json(pairing.estimator, data["rest"])
        tally.stopped = True
        return tally
