"""The choices a league file, the CLI and the library offer, each a ``StrEnum``: one owner per set
of words. A member is equal to its text, prints as it and is written to JSON as it, so results,
journals and messages read as they did when these were plain strings. Pure: imports nothing."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "BotProtocol",
    "Deals",
    "Estimator",
    "FaultPolicy",
    "Format",
    "Mode",
    "Network",
    "Switch",
    "TestKind",
    "VariantName",
]


class VariantName(StrEnum):
    """The betting structure of a hand (mixed: blocks of fixed-limit then no-limit hands)."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"
    MIXED = "mixed"


class Format(StrEnum):
    """The kind of a league event."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    FREEZEOUT = "freezeout"
    COMPARE = "compare"


class Estimator(StrEnum):
    """The figures a comparison's verdict is taken from (``dealer.stats.compare``), least noisy first."""

    LEARNED = "learned"
    BASELINE = "baseline"
    FULL = "full"
    AIVAT = "aivat"
    ALL_IN = "all-in"
    RAW = "raw"


class Deals(StrEnum):
    """How a comparison's cards are drawn: as the shuffle deals them, or with the hole cards, flop, turn and
    river tilted toward hands and boards where the two hands meet, each deal weighted back
    (``dealer.stats.tilted_deals``)."""

    PLAIN = "plain"
    TILTED = "tilted"


class TestKind(StrEnum):
    """A comparison's sequential test: a confidence sequence (the default) or two SPRTs."""

    __test__ = False  # not a pytest test class, whatever its name

    CS = "cs"
    SPRT = "sprt"


class Mode(StrEnum):
    """How a match's stacks go: reset every hand (a cash game) or kept until one bot holds all (freezeout)."""

    RESET = "reset"
    FREEZEOUT = "freezeout"


class FaultPolicy(StrEnum):
    """What a failed bot does for the rest of its match: fold its hands, forfeit, or restart."""

    FOLD = "fold"
    FORFEIT = "forfeit"
    RESTART = "restart"


class BotProtocol(StrEnum):
    """How a bot speaks to the dealer: gRPC, JSON lines on stdio, or the ACPC protocol."""

    GRPC = "grpc"
    STDIO = "stdio"
    ACPC = "acpc"


class Network(StrEnum):
    """A launched bot's network: its own namespace (the dealer's Unix socket only), or the host's."""

    NONE = "none"
    HOST = "host"


class Switch(StrEnum):
    """On or off (a bot's sandbox)."""

    ON = "on"
    OFF = "off"
