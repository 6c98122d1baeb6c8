"""A match's roster: its bots' instances (seats), their sessions and processes, and the fault policy.

Each instance of a bot (``MatchPlan.instances``) is a seat here, with its own token, process,
scratch folder ``scratch/<bot>.<k>`` and log ``logs/<bot>.<k>.log``; a bot's time bank is shared
by its instances. A seat's process is started by the launch factory of its bot's protocol (gRPC,
stdio, ACPC), and must connect within the start-up time. The fault policy: three timeouts in a
row, a disconnect or a crash fail a seat; under ``fold`` it then checks or folds unasked, under
``forfeit`` the match stops after the hands in play, under ``restart`` its process is started
again before its next hand (every table waiting on it waits for that one restart). One reason per
event: a lost connection whose process then turns out to have crashed is counted as that crash.
The tables (``dealer.league.table``) ask the roster to see to a seat; they never launch a process.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dealer.connect import stdio
from dealer.connect.acpc import AcpcBot
from dealer.connect.server import DealerServer
from dealer.connect.session import BotSession
from dealer.connect.wire import DISQUALIFIED
from dealer.isolation.processes import BotProcess, sweep_cgroups
from dealer.league.plan import MatchBot, MatchPlan
from dealer.stats.faults import Fault
from dealer.stats.records import MatchResult

STRIKES = 3  # consecutive timeouts after which a bot is treated as failed
NOT_GRPC = "it never connected over gRPC; a stdio bot's command starts with `stdio:`"
LOGGER = logging.getLogger(__name__)


@dataclass(eq=False, slots=True)
class Bank:
    """What is left of a bot's time bank for the whole match, shared by its instances."""

    ms: int


@dataclass(eq=False, slots=True)
class Seat:
    """An instance of a bot in this match: its session, its process, and whether it still decides."""

    entry: MatchBot
    label: str
    session: BotSession
    bank: Bank
    process: BotProcess | AcpcBot | None = None
    failed: bool = False
    strikes: int = 0
    restarts: int = 0
    match_starts: list[bytes] = field(default_factory=list)  # framed MatchStart items, resent on restart
    counted: BotProcess | AcpcBot | None = None  # the process whose end was already counted as a fault
    socket: str | None = None  # the dealer's Unix socket of this instance's current process, if it has one
    disconnects: int = 0  # disconnects counted before the current process started


Launcher = Callable[[Seat, Path], Awaitable[BotProcess | AcpcBot]]  # a seat and its log -> its started process


