"""The reasons a bot is charged with, and which of them void its result: one owner for the
server that counts faults and for the scorers (standings, ratings, points, compare) that read them.

Imports nothing of the dealer, so a statistics or report module can use it without the gRPC stack.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Fault(StrEnum):
    """Reasons a bot is charged with, as they appear in results: one reason per event (the
    table in README.md and SECURITY.md says what each covers)."""

    TIMEOUT = "timeout"  # no answer within a request's time (a late answer is not counted again)
    ILLEGAL = "illegal_action"  # an answer the rules do not allow
    UNEXPECTED = "unexpected_reply"  # an answer to no open request of that id on that table
    PROTOCOL = "protocol"  # a malformed message, one above MAX_MESSAGE_BYTES, an unsupported version
    DISCONNECT = "disconnect"  # the stream ended without Goodbye, the process did not crash
    CRASH = "crash"  # the process exited by itself with a failure status or a signal
    MEMORY = "memory"  # ... and its log ends with an allocation failure (its memory limit)
    CPU = "cpu_time"  # ... killed for its CPU time limit (cpu_seconds: its cgroup's, else a process's)
    NO_CONNECT = "no_connect"  # no connection within the start-up time
    START = "start_failed"  # the process could not be started
    AUTH = "authentication"  # a second stream with a token already connected
    FLOOD = "flood"  # more than FLOOD_LIMIT messages or replies that answer no request
    STALLED = "stalled"  # more than MAX_BACKLOG_BYTES waited for a bot that does not read its stream


VOIDING: frozenset[str] = frozenset(
    {Fault.START, Fault.NO_CONNECT, Fault.AUTH, Fault.CRASH, Fault.MEMORY, Fault.CPU, Fault.DISCONNECT}
)
"""Faults of a bot that stopped playing (it then folds or checks unasked): its result in that match
is no valid result (no points, ranked last in the match's rating, a comparison's figures void)."""


def voided(reasons: Iterable[str]) -> bool:
    """Whether a bot's faults (its reasons, e.g. the keys of a Counter by reason) include a voiding one."""
    return not VOIDING.isdisjoint(reasons)
