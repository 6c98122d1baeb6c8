"""One match on every core: a match's deal sets spread over worker processes, merged into one result.

``split`` cuts a plan into parts, each a run of whole deal sets (the tables of a duplicate group
are never parted: their hands are paired, and sealed rotations number their instances within a
deal set). A part keeps its tables' numbers (``MatchPlan.first_table``), so its histories are the
files one process would have written, and numbers its instances apart
(``MatchPlan.instance_offset``): its bots are processes of its own, with their own logs, scratch
folders and sockets, under the same limits, sandbox, clocks and fault policy. ``run_parts`` plays
each part in a worker process of a ``concurrent.futures.ProcessPoolExecutor`` (spawned: its own
interpreter, event loop, dealer server and bot instances) and returns the parts' results in the
plan's order, never the order they finished in; ``merged`` joins them. A tally is exact sums, so
the merged results are byte for byte those of one process on the same seed.

A bot's time bank is for the whole match: each part gets its share, in proportion to its tables.
A stop of one part (a forfeit; a bot that never started, with ``stop_unstarted``) or of the whole
(a comparison's verdict, ``Looks``) stops every part after its hands in play, through one event the
processes share. Each part counts its own processes' faults: a bot that crashes crashes once in
every part that runs it, so fault counts (not the hands' results) grow with the parts.
"""

from __future__ import annotations

import asyncio
import collections
import ctypes
import dataclasses
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from dealer.engine.scheduler import Seating
from dealer.league.jobs import PlayLostError
from dealer.league.plan import MatchBot, MatchPlan
from dealer.runtime import log_file, log_target, tune_gc
from dealer.stats.paired import PairedSums, PairedTally, Pairing, group_of
from dealer.stats.records import MatchResult, Tally

if TYPE_CHECKING:
    from multiprocessing.queues import Queue
    from multiprocessing.synchronize import Event

LOGGER = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
HANDS_PER_WORKER = 5000  # the fewest hands a match spreads over one more worker by default
STOP_LOOK_S = 0.02  # how often a worker looks at the shared stop event, at most
PROGRESS_EVERY_S = 0.2  # how often a part says how many hands it finished (the progress line)


def cores() -> int:
    """The cores this process may run on: the default number of a league's worker processes."""
    return len(os.sched_getaffinity(0))


