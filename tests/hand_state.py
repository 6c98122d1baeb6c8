"""A hand's whole state as a value, to check that a refused action changed nothing."""

from __future__ import annotations

import dataclasses

from dealer.engine.rules import Hand


def snapshot(hand: Hand) -> tuple[object, ...]:
    """Every compared field of ``hand`` (as its ``==`` sees it: not the cache of ``legal()``),
    mutable containers copied (their items are immutable records).

    Not ``copy.deepcopy``: the compiled engine's classes cannot be copied that way.
    """
    return tuple(
        value.copy() if isinstance(value, (list, set)) else value
        for value in (getattr(hand, f.name) for f in dataclasses.fields(hand) if f.compare)
    )
