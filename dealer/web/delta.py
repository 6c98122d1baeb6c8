"""Deltas between two snapshots as JSON Merge Patches (RFC 7386): an object lists only the keys that
changed (``null``: removed), anything else is replaced whole. Snapshots key what grows (hands by
``match|table|hand``) so that a new hand is one key, not a re-sent list. A ``null`` inside an
object means "removed", so the page reads a missing key as it would read ``null``.
"""

from __future__ import annotations

from typing import Any


def diff(old: Any, new: Any) -> Any:
    """The merge patch that turns ``old`` into ``new`` (``{}`` when they are equal). Objects shared
    by both (a cached report, a replay) are skipped by identity before they are compared."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    patch: dict[str, Any] = dict.fromkeys(old.keys() - new.keys())
    for key, value in new.items():
        if key not in old:
            patch[key] = value
            continue
        before = old[key]
        if before is value or before == value:
            continue
        if isinstance(value, dict) and isinstance(before, dict):
            patch[key] = diff(before, value)
        else:
            patch[key] = value
    return patch


def apply(target: Any, patch: Any) -> Any:
    """``target`` with ``patch`` merged in (RFC 7386's algorithm; a new object, ``target`` unchanged)."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = apply(merged.get(key), value)
    return merged
