"""The one way the engine and the wire encoder remember what they made from a key (records, PHH lines,
encoded events): bounded, emptied when full, since the same keys come back hand after hand."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def remember(kept: dict[K, V], key: K, value: V, limit: int) -> V:
    """Keep ``value`` under ``key`` in ``kept`` and return it; ``kept`` is emptied first when it already
    holds ``limit`` values (a full memo is rare, and starting it afresh costs one miss a key)."""
    if len(kept) >= limit:
        kept.clear()
    kept[key] = value
    return value