def default_workers(hands: int) -> int:
    """A match's worker processes unless told: the cores, but no more than one per
    ``HANDS_PER_WORKER`` hands (a worker's start, an interpreter importing the dealer, costs about
    what a dealer deals in a second: a short match is quicker in one process)."""
    return max(1, min(cores(), hands // HANDS_PER_WORKER))


@dataclasses.dataclass(frozen=True)
class Part:
    """A part of a match, complete enough to play in another process: its plan (whole deal sets of
    the match), bots, output folder (the match's, shared by its parts), and what the match needs of
    it: a server address, ``stop_unstarted``, the pairing of a comparison's hands."""

    index: int
    plan: MatchPlan
    bots: dict[str, MatchBot]
    out: Path
    base: Path
    listen: str = "127.0.0.1:0"
    stop_unstarted: bool = False
    pairing: Pairing | None = None


def _deal_set_runs(tables: Sequence[Seating]) -> list[tuple[int, int]] | None:
    """The [start, end) table indexes of each deal set, in order; None if a deal set's tables are not
    side by side (then the plan is played whole)."""
    runs: list[tuple[int, int]] = []
    seen: set[str] = set()
    for index, table in enumerate(tables):
        group = group_of(table.deal_set)  # a twin deal set's tables go with their deal's (the baseline's)
        if runs and group_of(tables[runs[-1][0]].deal_set) == group:
            runs[-1] = (runs[-1][0], index + 1)
            continue
        if group in seen:
            return None
        seen.add(group)
        runs.append((index, index + 1))
    return runs


def split(plan: MatchPlan, parts: int) -> list[MatchPlan]:
    """The plan in at most ``parts`` parts of whole deal sets, as even as the deal sets allow, in the
    plan's order; ``[plan]`` when it cannot be parted (one deal set, or ``parts`` 1)."""
    runs = _deal_set_runs(plan.tables)
    count = min(parts, len(runs or ()))
    if runs is None or count <= 1:
        return [plan]
    stride = max(k for ks in plan.instances() for k in ks) + 1  # instances of a bot in one part, at most
    total, time_control = len(plan.tables), plan.game.time
    plans = []
    for p in range(count):
        chunk = runs[p * len(runs) // count : (p + 1) * len(runs) // count]
        start, end = chunk[0][0], chunk[-1][1]
        share = dataclasses.replace(time_control, bank_ms=time_control.bank_ms * (end - start) // total)
        plans.append(
            dataclasses.replace(
                plan,
                tables=plan.tables[start:end],
                game=dataclasses.replace(plan.game, time=share),
                first_table=plan.first_table + start,
                instance_offset=plan.instance_offset + p * stride,
            )
        )
    return plans


def merged(results: Sequence[MatchResult]) -> MatchResult:
    """One match's result from its parts' (in the plan's order): hands and sums added, faults summed
    by bot, the lists joined without repeats; what a bot's parts each say once (a start hint, refused
    strategies), the first part's."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    tally = Tally()
    faults: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    tails: dict[str, list[str]] = collections.defaultdict(list)
    for result in results:
        tally.merge(result.tally)
        for name, reasons in result.faults.items():
            faults[name].update(reasons)
        for name, text in result.log_tails.items():
            tails[name].append(text)
    bots = tuple(sorted({name for r in results for name in r.bots}))
    return MatchResult(
        first.match_id,
        bots,
        tally,
        faults={name: {k: v for k, v in faults[name].items() if v} for name in bots},
        forfeited=_joined(r.forfeited for r in results),
        places=[name for r in results for name in r.places],
        log_tails={name: "\n".join(parts) for name, parts in sorted(tails.items())},
        unstarted=_joined(r.unstarted for r in results),
        start_hints={k: v for r in reversed(results) for k, v in r.start_hints.items()},
        strategies_refused={k: v for r in reversed(results) for k, v in r.strategies_refused.items()},
        records=None if first.records is None else [h for r in results for h in r.records or ()],
        attempt=first.attempt,
    )


def _joined(lists: Iterable[Iterable[str]]) -> list[str]:
    """Names from lists in order, each once."""
    return list(dict.fromkeys(name for names in lists for name in names))


class Looks:
    """A comparison's looks over parts played apart: stretch ``k`` of the whole closes once every part
    has closed its own stretch ``k`` (its deal sets' groups of those hand numbers), as one process
    would have closed it; ``tally`` looks (its sequential test) and is the running estimate. A
    stretch is kept only until the whole's closes: memory that does not grow with the comparison."""

    def __init__(self, tally: PairedTally, parts: int) -> None:
        self.tally = tally
        self.stretches: list[collections.deque[PairedSums]] = [collections.deque() for _ in range(parts)]

    def add(self, part: int, stretch: PairedSums) -> None:
        """Part ``part`` closed its next stretch; close the whole's stretches now complete."""
        self.stretches[part].append(stretch)
        while not self.tally.stopped and all(self.stretches):
            whole = PairedSums(self.tally.pairing.estimator)
            for stretches in self.stretches:
                whole.merge(stretches.popleft())
            self.tally.close(whole)

    def leave(self, results: Sequence[MatchResult]) -> None:
        """The parts are over (``results``, in their order): what no stretch of the whole holds goes
        to the tally's ``rest``, the stretches some part never closed and each part's own rest."""
        for stretches, result in zip(self.stretches, results, strict=True):
            for stretch in stretches:
                self.tally.rest.merge(stretch)
            if result.paired is not None:
                self.tally.rest.merge(result.paired.rest)
            stretches.clear()


# --------------------------------------------------------------------------- in a worker process

_shared: dict[str, Any] = {}  # a worker's stop event and message queue, set as it starts (``_start``)


def _start(parent: int, stop: Event, messages: Queue[tuple[Any, ...] | None], log: tuple[Path, str] | None) -> None:
    """A worker process starts: it dies with its parent (then its bots' launchers end its bots: a
    killed dealer leaves no match playing on), keeps the shared stop event and queue, and logs
    where the parent logs, each line marked with its pid ("[worker N]")."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except AttributeError:  # not Linux
        pass
    if os.getppid() != parent:  # it died while this process started, before the death signal was set
        os._exit(1)
    tune_gc()
    _shared["stop"], _shared["messages"] = stop, messages
    if log is not None:  # the parent's log file; errors reach its console through the part's result
        log_file(*log, label=f"worker {os.getpid()}")
        logging.getLogger("dealer").propagate = False


def stopping() -> Event:
    """The event every part of the match shares: set, every part stops after its hands in play."""
    event: Event = _shared["stop"]
    return event


class Stopped:
    """Whether the shared event is set, looked at once every ``STOP_LOOK_S`` at most: a match asks
    after every hand, and the event's lock costs microseconds (a stop is heard at most that late)."""

    def __init__(self) -> None:
        self.event = stopping()
        self.seen = False
        self.next = 0.0  # when to look again

    def __call__(self) -> bool:
        now = time.monotonic()
        if not self.seen and now >= self.next:
            self.seen, self.next = self.event.is_set(), now + STOP_LOOK_S
        return self.seen


def send(message: tuple[Any, ...]) -> None:
    """Send the parent a message (``Pool.on_message`` hears it)."""
    messages: Queue[tuple[Any, ...]] = _shared["messages"]
    messages.put(message)


class Reporter:
    """What a part tells the parent as it plays: hands finished (now and then), and each stretch
    of a comparison's hands it closed."""

    def __init__(self, part: int, paired: PairedTally | None = None) -> None:
        self.part = part
        self.paired = paired
        self.hands = 0
        self.shown = time.monotonic()

    def __call__(self, *_: object) -> None:
        """A hand finished (its record is not read)."""
        self.hands += 1
        closed = self.paired is not None and bool(self.paired.checks)
        if closed or time.monotonic() - self.shown >= PROGRESS_EVERY_S:
            self.flush()

    def flush(self) -> None:
        """Send what is not sent yet."""
        if self.hands:
            send(("hands", self.part, self.hands))
            self.hands, self.shown = 0, time.monotonic()
        checks = self.paired.checks if self.paired is not None else []
        for stretch in checks:
            send(("stretch", self.part, stretch))
        checks.clear()  # sent: the parent keeps them (``Looks``), this part need not


# --------------------------------------------------------------------------- in the parent


class WorkerDiedError(PlayLostError):
    """A worker process ended without a word (SIGKILL, the kernel's out-of-memory killer): every
    worker of its pool stops with it, so what they had in play is lost and not recorded."""


class Pool:
    """Worker processes (a spawned ``ProcessPoolExecutor``: no fork of a process with gRPC's threads)
    that play the parts of a match, or a league's whole matches, one at a time in each; they share
    one stop event (``stopping``) and send ``on_message`` what they report (``Reporter``, a league's
    hands). Use it as an async context manager: at its end it waits for its workers, without
    blocking the event loop, then for their last messages."""

    def __init__(self, processes: int, on_message: Callable[[tuple[Any, ...]], None] | None = None) -> None:
        self.processes = processes
        self.on_message = on_message
        context = multiprocessing.get_context("spawn")
        self.stop = context.Event()
        self.messages: Queue[tuple[Any, ...] | None] = context.Queue()
        self._executor = ProcessPoolExecutor(
            processes, context, _start, (os.getpid(), self.stop, self.messages, log_target())
        )
        self._reader: asyncio.Future[None] | None = None

    async def __aenter__(self) -> Pool:
        loop = asyncio.get_running_loop()

        def read() -> None:
            while (message := self.messages.get()) is not None:
                if self.on_message is not None:
                    loop.call_soon_threadsafe(self.on_message, message)

        self._reader = loop.run_in_executor(None, read)
        LOGGER.info("%d worker processes", self.processes)
        return self

    async def __aexit__(self, *_: object) -> None:
        self.stop.set()  # nothing is in play any more, unless the caller failed: then it stops
        await asyncio.get_running_loop().run_in_executor(None, self._executor.shutdown)
        self.messages.put(None)
        assert self._reader is not None
        await self._reader
        self.messages.close()

    async def run(self, play: Callable[[T], R], item: T, what: str) -> R:
        """``play(item)`` in a worker process, once one is free; ``what`` names the item in the
        ``WorkerDiedError`` error if a worker process dies under it."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, play, item)
        except BrokenProcessPool:
            LOGGER.error("a worker process died abruptly while playing %s: a dealer failure, charged to no bot", what)
            raise WorkerDiedError(
                f"a worker process died abruptly (killed from outside, or out of memory) while playing {what}: "
                "a dealer failure, charged to no bot"
            ) from None


async def run_parts(
    play: Callable[[Part], MatchResult],
    parts: Sequence[Part],
    *,
    on_hands: Callable[[int], None] | None = None,
    looks: Looks | None = None,
) -> list[MatchResult]:
    """Play each part with ``play`` in a worker process of its own; their results in the parts'
    order. ``on_hands`` hears how many hands finished now and then; ``looks`` gets each stretch a
    part closes, and its verdict stops every part. A part's error stops the others and is raised."""
    pool = Pool(len(parts))

    def handle(message: tuple[Any, ...]) -> None:
        kind, part, value = message
        if kind == "hands" and on_hands is not None:
            on_hands(value)
        elif kind == "stretch" and looks is not None:
            looks.add(part, value)
            if looks.tally.stopped:
                pool.stop.set()

    pool.on_message = handle
    async with pool:
        runs = [
            asyncio.ensure_future(pool.run(play, part, f"part {part.index + 1} of {len(parts)} of the match"))
            for part in parts
        ]
        try:
            return list(await asyncio.gather(*runs))
        except BaseException:
            pool.stop.set()  # the other parts stop after their hands in play
            await asyncio.gather(*runs, return_exceptions=True)
            raise
