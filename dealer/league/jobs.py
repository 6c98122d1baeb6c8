"""A match as a job, and where jobs are played: the one ``MatchJob`` and ``Executor`` that a league
(``dealer.league.run``) and the arena's ladder both use, so that neither imports the other's runner."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Protocol

from dealer.errors import RunError
from dealer.league.match import MatchBot, MatchPlan
from dealer.stats.paired import Pairing
from dealer.stats.records import MatchResult


@dataclasses.dataclass(frozen=True)
class MatchJob:
    """One match, complete enough to run anywhere: plan, bots, output folder, base folder; a compare
    event's match also pairs its hands (``pairing``: looks placed as for the whole event)."""

    event: str
    plan: MatchPlan
    bots: dict[str, MatchBot]
    out: Path
    base: Path
    pairing: Pairing | None = None


class Executor(Protocol):
    """Runs whole matches (``dealer.league.runner.LocalExecutor``, ``dealer.league.cluster.DaskExecutor``);
    the scheduler and the match code never see how."""

    async def run(self, job: MatchJob) -> MatchResult:
        """Play one match and return its result."""
        ...


class PlayLostError(RunError):
    """An executor lost the matches it had in play (a worker process died): a dealer failure, charged
    to no bot; nothing of those matches is recorded, and a league stops with what it has finished kept."""
