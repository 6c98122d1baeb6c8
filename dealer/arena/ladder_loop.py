"""The ladder that runs itself: ``jobs`` matches in flight among the teams' active versions, forever.

Ranked matches are numbered (``seq``) as they are picked, and their results applied strictly in
that order, whatever order they finish in (``ladder.InOrder``). Match ``seq`` is picked from the
ratings after match ``seq - ahead`` was applied (``LadderSettings.ahead``): so the same seed and
the same submissions pick the same matches and give the same ratings, on any executor and with
any timing. Picking runs ahead of playing (at most ``ahead`` ranked matches picked and not yet
applied, at most ``jobs`` playing), so a slow match holds up the ratings, not the executor.

Once the arena is frozen for its finals (``dealer arena freeze``) no ranked match is picked: those
picked before are played and applied, and the standings then stay as they are (scrimmages go on,
unranked). Nothing is lost to a stop: a match is recorded when picked, marked when started, its result kept
when it finishes (once: a second result of one match is ignored) and applied in one transaction
with everything it changes. A server killed and started again applies the results it kept, and
plays again each match that was cut off (dealt afresh: ``MatchPlan.attempt``). While the database
cannot be reached the ladder says so in one line, starts nothing, keeps the results of the
matches in play, and takes up again once the database answers.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import shutil
from collections import deque
from typing import Any

from sqlalchemy.exc import DBAPIError

from dealer.arena.config import ArenaConfig
from dealer.arena.ladder import InOrder, apply_match, deal_for, match_rng, pairs_of, pick
from dealer.arena.layout import drop_scratch, match_folder, run_command
from dealer.arena.model import MatchState
from dealer.arena.store.ladder import LadderStore, Planned
from dealer.config.choices import BotProtocol, FaultPolicy
from dealer.engine.scheduler import Seating, duplicate_rotations
from dealer.league.jobs import Executor, MatchJob
from dealer.league.match import MatchBot, MatchPlan
from dealer.stats.records import MatchResult

LOGGER = logging.getLogger(__name__)
RETRY_S = 1.0  # how often an unreachable database is tried again
POLL_S = 1.0  # how often the ladder looks for new versions when it has nothing to wait for
DOWN = (DBAPIError, OSError)  # the database cannot be reached (or dropped the connection)


def match_job(planned: Planned, config: ArenaConfig, seed: str) -> MatchJob:
    """The job of a picked match: a sealed duplicate match, one version per team, each seat
    rotation on the match's deal set (a ranked match's ``ladder/<d>`` of the ladder's seed, a
    scrimmage's own from its own seed)."""
    names = tuple(seat.name for seat in planned.seats)
    ranked = planned.seq is not None
    deal_set = f"ladder/{planned.deal}" if ranked else f"scrimmage/{planned.id}"
    plan = MatchPlan(
        match_id=f"m{planned.id}",
        tables=tuple(Seating(seats, deal_set, r) for r, seats in enumerate(duplicate_rotations(names))),
        game=config.game,
        hands=config.ladder.hands,
        seed=seed if ranked else planned.seed,
        fault_policy=FaultPolicy.FORFEIT,
        sealed=True,
        attempt=planned.attempt,
    )
    bots = {}
    for seat in planned.seats:
        version = seat.version
        command = run_command(config.storage, version, seat.team)
        limits = config.limits_for(version.team_id)
        bots[seat.name] = MatchBot(seat.name, command, limits=limits, protocol=BotProtocol(version.protocol))
    out = match_folder(config.storage, planned.id)
    return MatchJob("ladder", plan, bots, out, config.storage)


