"""A league's events as records: what each event plays, and a comparison's settings (the one place
their defaults are written)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dealer.choices import Estimator, Format, TestKind
from dealer.config_read import _word

if TYPE_CHECKING:
    from dealer.config_game import GameConfig


@dataclass(frozen=True)
class CompareSettings:
    """What a comparison (``dealer compare``, a compare event) asks and how sure the answer must
    be (bounds in bb/100): the one place its defaults are written (events and the CLI read them)."""

    worse_than: float = -5.0
    better_than: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    until_significant: bool = False
    estimator: Estimator = Estimator.FULL  # the figures the verdict is taken from
    test: TestKind = TestKind.CS  # the sequential test
    cs_horizon: int = 1000  # paired deals at which the confidence sequence is narrowest
    min_samples: int = 100  # paired deals before the SPRT may stop: its variance estimate needs them
    # ... and of those, deals whose two versions did NOT cancel exactly: close versions agree on
    # most deals, and a variance estimated from zeros alone makes the test stop far too early.
    min_informative: int = 50

    @classmethod
    def read(cls, *, estimator: str, test: str, **asked: Any) -> CompareSettings:
        """Settings whose estimator and test are given as words (the CLI's options), checked: a
        ValueError of one sentence for the first thing that makes no sense."""
        settings = cls(estimator=_word(Estimator, estimator, "estimator"), test=_word(TestKind, test, "test"), **asked)
        settings.check()
        return settings

    def check(self) -> None:
        """Raise ValueError unless the settings make sense (sequential bounds around 0)."""
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha / 2 + self.beta < 1):
            raise ValueError(f"need 0 < alpha, beta < 1, got alpha={self.alpha}, beta={self.beta}")
        _word(Estimator, self.estimator, "estimator")
        _word(TestKind, self.test, "test")
        if self.worse_than >= self.better_than:
            raise ValueError(f"worse_than ({self.worse_than}) must be below better_than ({self.better_than})")
        if self.until_significant and not self.worse_than < 0 < self.better_than:
            raise ValueError(
                f"a sequential test needs worse_than < 0 < better_than, got {self.worse_than} and {self.better_than}"
            )


@dataclass(frozen=True, slots=True)
class EventSpec:
    """One event of a league; keys that do not apply to its format keep their defaults."""

    name: str
    format: Format
    table_size: int
    hands: int | None
    duplicate: bool
    bots: tuple[str, ...]
    game: GameConfig
    challenger: str | None = None
    blind_levels: tuple[tuple[int, int, int], ...] = ()
    hands_per_level: int | None = None
    max_hands: int | None = None
    points: tuple[int, ...] = ()
    new: str | None = None
    old: str | None = None
    field: tuple[str, ...] = ()
    until_significant: bool = CompareSettings.until_significant
    test: TestKind = CompareSettings.test
    alpha: float = CompareSettings.alpha
    beta: float = CompareSettings.beta
    worse_than: float = CompareSettings.worse_than
    better_than: float = CompareSettings.better_than
    meetings: int = 1
    line: int = 0
