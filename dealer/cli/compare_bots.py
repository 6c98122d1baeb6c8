"""The bots of ``dealer compare``: the two versions and their field, named for the comparison."""

from __future__ import annotations

import shlex
import sys
from importlib.util import find_spec

from dealer.cli.options import bot_names, fail, split_command
from dealer.config.choices import Deals, Estimator
from dealer.config.league_file import Limits
from dealer.league.match import MatchBot
from dealer.league.runner import check_baseline_deals
from dealer.stats.compare import deal_sets_for

REFERENCE = "reference"  # the baseline's reference bot's name in the comparison


def compare_entries(commands: list[list[str]], limits: Limits) -> list[MatchBot]:
    """New, old and the field as bots: new and old named so, the field by its command lines."""
    field = commands[2:]
    taken = ("new", "old", REFERENCE)
    names = ["new", "old", *(n if n not in taken else f"{n}-field" for n in bot_names(field))]
    return [MatchBot(n, tuple(c), limits=limits) for n, c in zip(names, commands, strict=True)]


def reference_entry(
    command: str | None, estimator: str, limits: Limits, deals: str = Deals.PLAIN
) -> tuple[str, MatchBot] | None:
    """The baseline's reference bot (its command line and its entry, named ``reference``) when the verdict
    is taken from ``baseline``: ``command``, or the sample strength bot; None otherwise. A reference named
    with another estimator, an empty command line, or the baseline on tilted deals ends the command (exit 2)."""
    if estimator != Estimator.BASELINE:
        if command is not None:
            fail("--baseline-bot names the reference bot of --estimator baseline, which is not chosen")
        return None
    try:
        check_baseline_deals(deals)
    except ValueError as error:
        fail(str(error))
    if command is None:
        spec = find_spec("sample_bots.python.strength_bot")  # shipped with the package (a namespace package)
        assert spec is not None and spec.origin is not None
        command = shlex.join([sys.executable, spec.origin])
    argv = split_command(command)
    if not argv:
        fail("--baseline-bot: the reference bot's command line is empty")
    return command, MatchBot(REFERENCE, tuple(argv), limits=limits)


def check_hands(hands: int, tables: int, field: list[str], *, baseline: bool) -> None:
    """``--hands`` must make at least two paired deals; else the command ends (exit 2)."""
    try:
        deal_sets_for(hands, tables, field, baseline)
    except ValueError as error:
        fail(f"--hands: {error}")
