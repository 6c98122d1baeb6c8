"""The bots of ``dealer compare``: the two versions and their field, named for the comparison."""

from __future__ import annotations

from dealer.cli.options import bot_names
from dealer.config.league_file import Limits
from dealer.league.match import MatchBot


def compare_entries(commands: list[list[str]], limits: Limits) -> list[MatchBot]:
    """New, old and the field as bots: new and old named so, the field by its command lines."""
    field = commands[2:]
    names = ["new", "old", *(n if n not in ("new", "old") else f"{n}-field" for n in bot_names(field))]
    return [MatchBot(n, tuple(c), limits=limits) for n, c in zip(names, commands, strict=True)]
