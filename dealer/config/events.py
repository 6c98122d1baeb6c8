"""A league's events as types: round-robin, gauntlet, freezeout and compare, each a frozen record
owning its keys, the tables the scheduler seats for it and the hands each plays, with its defaults
written here once (a comparison's in ``CompareSettings``, which ``dealer compare`` reads too). An
event's ``format`` (a ``Format``, equal to its word) names its kind. Built by ``dealer.config.league_file``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from dealer.config.choices import Estimator, Format, Mode, TestKind
from dealer.config.read import parse_word
from dealer.engine.scheduler import Seating, compare_event, gauntlet_tables, round_robin_tables, schedule_event

if TYPE_CHECKING:
    from dealer.config.game import GameConfig

__all__ = ["KINDS", "AnyEvent", "Compare", "CompareSettings", "Event", "Freezeout", "Gauntlet", "RoundRobin"]


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
        settings = cls(
            estimator=parse_word(Estimator, estimator, "estimator"), test=parse_word(TestKind, test, "test"), **asked
        )
        settings.check()
        return settings

    def check(self) -> None:
        """Raise ValueError unless the settings make sense (sequential bounds around 0)."""
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha / 2 + self.beta < 1):
            raise ValueError(f"need 0 < alpha, beta < 1, got alpha={self.alpha}, beta={self.beta}")
        parse_word(Estimator, self.estimator, "estimator")
        parse_word(TestKind, self.test, "test")
        if self.worse_than >= self.better_than:
            raise ValueError(f"worse_than ({self.worse_than}) must be below better_than ({self.better_than})")
        if self.until_significant and not self.worse_than < 0 < self.better_than:
            raise ValueError(
                f"a sequential test needs worse_than < 0 < better_than, got {self.worse_than} and {self.better_than}"
            )


MAX_HANDS_DEFAULT = 5000  # a freezeout's hands when no bot has won all the chips


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """What every event has: its name, its bots, the game its hands follow and the line of the
    league file that declares it (0 when built in code)."""

    format: ClassVar[Format]
    keys: ClassVar[tuple[str, ...]]  # the league file's keys of the kind, beside name, format and game
    mode: ClassVar[Mode] = Mode.RESET  # how a match's stacks go
    name: str
    bots: tuple[str, ...]
    game: GameConfig
    line: int = 0

    @property
    def rated(self) -> bool:
        """Whether the event is ranked by rating, where chips do not compare (freezeouts, multi-way tables)."""
        return False

    def seed(self, league_seed: str | None) -> str:
        """The seed of the event's schedule: the league's and the event's name."""
        return f"{league_seed}/{self.name}"

    def tables(self, league_seed: str | None) -> list[Seating]:
        """The event's tables, seated by the scheduler (seeded by the league's seed and the event's name)."""
        raise NotImplementedError

    def hands_per_table(self, tables: int) -> int:
        """The hands each table of a match of ``tables`` tables plays (a freezeout's: at most)."""
        raise NotImplementedError

    @property
    def strategies(self) -> tuple[str, ...]:
        """The bots whose reported strategies the event's matches check and use (a comparison's versions)."""
        return ()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Cash(Event):
    """A cash event: tables of ``table_size`` played for ``hands`` each, every line-up ``meetings``
    times, duplicate (the same deals in each seat rotation) unless ``duplicate`` is false."""

    table_size: int
    hands: int
    duplicate: bool = True
    meetings: int = 1

    @property
    def rated(self) -> bool:
        """Multi-way tables are ranked by rating."""
        return self.table_size > 2

    def lineups(self, seed: str) -> list[tuple[str, ...]]:
        """Who sits at each table, before seating."""
        raise NotImplementedError

    def tables(self, league_seed: str | None) -> list[Seating]:
        """The event's line-ups, seated (and rotated when duplicate)."""
        seed = self.seed(league_seed)
        return schedule_event(self.name, self.lineups(seed), duplicate=self.duplicate, seed=seed)

    def hands_per_table(self, tables: int) -> int:
        """``hands`` is per table."""
        return self.hands


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRobin(_Cash):
    """Every pair of the event's bots meets at least ``meetings`` times."""

    format: ClassVar[Format] = Format.ROUND_ROBIN
    keys: ClassVar[tuple[str, ...]] = ("bots", "table_size", "hands", "duplicate", "meetings")

    def lineups(self, seed: str) -> list[tuple[str, ...]]:
        """Tables on which every pair meets."""
        return round_robin_tables(self.bots, self.table_size, seed=seed, min_meetings=self.meetings)


