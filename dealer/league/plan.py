"""What defines a match: the bots as it reaches them and its plan, so it can be replayed exactly."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer.config.choices import Deals
from dealer.config.confined import Command
from dealer.config.league_file import GameConfig, Limits
from dealer.engine.scheduler import Seating, sealed_instances


@dataclass(frozen=True)
class MatchBot:
    """A bot as a match reaches it: a command to launch (an organiser's words, or a team's confined
    command: ``dealer.config.confined``), or a remote bot that dials in with ``token`` (a fixed token serves
    one instance: sealed rotations need a session per instance)."""

    name: str
    command: Command | None = None
    token: str | None = None
    limits: Limits = field(default_factory=Limits)
    protocol: str = (
        "grpc"  # or "stdio" (JSON lines on its stdin/stdout, dealer.connect.stdio), "acpc" (dealer.connect.acpc)
    )


@dataclass(frozen=True)
class MatchPlan:
    """Everything that defines a match, so that it can be replayed exactly."""

    match_id: str
    tables: tuple[Seating, ...]
    game: GameConfig
    hands: int
    seed: int | str | None = None
    mode: str = "reset"  # or "freezeout"
    blind_levels: tuple[tuple[int, int, int], ...] = ()
    hands_per_level: int = 0
    fault_policy: str = "fold"
    sealed: bool = True  # tables sharing a deal set are played by different processes of a bot
    luck: bool = False  # record each hand's luck-corrected nets too (dealer.stats.aivat; a comparison's estimator)
    strategies: tuple[str, ...] = ()  # with luck: bots whose reported strategies correct their decisions too
    features: bool = False  # with luck: each hand's luck features too (the learned correction's; up to ~2 ms a hand)
    deals: str = Deals.PLAIN  # or tilted: holes, flop, turn, river drawn by dealer.stats.tilted_deals, hands weighted
    attempt: int = 0  # how many times the match was cut off before (a league's --resume): new deals each time
    # The number of the first table; table k is numbered first_table + k wherever a table is named: the
    # wire (Item.table, stdio's "table"), the histories (file and _table_id), the logs and the web view.
    # A league numbers its matches' tables one after the other, so no two tables of a process share one.
    first_table: int = 1
    # Added to every instance number: the parts of a match played by worker processes (dealer.league.workers)
    # number their instances apart, so that no two processes share a log, a scratch folder or a socket.
    instance_offset: int = 0

    @property
    def chip_unit(self) -> int | None:
        """The big blind every hand's chips are counted in for the statistics (bb/100), or None for
        each hand's own (cash: stacks start afresh each hand, so mixed blinds add up). A freezeout's
        stacks carry from hand to hand, so its unit is the first level's big blind: a stack lost at a
        higher level is lost whole, and bb/100 keeps the sign of the chips won."""
        if self.mode != "freezeout":
            return None
        return self.blind_levels[0][1] if self.blind_levels else self.game.big_blind

    def instances(self) -> list[tuple[int, ...]]:
        """Which instance of each seat's bot plays each table (all instance 0 unless sealed)."""
        if not self.sealed:
            return [(0,) * len(t.seats) for t in self.tables]
        return sealed_instances([(t.seats, t.deal_set) for t in self.tables])

    def instance_labels(self) -> list[tuple[str, ...]]:
        """Each table's seats as instance labels (``<bot>.<k>``): who plays where, process by process."""
        return [
            tuple(instance_label(name, k + self.instance_offset) for name, k in zip(t.seats, ks, strict=True))
            for t, ks in zip(self.tables, self.instances(), strict=True)
        ]


def instance_label(name: str, instance: int) -> str:
    """The name of a bot's instance: its sessions, scratch folder and log are named after it."""
    return f"{name}.{instance}"