class Roster:
    """The seats of one match: launched (or waited for), seen to between hands, stopped at its end."""

    def __init__(
        self,
        plan: MatchPlan,
        server: DealerServer,
        bots: Mapping[str, MatchBot],
        result: MatchResult,
        *,
        out: Path,
        base: Path,
        sessions: Mapping[str, BotSession] | None,
        stop_unstarted: bool,
        stopped: Callable[[], bool],
        halt: Callable[[], None],
    ) -> None:
        """``sessions``: remote bots' sessions by instance label, that outlive the match; ``stopped``
        says whether the match is stopping (no restarts then); ``halt`` stops it (a forfeit, or with
        ``stop_unstarted`` a bot whose first launch never connects). ValueError if a bot's fixed
        token would serve more than one instance."""
        self.plan = plan
        self.server = server
        self.entries = bots
        self.result = result
        self.kept = dict(sessions or {})
        self.out = out
        self.base = base
        self.seats: dict[str, Seat] = {}  # by instance label
        self.labels = plan.instance_labels()
        self.instances: dict[str, str] = {}  # instance label -> bot name, in the order first seated
        for spec, labels in zip(plan.tables, self.labels, strict=True):
            self.instances.update(zip(labels, spec.seats, strict=True))
        for name, entry in bots.items():
            unkept = [label for label, bot in self.instances.items() if bot == name and label not in self.kept]
            if entry.token is not None and len(unkept) > 1:
                raise ValueError(
                    f"bot {name!r} has one fixed token for {len(unkept)} instances (sealed "
                    "rotations): give each instance its own session"
                )
        self.stop_unstarted = stop_unstarted
        self._stopped = stopped
        self._halt = halt
        self._restart_locks: dict[str, asyncio.Lock] = {}
        self._kept_faults = {label: collections.Counter(session.faults) for label, session in self.kept.items()}
        self._tails: dict[str, dict[str, list[str]]] = collections.defaultdict(dict)  # bot -> label -> log tails
        self._launchers: dict[str, Launcher] = {
            "grpc": self._launch_grpc,
            "stdio": self._launch_stdio,
            "acpc": self._launch_acpc,
        }

    def table_seats(self, index: int) -> list[Seat]:
        """The seats of the plan's table ``index``, by table seat."""
        return [self.seats[label] for label in self.labels[index]]

    async def connect(self) -> None:
        """Seat every instance and start it (or wait for a remote one) until it connects or fails."""
        banks = {name: Bank(self.plan.game.time.bank_ms) for name in self.result.bots}
        await asyncio.gather(*(self._connect(label, name, banks[name]) for label, name in self.instances.items()))

    async def _connect(self, label: str, name: str, bank: Bank) -> None:
        entry = self.entries[name]
        session = self.kept.get(label) or self.server.session(name, entry.token)
        seat = self.seats[label] = Seat(entry, label, session, bank)
        self._restart_locks[label] = asyncio.Lock()
        await self._launch(seat)

    async def _launch(self, seat: Seat) -> None:
        """Start the bot (if launched) and wait for it to connect within the start-up limit."""
        entry, session = seat.entry, seat.session
        seat.disconnects = session.faults[Fault.DISCONNECT]
        if entry.command is not None:
            suffix = f".{seat.restarts}" if seat.restarts else ""
            try:
                seat.process = await self._launchers[entry.protocol](
                    seat, self.out / "logs" / f"{seat.label}{suffix}.log"
                )
            except OSError as error:
                await self._close_socket(seat)
                session.fault(Fault.START, f"match {self.plan.match_id}: {error}")
                self._keep_tail(seat, str(error))
                self._never_started(seat)
                return
            LOGGER.info("match %s: launched bot %s (pid %d)", self.plan.match_id, seat.label, seat.process.process.pid)
        await self._await_connection(seat)

    async def _launch_acpc(self, seat: Seat, log_path: Path) -> AcpcBot:
        """An ACPC bot: a client per table the instance plays (``dealer.connect.acpc``)."""
        assert seat.entry.command is not None
        return await AcpcBot.launch(
            seat.label,
            seat.entry.command,
            session=seat.session,
            game=self.plan.game,
            base=self.base,
            tables=sum(seat.label in labels for labels in self.labels),
            players=len(self.plan.tables[0].seats),
            game_file=self.out / "match.game",  # the dealer's, bound read-only into the sandbox
            workdir=self.out / "scratch" / seat.label,
            log_path=log_path,
            limits=seat.entry.limits,
            startup_s=self.plan.game.time.startup_ms / 1000,
        )

    async def _launch_grpc(self, seat: Seat, log_path: Path) -> BotProcess:
        """A gRPC bot: it dials the dealer, sealed in its sandbox through a Unix socket of its own."""
        limits = seat.entry.limits
        sealed_in = limits.sandbox == "on" and limits.network == "none"
        seat.socket = await self.server.instance_socket(seat.label) if sealed_in else None
        return await self._launch_process(seat, log_path, stdio=False)

    async def _launch_stdio(self, seat: Seat, log_path: Path) -> BotProcess:
        """A stdio bot: JSON lines over its pipes (``dealer.connect.stdio``), served for as long as it runs."""
        seat.socket = None
        process = await self._launch_process(seat, log_path, stdio=True)
        process.attach(stdio.serve(seat.session, *process.pipes))
        return process

    async def _launch_process(self, seat: Seat, log_path: Path, *, stdio: bool) -> BotProcess:
        assert seat.entry.command is not None
        return await BotProcess.launch(
            seat.label,
            seat.entry.command,
            address=self.server.address,
            token=seat.session.token,
            base=self.base,
            workdir=self.out / "scratch" / seat.label,
            log_path=log_path,
            limits=seat.entry.limits,
            local_address=seat.socket or self.server.local_address,
            stdio=stdio,
        )

    async def _await_connection(self, seat: Seat) -> None:
        """Wait for the seat's bot to connect within the start-up limit; count why it did not."""
        session, match_id = seat.session, self.plan.match_id
        exited = asyncio.ensure_future(seat.process.wait_exit(float("inf"))) if seat.process else None
        connected = asyncio.ensure_future(session.connected.wait())
        charged = session.faults.total()
        waiting = {connected} | ({exited} if exited else set())
        done, _ = await asyncio.wait(
            waiting, timeout=self.plan.game.time.startup_ms / 1000, return_when=asyncio.FIRST_COMPLETED
        )
        for task in waiting:
            task.cancel()
        if connected in done:
            return
        process = seat.process
        if session.faults.total() > charged:
            pass  # its own stream was refused (a token already connected, a protocol version): counted
        elif exited in done and process is not None:
            await process.log_complete()
            if process.out_of_cpu():
                session.fault(Fault.CPU, f"match {match_id}: out of CPU time before connecting")
            elif process.out_of_memory():
                session.fault(Fault.MEMORY, f"match {match_id}: out of memory before connecting")
            elif process.crashed:
                session.fault(
                    Fault.CRASH, f"match {match_id}: exited with status {process.returncode} before connecting"
                )
            else:
                session.fault(Fault.NO_CONNECT, f"match {match_id}: exited before connecting")
        else:
            session.fault(
                Fault.NO_CONNECT, f"match {match_id}: no connection within {self.plan.game.time.startup_ms} ms"
            )
        if seat.entry.protocol == "grpc" and process is not None and _speaks_no_grpc(process.log_tail()):
            self.result.start_hints.setdefault(seat.entry.name, NOT_GRPC)
        seat.counted = process
        self._never_started(seat)

    def _died_starting(self, seat: Seat) -> bool:
        """The one rule, for every protocol, of a launch that started and then died at once: its
        connection ended before its bot answered a first request. A stdio bot is connected as
        soon as its process runs, and an ACPC or gRPC bot may connect and then fail on its first
        message: whichever, its command is broken, as when it never connected."""
        session = seat.session
        return seat.entry.command is not None and seat.restarts == 0 and not session.live and session.answers == 0

    def _never_started(self, seat: Seat) -> None:
        """Fail a bot whose launch did not connect; its first launch is noted (a broken command)."""
        if seat.restarts == 0 and seat.entry.name not in self.result.unstarted:  # once, whichever instance
            self.result.unstarted.append(seat.entry.name)
            if self.stop_unstarted:
                self._halt()
        self.fail(seat)

    async def _count_crash(self, seat: Seat, *, stopped: bool = False) -> None:
        """Count a crash once per process: one that exited by itself with a failure status (reason
        "memory" when its log ends with an allocation failure: it hit its memory limit). With
        ``stopped`` (the dealer had to stop it after it dropped its connection), one whose log ends
        so counts as "memory" too: a runtime can hang instead of exiting after such a failure."""
        process = seat.process
        if process is None or seat.counted is process or not (process.crashed or (stopped and process.killed)):
            return
        await process.log_complete()
        out_of_memory = process.out_of_memory()
        if process.crashed or out_of_memory:
            seat.counted = process
            session = seat.session
            detail = f"match {self.plan.match_id}: exit status {process.returncode}"
            if session.faults[Fault.DISCONNECT] > seat.disconnects:  # its lost stream was this crash
                session.uncount(Fault.DISCONNECT)
                detail += " (its lost stream is counted as this, no longer as a disconnect)"
            reason = Fault.CPU if process.out_of_cpu() else Fault.MEMORY if out_of_memory else Fault.CRASH
            session.fault(reason, detail)

    def fail(self, seat: Seat) -> None:
        """Apply the fault policy to a bot that can no longer play (once per failure)."""
        if seat.failed:
            return
        seat.failed = True
        LOGGER.warning(
            "match %s: bot %s disqualified (fault policy %s)", self.plan.match_id, seat.label, self.plan.fault_policy
        )
        seat.session.notice(DISQUALIFIED, "no longer deciding in this match")
        if self.plan.fault_policy == "forfeit" and seat.entry.name not in self.result.forfeited:
            self.result.forfeited.append(seat.entry.name)
            self._halt()

    async def before_hand(self, seat: Seat, table: int) -> None:
        """Notice a lost connection; under ``restart``, start the bot again. Tables that find
        the seat in need meanwhile wait for the same restart (they never start another)."""
        restarts = seat.restarts
        async with self._restart_locks[seat.label]:
            if seat.restarts != restarts:
                return  # restarted while this table waited: the new process is its answer
            if not seat.session.live:
                await self._count_crash(seat)  # also when it was already failed by a disconnect mid-hand
                if self._died_starting(seat):
                    self._never_started(seat)
                self.fail(seat)
            if seat.failed and self.plan.fault_policy == "restart" and not self._stopped():
                if seat.process is not None:
                    await seat.process.stop(grace_s=0.2)
                    await self._count_crash(seat)
                await self._close_socket(seat)
                seat.restarts += 1
                LOGGER.warning(
                    "match %s: restarting bot %s before its next hand on table %d (restart %d)",
                    self.plan.match_id,
                    seat.label,
                    table,
                    seat.restarts,
                )
                seat.failed, seat.strikes = False, 0
                await self._launch(seat)
                for start in seat.match_starts:  # the new process joins the tables in progress
                    seat.session.send_framed(start)

    async def shutdown(self) -> None:
        """Say goodbye, stop every process, close the match's sessions and sum each bot's faults
        (a launch that died before its first answer, with no hand after it, is noted unstarted here)."""
        for label, seat in self.seats.items():
            if self._died_starting(seat) and seat.entry.name not in self.result.unstarted:
                self.result.unstarted.append(seat.entry.name)
            if label not in self.kept:
                seat.session.goodbye("match over")
        await asyncio.gather(*(self._stop(seat) for seat in self.seats.values()))
        await sweep_cgroups()
        faults: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in self.result.bots}
        for label, seat in self.seats.items():
            if label in self.kept:
                faults[seat.entry.name].update(seat.session.faults - self._kept_faults[label])
            else:
                self.server.close_session(seat.session)
                faults[seat.entry.name].update(seat.session.faults)
        for name in self.result.bots:  # summed over the bot's instances
            self.result.faults[name] = {reason: count for reason, count in faults[name].items() if count}

    async def _close_socket(self, seat: Seat) -> None:
        """Stop serving the instance's own socket (its process has stopped, or never started)."""
        if seat.socket is not None:
            await self.server.close_instance_socket(seat.socket)
            seat.socket = None

    async def _stop(self, seat: Seat) -> None:
        if seat.process is None:
            await self._close_socket(seat)
            return
        code = await seat.process.stop()
        await self._close_socket(seat)
        LOGGER.info(
            "match %s: stopped bot %s (exit status %s%s)",
            self.plan.match_id,
            seat.label,
            code,
            ", killed" if seat.process.killed else "",
        )
        if seat.session.faults[Fault.DISCONNECT] > seat.disconnects:
            await self._count_crash(seat, stopped=True)
        if seat.session.faults:
            self._keep_tail(seat, seat.process.log_tail())

    def _keep_tail(self, seat: Seat, text: str) -> None:
        """Keep what an instance that failed left in its log, by bot name: its instances in the order
        they were seated (not the order they failed in, which is timing), each under a line with its
        label, an instance's failures in the order they came."""
        name = seat.entry.name
        self._tails[name].setdefault(seat.label, []).append(f"[{seat.label}]\n{text}")
        by_label = self._tails[name]
        parts = [part for label in self.instances if label in by_label for part in by_label[label]]
        self.result.log_tails[name] = "\n".join(parts)


def _speaks_no_grpc(log_text: str) -> bool:
    """Whether a gRPC bot that never connected looks like a stdio bot: it wrote nothing (a stdio bot
    waits for its first line, and its input is empty here), or a JSON line (its output is its log)."""
    lines = [line.strip() for line in log_text.splitlines() if line.strip()]
    return not lines or any(line.startswith("{") for line in lines)