class Ladder:
    """The ladder's loop over one store and one executor (``run`` forever)."""

    def __init__(self, store: LadderStore, config: ArenaConfig) -> None:
        self.store = store
        self.config = config
        self.settings = config.ladder
        self.executor: Executor | None = None
        self.seed = ""
        self.order = InOrder()
        self.next_seq = 0  # the next ranked match to pick
        self.next_deal: dict[int, int] = {}
        self.met: collections.Counter[tuple[int, int]] = collections.Counter()  # ranked matches picked, by pair
        self.ranked: dict[int, Planned] = {}  # picked, not applied, by seq
        self.queue: deque[Planned] = deque()  # picked, not started (ranked in order)
        self.scrimmages: deque[Planned] = deque()  # asked for, not started
        self.running: dict[asyncio.Task[MatchResult], Planned] = {}
        self.unsaved: list[tuple[Planned, MatchResult]] = []  # finished while the database was away
        self.wake = asyncio.Event()
        self.down = False
        self.loaded = False
        self.frozen = False  # the arena was frozen: said once, no ranked match picked since

    def requested(self, planned: Planned) -> None:
        """A scrimmage the API recorded: play it when a slot is free."""
        self.scrimmages.append(planned)
        self.wake.set()

    async def load(self) -> None:
        """Take up what the database holds: the matches picked and not over (the cut off ones to
        play again, dealt afresh), the results kept and not applied, the teams' next deal sets."""
        playing = {p.id for p in self.running.values()}
        self.order = InOrder(await self.store.applied_count())
        self.next_seq = await self.store.next_seq()
        self.next_deal = await self.store.next_deals()
        self.met = collections.Counter(await self.store.meetings())
        self.ranked, self.queue, self.scrimmages = {}, deque(), deque()
        for planned in await self.store.open_matches():
            if planned.seq is not None:
                self.ranked[planned.seq] = planned
                if planned.state is MatchState.FINISHED:
                    self.order.add(planned.seq, planned.result)
            if planned.id in playing or planned.state is MatchState.FINISHED:
                continue
            if planned.state is MatchState.RUNNING:
                planned = planned.again()
            (self.queue if planned.seq is not None else self.scrimmages).append(planned)
        if self.queue or self.scrimmages or self.order.waiting:
            LOGGER.info(
                "ladder: taking up %d matches to play (%d cut off by a stop, played again dealt afresh) "
                "and %d results to apply",
                len(self.queue) + len(self.scrimmages),
                sum(1 for p in (*self.queue, *self.scrimmages) if p.attempt),
                len(self.order.waiting),
            )
        self.loaded = True

    async def run(self, executor: Executor, seed: str) -> None:
        """Play the ladder forever on ``executor``, its deal sets from ``seed`` (cancel the task to
        stop it; the matches in play are cut off)."""
        self.executor, self.seed = executor, seed
        try:
            while True:
                try:
                    await self.step()
                    if self.down:
                        LOGGER.warning("the database answers again: the ladder goes on")
                        self.down = False
                except DOWN as error:
                    if not self.down:
                        reason = str(getattr(error, "orig", None) or error).strip().splitlines() or [repr(error)]
                        LOGGER.error("the database cannot be reached (%s): the ladder waits for it", reason[0])
                        self.down = True
                    self.loaded = False
                await self.wait(RETRY_S if self.down else POLL_S)
        finally:
            for task in self.running:
                task.cancel()
            if self.running:
                await asyncio.wait(set(self.running))
            for planned in self.running.values():  # cut off, or over and not yet kept: no bot plays on
                drop_scratch(match_folder(self.config.storage, planned.id))

    async def step(self) -> None:
        """Keep what finished, apply what comes next in order, pick ahead, start what slots allow."""
        if not self.loaded:
            await self.load()
        while self.unsaved:
            planned, result = self.unsaved[0]
            if await self.store.finished(planned.id, result) and planned.seq is not None:
                self.order.add(planned.seq, result)
            self.unsaved.pop(0)
        await self.apply_ready()
        await self.pick_ahead()
        while len(self.running) < max(1, self.settings.jobs) and (self.scrimmages or self.queue):
            planned = (self.scrimmages or self.queue).popleft()
            await self.store.started(planned.id, planned.attempt)
            out = match_folder(self.config.storage, planned.id)
            if out.exists():  # an attempt a stopped server cut off: played again from nothing
                shutil.rmtree(out)
            assert self.executor is not None, "run() gives the ladder its executor"
            task = asyncio.create_task(self.executor.run(match_job(planned, self.config, self.seed)))
            self.running[task] = planned

    async def apply_ready(self) -> None:
        """Apply the finished ranked matches that come next in order, one by one, picking after each."""
        while (item := self.order.first()) is not None:
            seq, result = item
            planned = self.ranked[seq]
            if result is None:
                applied = apply_match(MatchResult(f"m{planned.id}", ()), {}, self.settings.pause)
            else:
                before = await self.store.standings_of([s.version.id for s in planned.seats])
                names = {seat.name: before[seat.version.id] for seat in planned.seats}
                applied = apply_match(result, names, self.settings.pause)
            await self.store.apply(planned.id, seq, applied)
            for paused in applied.paused:
                LOGGER.warning("version %d %s", paused.version_id, (paused.paused or "").splitlines()[0])
            self.order.release()
            del self.ranked[seq]
            await self.pick_ahead()

    async def pick_ahead(self) -> None:
        """Pick ranked matches until ``ahead`` of them wait to be applied (or too few teams play);
        none once the arena is frozen: the ones picked before are played and applied, and the
        standings then stay as the finals found them."""
        if self.next_seq >= self.order.next_seq + self.settings.ahead or self.settings.jobs == 0:
            return
        if await self.store.frozen():
            if not self.frozen:
                LOGGER.warning(
                    "the arena is frozen: the ladder picks no more ranked matches (the %d picked are played "
                    "and applied, then the standings stay)",
                    len(self.ranked),
                )
                self.frozen = True
            return
        while self.next_seq < self.order.next_seq + self.settings.ahead:
            playing = await self.store.playing()
            picked = pick(
                playing, self.settings.matchmaking, match_rng(self.seed, self.next_seq), self.met, self.next_seq
            )
            if picked is None:
                return
            by_id = {s.version_id: s for s in playing}
            chosen = [by_id[v] for v in picked]
            deal = deal_for(self.next_deal, [s.team_id for s in chosen])
            planned = await self.store.schedule(self.next_seq, chosen, deal)
            for s in chosen:
                self.next_deal[s.team_id] = deal + 1
            self.met.update(pairs_of(picked))
            self.ranked[self.next_seq] = planned
            self.queue.append(planned)
            self.next_seq += 1

    async def wait(self, seconds: float) -> None:
        """Wait for a match to finish, a scrimmage to be asked for, or ``seconds``; keep what finished."""
        woken = asyncio.ensure_future(self.wake.wait())
        waits: set[asyncio.Future[Any]] = {woken, *self.running}
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
        self.wake.clear()
        for task in [t for t in self.running if t.done()]:
            planned = self.running.pop(task)
            self.unsaved.append((planned, task.result()))  # a dealer's error in the match is raised here
            await asyncio.to_thread(drop_scratch, match_folder(self.config.storage, planned.id))
