"""In-process bots of known strength for ladder tests and benchmarks: real matches (``dealer.league.match``,
the engine, the wire, the clocks, sealed duplicate), but each bot's requests are answered in this
process, so a match of a hundred hands costs milliseconds instead of the seconds a bot process takes.

Bot ``k`` of a field of ``n`` plays check/call, except that in the small blind it folds the weakest
``k / n`` of its starting hands (a fixed ranking of the 1,326): folding costs half a big blind where
a limp, checked down, is worth more, so bot 0 is the strongest and each next one weaker; duplicate
deals cancel the cards' luck, which leaves the order to the matches.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path

from dealer.connect.server import BotSession, DealerServer
from dealer.league.jobs import MatchJob
from dealer.league.match import Match, MatchBot
from dealer.stats.records import MatchResult
from poker.v1 import dealer_pb2 as pb

RANKS = "23456789TJQKA"
Strategy = Callable[[pb.ActionRequest], int | None]  # the ActionType to answer (None: hang up)


def _score(cards: tuple[str, str]) -> tuple[int, int, int, int]:
    """A starting hand's strength for the ranking: pair, high card, low card, suited."""
    high, low = sorted((RANKS.index(c[0]) for c in cards), reverse=True)
    return (int(high == low), high, low, int(cards[0][1] == cards[1][1]))


_ALL = sorted(_score(pair) for pair in itertools.combinations([r + s for r in RANKS for s in "cdhs"], 2))


def folder(share: float) -> Strategy:
    """Check/call, but fold the weakest ``share`` of starting hands in the small blind."""
    threshold = _ALL[min(int(share * len(_ALL)), len(_ALL) - 1)] if share > 0 else None

    def act(request: pb.ActionRequest) -> int:
        if (
            threshold is not None
            and request.can_fold
            and not request.board
            and request.seat == request.button
            and _score((request.hole_cards[0], request.hole_cards[1])) < threshold
        ):
            return pb.ACTION_TYPE_FOLD
        return pb.ACTION_TYPE_CHECK_CALL

    return act


def hang_up(_request: pb.ActionRequest) -> None:
    """A bot that drops its connection at its first decision (as a crash does)."""
    return None


def field(n: int) -> dict[str, Strategy]:
    """``n`` bots ``t00``.. of known order, the strongest first."""
    return {f"t{k:02d}": folder(k / n) for k in range(n)}


async def _answer(session: BotSession, owner: object, strategy: Strategy) -> None:
    """Stand in for a bot and its stream: take each batch, answer its requests by ``strategy``."""
    loop = asyncio.get_running_loop()
    while session.live:
        await session.link._wake.wait()
        if not session.live:
            return
        batch = session.link._take_batch(loop.time())
        replies = []
        for item in pb.DealerMessage.FromString(batch).items:
            if item.HasField("request"):
                kind = strategy(item.request)
                if kind is None:  # the bot hangs up: a disconnect
                    session.link.close(owner, "the in-process bot hung up")
                    return
                replies.append(pb.ActionReply(table=item.table, request_id=item.request.request_id, type=kind))
        if replies:
            session.link._receive(pb.BotMessage(actions=replies))


class InProcessExecutor:
    """Plays ladder jobs with in-process bots: a bot ``team-vN`` plays ``strategies[team]``."""

    def __init__(self, server: DealerServer, strategies: dict[str, Strategy], jobs: int = 4) -> None:
        self.server = server
        self.strategies = strategies
        self.slots = asyncio.Semaphore(jobs)
        self.played = 0

    async def run(self, job: MatchJob) -> MatchResult:
        """Play the job's match; its bots answer here."""
        async with self.slots:
            labels = {label for table in job.plan.instance_labels() for label in table}
            sessions = {label: self.server.session(label) for label in labels}
            owners = {label: object() for label in sessions}
            for label, session in sessions.items():
                session.link._attach(owners[label], "in-process")
            pumps = [
                asyncio.create_task(_answer(s, owners[label], self.strategies[label.rsplit("-v", 1)[0]]))
                for label, s in sessions.items()
            ]
            try:
                bots = {name: MatchBot(name) for name in job.bots}  # no command: they "dial in" here
                match = Match(job.plan, self.server, bots, out=job.out, base=Path(job.base), sessions=sessions)
                result = await match.run()
            finally:
                for session in sessions.values():
                    if session.live:
                        session.link._detach()
                    session.link._wake.set()
                    self.server.close_session(session)
                await asyncio.gather(*pumps)
            self.played += 1
            return result