@dataclass(frozen=True, slots=True, kw_only=True)
class Gauntlet(_Cash):
    """The ``challenger`` (one of ``bots``) plays every table against the rest."""

    format: ClassVar[Format] = Format.GAUNTLET
    keys: ClassVar[tuple[str, ...]] = ("bots", "table_size", "hands", "duplicate", "meetings", "challenger")
    challenger: str

    def lineups(self, seed: str) -> list[tuple[str, ...]]:
        """Tables that all seat the challenger."""
        field_ = [b for b in self.bots if b != self.challenger]
        return gauntlet_tables(self.challenger, field_, self.table_size, seed=seed)


@dataclass(frozen=True, slots=True, kw_only=True)
class Freezeout(Event):
    """One table played until one bot holds every chip (or ``max_hands``), the blinds rising by
    ``blind_levels`` every ``hands_per_level`` hands; places score ``points``."""

    format: ClassVar[Format] = Format.FREEZEOUT
    keys: ClassVar[tuple[str, ...]] = ("bots", "table_size", "blind_levels", "hands_per_level", "max_hands", "points")
    mode: ClassVar[Mode] = Mode.FREEZEOUT
    table_size: int
    blind_levels: tuple[tuple[int, int, int], ...]
    hands_per_level: int
    max_hands: int = MAX_HANDS_DEFAULT
    points: tuple[int, ...] = ()

    @property
    def rated(self) -> bool:
        """Freezeouts are ranked by points, then rating."""
        return True

    def tables(self, league_seed: str | None) -> list[Seating]:
        """Round-robin line-ups, never duplicate (each table's stacks carry from hand to hand)."""
        seed = self.seed(league_seed)
        lineups = round_robin_tables(self.bots, self.table_size, seed=seed, min_meetings=1)
        return schedule_event(self.name, lineups, duplicate=False, seed=seed)

    def hands_per_table(self, tables: int) -> int:
        """At most ``max_hands``."""
        return self.max_hands


@dataclass(frozen=True, slots=True, kw_only=True)
class Compare(Event):
    """Is ``new`` better than ``old``? Heads-up duplicate, against each other or both against the
    ``field`` on the same deals, for ``hands`` in all; ``settings`` say how sure the answer must be."""

    format: ClassVar[Format] = Format.COMPARE
    keys: ClassVar[tuple[str, ...]] = (
        "new",
        "old",
        "field",
        "hands",
        "duplicate",
        "until_significant",
        "test",
        "alpha",
        "beta",
        "worse_than",
        "better_than",
    )
    table_size: ClassVar[int] = 2
    duplicate: ClassVar[bool] = True
    new: str
    old: str
    field: tuple[str, ...] = ()
    hands: int
    settings: CompareSettings = CompareSettings()

    def tables(self, league_seed: str | None) -> list[Seating]:
        """One deal set (one match) per field opponent, or one of new against old."""
        return compare_event(self.name, self.new, self.old, self.field)

    def hands_per_table(self, tables: int) -> int:
        """``hands`` counts every table."""
        return max(1, self.hands // tables)

    @property
    def strategies(self) -> tuple[str, ...]:
        """New and old report their strategies (AIVAT with known strategies)."""
        return (self.new, self.old)


AnyEvent = RoundRobin | Gauntlet | Freezeout | Compare
KINDS: tuple[type[AnyEvent], ...] = (RoundRobin, Gauntlet, Freezeout, Compare)  # in the order of Format
