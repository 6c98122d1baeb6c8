"""A comparison's paired samples: each complete duplicate group of a match gives one sample, the
difference new - old in big blinds by estimator (pure: no gRPC, protobuf or I/O)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dealer.records import HandRecord, MatchResult

ESTIMATORS = ("full", "aivat", "all-in", "raw")


@dataclass(frozen=True)
class Sample:
    """One paired sample: a duplicate group's difference new - old in big blinds, by estimator."""

    key: tuple[str, str, int]  # match, deal set, hand number
    raw: float
    adjusted: float  # all-in adjusted
    hands: int  # hands each version played in the group
    all_in: int  # hands of the group whose result was all-in adjusted
    luck: float = 0.0  # luck corrected (dealer.aivat); the all-in adjusted figure for hands without it
    corrected: int = 0  # hands of the group with a luck-corrected result
    full: float | None = None  # luck and known strategies corrected; None: the luck-corrected figure
    known: int = 0  # hands of the group with a decision corrected by a known strategy

    def value(self, estimator: str) -> float:
        """The difference in bb/100 units (100 * bb / hands) by an estimator of ``ESTIMATORS``."""
        if estimator == "full":
            total = self.luck if self.full is None else self.full
        else:
            total = self.luck if estimator == "aivat" else self.adjusted if estimator == "all-in" else self.raw
        return 100 * total / self.hands


def paired_samples(results: Iterable[MatchResult], new: str, old: str) -> list[Sample]:
    """The paired samples of a comparison, by hand number then match and deal set.

    A group is every hand of one match on one deal set with one hand number; groups in which
    the two versions did not play the same number of hands (a stopped match) are left out.
    """
    groups: dict[tuple[str, str, int], list[float]] = {}
    for result in results:
        if result.records is None:
            raise ValueError(f"match {result.match_id} kept no hand records to pair (Match(records=True))")
        for record in result.records:
            key = (result.match_id, record.deal_set, record.hand)
            g = groups.setdefault(key, _group())
            _add(g, record, new, old)
    samples = [_sample(key, g) for key, g in groups.items() if g[2] and g[2] == g[3]]
    samples.sort(key=lambda s: (s.key[2], s.key[0], s.key[1]))
    return samples


def _group() -> list[float]:
    """A group's running totals: raw, all-in, new's hands, old's hands, all-in hands, luck corrected,
    luck-corrected hands, full, hands with known strategies."""
    return [0.0, 0.0, 0, 0, 0, 0.0, 0, 0.0, 0]


def _add(g: list[float], record: HandRecord, new: str, old: str) -> None:
    bb = record.big_blind
    ev, luck, full = record.ev_net, record.luck_net, record.full_net
    for name, sign, count in ((new, 1, 2), (old, -1, 3)):
        if name in record.net:
            adjusted = sign * (ev[name] if ev is not None else record.net[name]) / bb
            corrected = sign * luck[name] / bb if luck is not None else adjusted
            g[0] += sign * record.net[name] / bb
            g[1] += adjusted
            g[5] += corrected
            g[7] += sign * full[name] / bb if full is not None else corrected
            g[count] += 1
    g[4] += ev is not None
    g[6] += luck is not None
    g[8] += full is not None


def _sample(key: tuple[str, str, int], g: list[float]) -> Sample:
    return Sample(key, g[0], g[1], int(g[2]), int(g[4]), g[5], int(g[6]), g[7] if g[8] else None, int(g[8]))
