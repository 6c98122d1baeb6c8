"""A bot's gRPC message of replies read straight from its bytes (``replies``), the gRPC server's usual
message: the same replies as ``dealer.connect.wire.replies_of`` reads through the generated class,
without making a protobuf object per reply and reading its fields one attribute at a time (most of
the cost of a reply on the dealer's side). Anything else is left to the generated class.

A BotMessage of replies is its ``actions`` (field 2) one after another, each an ActionReply: table 1,
request_id 2, type 3, amount 4 (varints; amount an int64 in two's complement), strategy 5.
``tests/test_wire.py`` checks it against the generated class on random and mangled messages.
"""

from __future__ import annotations

from typing import Final

from dealer.connect.wire import Reply, action_name

_REPLY_KEY: Final = 0x12  # BotMessage.actions: field 2, length-delimited
_TOO_LONG: Final = (-1, -1)  # a varint cut short or past 64 bits


def replies(data: bytes) -> list[Reply] | None:
    """The replies of a BotMessage's bytes, as ``wire.replies_of`` reads them; None when the message
    holds anything else (a Hello, a strategy, an unknown field or wire type) or is cut short:
    ``BotMessage.FromString`` reads those, or says why they are malformed."""
    found: list[Reply] = []
    at, end = 0, len(data)
    while at < end:
        if data[at] != _REPLY_KEY:
            return None
        size, at = _varint_at(data, at + 1, end)
        if size < 0 or at + size > end:
            return None
        answer = _reply_at(data, at, at + size)
        if answer is None:
            return None
        found.append(answer)
        at += size
    return found


def _reply_at(data: bytes, at: int, end: int) -> Reply | None:
    """The ActionReply in ``data[at:end]`` with no strategy (a later value of a field replaces an
    earlier one, as protobuf reads them); None for anything else."""
    table = request_id = kind = amount = 0
    while at < end:
        key = data[at]
        value, at = _varint_at(data, at + 1, end)
        if value < 0:
            return None
        if key == 0x08:  # table
            table = value
        elif key == 0x10:  # request_id
            request_id = value
        elif key == 0x18 and value < 0x80000000:  # the action type: an enum, a non-negative int32 here
            kind = value
        elif key == 0x20:  # amount, an int64: two's complement
            amount = value - (1 << 64) if value >> 63 else value
        else:
            return None
    return Reply(table, request_id, action_name(kind), amount)


def _varint_at(data: bytes, at: int, end: int) -> tuple[int, int]:
    """The varint at ``at`` (before ``end``) and where it ends; ``_TOO_LONG`` if cut short or past 64 bits."""
    value = shift = 0
    while at < end and shift < 64:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return (value, at) if value >> 64 == 0 else _TOO_LONG
        shift += 7
    return _TOO_LONG
