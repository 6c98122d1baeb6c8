"""What the arena shows of a match's files: its hands, read from the histories in the match's folder
(``layout`` names them), and its results by duplicate group. Who may see them is decided once, by
``services.Arena.match_view``: the ladder deals the same deal sets to every pair in turn (duplicate
across the ladder), so the cards of a ranked match are a deck that other teams will still be dealt;
only the match's own teams (who never get that deal set again) and the organiser see its hands.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from dealer.arena.layout import history_files


def match_hands(storage: Path, match_id: int) -> list[dict[str, Any]]:
    """Every hand of the match, each table's in order (parsed PHH, tagged with its table's file)."""
    hands: list[dict[str, Any]] = []
    for path in history_files(storage, match_id):
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
        hands.extend({**tables[key], "_file": path.name} for key in sorted(tables, key=int))
    return hands


def duplicate_groups(hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each duplicate group (the same deal played at every rotation of its seats): each player's
    chips won over the group, by the hand's number."""
    groups: dict[int, dict[str, int]] = {}
    for hand in hands:
        won = groups.setdefault(int(hand.get("hand", 0)), {})
        for name, start, end in zip(hand["players"], hand["starting_stacks"], hand["finishing_stacks"], strict=True):
            won[name] = won.get(name, 0) + end - start
    return [{"hand": number, "won": won} for number, won in sorted(groups.items())]
