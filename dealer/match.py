"""One match: bot sessions + the rules engine + the fault policy -> a match result.

A match launches (or waits for) its bots, plays one or more tables at once over the same bot
connections, and records every hand. Tables of a duplicate group share a ``deal_set`` and so the
same cards: hand ``h`` of a table is dealt from the deck keyed ``<seed>/<deal_set>/<h>`` (a
secret random key replaces the seed when none is given; ``dealer.seeds.deal_key``: a match played
again after a kill, ``MatchPlan.attempt``, is dealt afresh), with the button at seat ``h % n``.

Sealed rotations (the default): tables that share a deal set are never played by one bot
process. Each bot runs one *instance* per table it has in a deal set (``MatchPlan.instances``,
planned by ``dealer.scheduler.sealed_instances``); instance ``k`` plays the bot's ``k``-th table
of every deal set, with its own token, process, scratch folder ``scratch/<bot>.<k>`` and log
``logs/<bot>.<k>.log``. Hands, faults (summed over instances) and standings stay by bot name,
and a bot's time bank is shared by its instances, as it was by its tables.

Fault policy (what happens when a bot misbehaves; every event is counted by reason):

* timeout or an illegal answer: the dealer checks for the bot if it can, else folds; a fold
  when a check is free is taken as a check and is not a fault;
* three timeouts in a row, a disconnect or a crash: under ``fold`` (the default) the bot checks
  or folds without being asked for the rest of the match; under ``forfeit`` the match stops
  after the current hands and the bot is marked as forfeiting; under ``restart`` the bot's
  process is started again before its next hand (a remote bot may reconnect); every table
  waiting on it waits for that one restart.

One reason per event: a lost connection whose process then turns out to have crashed (or run
out of memory) is counted as that crash, not also as a disconnect; a bot is disqualified once
per failure. A failed bot still connected is sent only what it needs: no more hands of the
match, only its MatchEnd (and Goodbye). Errors of the dealer's own stop the match loudly.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import os
import secrets
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer import stdio, wire
from dealer.acpc import AcpcBot
from dealer.aivat import Decision, hand_luck, read_strategy
from dealer.cards import shuffled_deck
from dealer.equity import adjusted_net
from dealer.errors import DealerError, IllegalActionError
from dealer.faults import Fault
from dealer.history import PhhsWriter, phh_text
from dealer.plan import MatchBot, MatchPlan, instance_label
from dealer.processes import BotProcess, sweep_cgroups
from dealer.records import HandRecord, MatchResult, Tally
from dealer.rules import Acted, Hand, Legal, TableConfig, Variant
from dealer.scheduler import Seating
from dealer.seeds import deal_key
from dealer.server import DealerServer
from dealer.session import BotSession
from dealer.wire import BET_RAISE, CHECK_CALL, DISQUALIFIED, FOLD, Reply

STRIKES = 3  # consecutive timeouts after which a bot is treated as failed
log = logging.getLogger(__name__)

__all__ = [
    "STRIKES",
    "Match",
    "MatchBot",
    "MatchPlan",
    "instance_label",
]  # the plan's names, imported from here before dealer.plan


@dataclass(eq=False)
class _Bank:
    """What is left of a bot's time bank for the whole match, shared by its instances."""

    ms: int


@dataclass(eq=False)
class _Seat:
    """An instance of a bot in this match: its session, its process, and whether it still decides."""

    entry: MatchBot
    label: str
    session: BotSession
    bank: _Bank
    process: BotProcess | AcpcBot | None = None
    failed: bool = False
    strikes: int = 0
    restarts: int = 0
    match_starts: list[bytes] = field(default_factory=list)  # framed MatchStart items, resent on restart
    counted: BotProcess | AcpcBot | None = None  # the process whose end was already counted as a fault
    socket: str | None = None  # the dealer's Unix socket of this instance's current process, if it has one
    disconnects: int = 0  # disconnects counted before the current process started


@dataclass(eq=False)
class _Table:
    """A table's state over the match, and over the hand in play."""

    spec: Seating
    id: int
    seats: list[_Seat]
    stack: int
    chips: list[int] = field(init=False)  # by table seat, carried over between hands in freezeouts
    net: list[int] = field(init=False)  # by table seat, over the match
    history: PhhsWriter = field(init=False)  # its PHH file, written as hands end
    button: int = -1
    played: int = 0
    # the hand in play
    encoder: wire.HandWire = field(init=False)
    live: list[int] = field(default_factory=list)  # table seats dealt in, by engine seat
    decisions: dict[int, Decision] = field(default_factory=dict)  # known strategies by Acted record index
    over: asyncio.Future[list[_Seat]] = field(init=False)  # what stopped play: see ``Match._deal``

    def __post_init__(self) -> None:
        self.chips = [self.stack] * len(self.seats)
        self.net = [0] * len(self.seats)


class Match:
    """Plays a ``MatchPlan`` on a running ``DealerServer``; ``await Match(...).run()``."""

    def __init__(
        self,
        plan: MatchPlan,
        server: DealerServer,
        bots: Mapping[str, MatchBot],
        *,
        out: Path,
        base: Path,
        sessions: Mapping[str, BotSession] | None = None,
        on_hand: Callable[[str, str], None] | None = None,
        records: bool = False,
        stop_unstarted: bool = False,
    ) -> None:
        """``sessions`` are remote bots' sessions by instance label, that outlive the match (a
        league's ``serve``); ``on_hand(match_id, phh_text)`` sees each finished hand once it is safe
        to show (``_publish``); ``records`` keeps every hand's record in the result (memory that grows
        with the match: tests and analyses of a pool of deals); ``stop_unstarted``: a bot whose first
        launch never connects stops the match at once (``dealer match``: its command is broken)."""
        self.plan = plan
        self.server = server
        self.entries = bots
        self.kept = dict(sessions or {})
        self.out = out
        self.base = base
        self.seats: dict[str, _Seat] = {}  # by instance label
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
        self.secret = str(plan.seed) if plan.seed is not None else secrets.token_hex(16)
        self._deal_tables = collections.Counter(spec.deal_set for spec in plan.tables)  # tables per deal set
        self.result = MatchResult(
            plan.match_id,
            tuple(sorted({n for t in plan.tables for n in t.seats})),
            Tally(dict(self._deal_tables)),
            records=[] if records else None,
            attempt=plan.attempt,
        )
        self.stop = False
        self.stop_unstarted = stop_unstarted
        self._restart_locks: dict[str, asyncio.Lock] = {}
        self._histories: list[PhhsWriter] = []  # of the tables that started, in the match's private folder
        self._private: Path | None = None
        self._configs: dict[tuple[object, ...], TableConfig] = {}  # hands' configurations, made once
        self._kept_faults = {label: collections.Counter(session.faults) for label, session in self.kept.items()}
        self.on_hand = on_hand
        self._unshown: dict[str, dict[int, list[str]]] = collections.defaultdict(dict)  # deal set -> table id -> PHH
        self._trusted = set(plan.strategies) if plan.luck else set()  # bots whose strategies are used
        self._tails: dict[str, dict[str, list[str]]] = collections.defaultdict(dict)  # bot -> label -> log tails

    async def run(self) -> MatchResult:
        """Connect the bots, play every table, then say goodbye and stop every process.

        An error of the dealer's own (here or while serving a stream: ``server.failed``) stops
        the match and is raised, never charged to a bot."""
        self.out.mkdir(parents=True, exist_ok=True)
        plan = self.plan
        log.info(
            "match %s: %d tables, %d hands each, bots %s, fault policy %s",
            plan.match_id,
            len(plan.tables),
            plan.hands,
            ", ".join(self.result.bots),
            plan.fault_policy,
        )
        # Histories are streamed into a folder of the dealer's own (mode 0700) and moved into
        # ``hands/`` once the match is over: no bot reads a deal while another rotation of it is played.
        self._private = Path(tempfile.mkdtemp(prefix=".hands-", dir=self.out))
        play = asyncio.ensure_future(self._play())
        try:
            failed = self.server.failed
            waits: set[asyncio.Future[Any]] = {play} if failed is None else {play, failed}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if not play.done():
                assert failed is not None
                play.cancel()
                await asyncio.wait({play})
                raise RuntimeError(
                    f"match {plan.match_id} stopped: the dealer failed (see its log)"
                ) from failed.result()
            try:
                play.result()
            except DealerError as error:  # raised on purpose by the engine, but the match's input is checked
                raise RuntimeError(f"match {plan.match_id} stopped: the dealer failed") from error
        finally:
            if not play.done():
                play.cancel()
                await asyncio.wait({play})
            await self._shutdown()
            self._publish_histories()
            self.result.tally.close()
        log.info(
            "match %s over: %d hands, faults %s",
            plan.match_id,
            self.result.hands,
            {name: reasons for name, reasons in self.result.faults.items() if reasons} or "none",
        )
        return self.result

    async def _play(self) -> None:
        banks = {name: _Bank(self.plan.game.time.bank_ms) for name in self.result.bots}
        await asyncio.gather(*(self._connect(label, name, banks[name]) for label, name in self.instances.items()))
        await asyncio.gather(*(self._play_table(index, spec) for index, spec in enumerate(self.plan.tables)))

    def _publish_histories(self) -> None:
        """Move each started table's PHH file from the private folder into ``hands/``."""
        assert self._private is not None
        folder = self.out / "hands"
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # the deals of an event in progress: only the dealer's user may read them
        for history in self._histories:
            history.flush()
            os.replace(history.path, folder / history.path.name)
        self._private.rmdir()

    # ----------------------------------------------------------------- bots

    async def _connect(self, label: str, name: str, bank: _Bank) -> None:
        entry = self.entries[name]
        session = self.kept.get(label) or self.server.session(name, entry.token)
        seat = self.seats[label] = _Seat(entry, label, session, bank)
        self._restart_locks[label] = asyncio.Lock()
        await self._launch(seat)

    async def _launch(self, seat: _Seat) -> None:
        """Start the bot (if launched) and wait for it to connect within the start-up limit."""
        entry, session = seat.entry, seat.session
        seat.disconnects = session.faults[Fault.DISCONNECT]
        match_id = self.plan.match_id
        if entry.command is not None:
            suffix = f".{seat.restarts}" if seat.restarts else ""
            try:
                if entry.protocol == "acpc":  # a client per table the instance plays (dealer.acpc)
                    seat.process = await AcpcBot.launch(
                        seat.label,
                        entry.command,
                        session=session,
                        game=self.plan.game,
                        base=self.base,
                        tables=sum(seat.label in labels for labels in self.labels),
                        players=len(self.plan.tables[0].seats),
                        game_file=self.out / "match.game",  # the dealer's, bound read-only into the sandbox
                        workdir=self.out / "scratch" / seat.label,
                        log_path=self.out / "logs" / f"{seat.label}{suffix}.log",
                        limits=entry.limits,
                        startup_s=self.plan.game.time.startup_ms / 1000,
                    )
                else:
                    sealed_in = (
                        entry.protocol == "grpc" and entry.limits.sandbox == "on" and entry.limits.network == "none"
                    )
                    seat.socket = await self.server.instance_socket(seat.label) if sealed_in else None
                    seat.process = await BotProcess.launch(
                        seat.label,
                        entry.command,
                        address=self.server.address,
                        token=session.token,
                        base=self.base,
                        workdir=self.out / "scratch" / seat.label,
                        log_path=self.out / "logs" / f"{seat.label}{suffix}.log",
                        limits=entry.limits,
                        local_address=seat.socket or self.server.local_address,
                        stdio=entry.protocol == "stdio",
                    )
                    if entry.protocol == "stdio":
                        seat.process.attach(stdio.serve(session, *seat.process.pipes))
            except OSError as error:
                await self._close_socket(seat)
                session.fault(Fault.START, f"match {match_id}: {error}")
                self._keep_tail(seat, str(error))
                self._never_started(seat)
                return
            log.info("match %s: launched bot %s (pid %d)", match_id, seat.label, seat.process.process.pid)
        exited = asyncio.ensure_future(seat.process.wait_exit(float("inf"))) if seat.process else None
        connected = asyncio.ensure_future(session.connected.wait())
        charged = session.faults.total()
        waiting = {connected} | ({exited} if exited else set())
        done, _ = await asyncio.wait(
            waiting, timeout=self.plan.game.time.startup_ms / 1000, return_when=asyncio.FIRST_COMPLETED
        )
        for task in waiting:
            task.cancel()
        if connected not in done:
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
            seat.counted = process
            self._never_started(seat)

    def _never_started(self, seat: _Seat) -> None:
        """Fail a bot whose launch did not connect; its first launch is noted (a broken command)."""
        if seat.restarts == 0 and seat.entry.name not in self.result.unstarted:  # once, whichever instance
            self.result.unstarted.append(seat.entry.name)
            self.stop = self.stop or self.stop_unstarted
        self._fail(seat)

    async def _count_crash(self, seat: _Seat, *, stopped: bool = False) -> None:
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

    def _fail(self, seat: _Seat) -> None:
        """Apply the fault policy to a bot that can no longer play (once per failure)."""
        if seat.failed:
            return
        seat.failed = True
        log.warning(
            "match %s: bot %s disqualified (fault policy %s)", self.plan.match_id, seat.label, self.plan.fault_policy
        )
        seat.session.notice(DISQUALIFIED, "no longer deciding in this match")
        if self.plan.fault_policy == "forfeit" and seat.entry.name not in self.result.forfeited:
            self.result.forfeited.append(seat.entry.name)
            self.stop = True

    async def _before_hand(self, seat: _Seat, table: int) -> None:
        """Notice a lost connection; under ``restart``, start the bot again. Tables that find
        the seat in need meanwhile wait for the same restart (they never start another)."""
        restarts = seat.restarts
        async with self._restart_locks[seat.label]:
            if seat.restarts != restarts:
                return  # restarted while this table waited: the new process is its answer
            if not seat.session.live:
                await self._count_crash(seat)  # also when it was already failed by a disconnect mid-hand
                self._fail(seat)
            if seat.failed and self.plan.fault_policy == "restart" and not self.stop:
                if seat.process is not None:
                    await seat.process.stop(grace_s=0.2)
                    await self._count_crash(seat)
                await self._close_socket(seat)
                seat.restarts += 1
                log.warning(
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

    async def _shutdown(self) -> None:
        for label, seat in self.seats.items():
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

    async def _close_socket(self, seat: _Seat) -> None:
        """Stop serving the instance's own socket (its process has stopped, or never started)."""
        if seat.socket is not None:
            await self.server.close_instance_socket(seat.socket)
            seat.socket = None

    async def _stop(self, seat: _Seat) -> None:
        if seat.process is None:
            await self._close_socket(seat)
            return
        code = await seat.process.stop()
        await self._close_socket(seat)
        log.info(
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

    def _keep_tail(self, seat: _Seat, text: str) -> None:
        """Keep what an instance that failed left in its log, by bot name: its instances in the order
        they were seated (not the order they failed in, which is timing), each under a line with its
        label, an instance's failures in the order they came."""
        name = seat.entry.name
        self._tails[name].setdefault(seat.label, []).append(f"[{seat.label}]\n{text}")
        by_label = self._tails[name]
        parts = [part for label in self.instances if label in by_label for part in by_label[label]]
        self.result.log_tails[name] = "\n".join(parts)

    # ----------------------------------------------------------------- tables

    def _hand_config(self, number: int, stacks: tuple[int, ...], button: int) -> TableConfig:
        """The rules of hand ``number``: the variant's block in mixed games, the blind level in freezeouts."""
        game = self.plan.game
        small, big, ante = game.small_blind, game.big_blind, game.ante
        variant: str = game.variant
        if variant == "mixed":
            assert game.mixed is not None
            block = game.mixed.block_hands or len(stacks)
            limit_block = (number // block) % 2 == 0
            variant = "fixed-limit" if limit_block else "no-limit"
            small, big = game.mixed.fixed_limit_blinds if limit_block else game.mixed.no_limit_blinds
        if self.plan.mode == "freezeout" and self.plan.blind_levels:
            level = min(number // max(self.plan.hands_per_level, 1), len(self.plan.blind_levels) - 1)
            small, big, ante = self.plan.blind_levels[level]
        key = (stacks, button, small, big, ante, variant)
        config = self._configs.get(key)
        if config is None:  # the same few configurations come back hand after hand: validate each once
            if len(self._configs) >= 4096:
                self._configs.clear()
            self._configs[key] = config = TableConfig(
                stacks=stacks,
                button=button,
                small_blind=small,
                big_blind=big,
                variant=Variant(variant),
                ante=ante,
                rake_bps=round(game.rake_percent * 100),
                rake_cap=game.rake_cap or None,
            )
        return config

    async def _play_table(self, index: int, spec: Seating) -> None:
        """Play a table's hands: bot answers drive play (``_advance``), from hand to hand, and
        this task only sees to lost connections and restarts between hands."""
        seats = [self.seats[label] for label in self.labels[index]]
        table = _Table(spec, self.plan.first_table + index, seats, self.plan.game.stack)
        game = self.plan.game
        for s, seat in enumerate(table.seats):
            start = wire.match_start(
                table.id,
                self.plan.match_id,
                s,
                spec.seats,
                self.plan.hands,
                self.plan.mode,
                game.variant,
                game.stack,
                game.time.per_action_ms,
                game.time.bank_ms,
            )
            seat.match_starts.append(start)
            seat.session.send_framed(start)
        assert self._private is not None
        table.history = PhhsWriter(
            self._private / f"table-{table.id:03d}-{spec.deal_set.replace('/', '-')}-r{spec.rotation}.phhs"
        )
        self._histories.append(table.history)
        loop = asyncio.get_running_loop()
        waiting = self._deal(table)
        while waiting != []:
            if waiting is None:  # dealt: play on until the table is over or needs seeing to
                table.over = loop.create_future()
                self._advance(table)
                waiting = await table.over
            else:
                await asyncio.gather(*(self._before_hand(seat, table.id) for seat in waiting))
                waiting = self._deal(table, checked=True)
        n, chips = len(spec.seats), table.chips
        if self.plan.mode == "freezeout":
            standing = sorted((s for s in range(n) if chips[s] > 0), key=lambda s: -chips[s])
            self.result.places[:0] = [spec.seats[s] for s in standing]
        for seat in table.seats:
            seat.session.send_framed(wire.match_end(table.id, self.plan.match_id, table.net, table.played), flush=True)

    def _deal(self, table: _Table, *, checked: bool = False) -> list[_Seat] | None:
        """Deal the table's next hand and send its HandStarts; None once dealt. Otherwise what
        stops it: ``[]`` when the table is over, or (unless ``checked``) the seats to see to first
        (a lost connection, a restart)."""
        spec, seats, chips, number = table.spec, table.seats, table.chips, table.played
        n = len(seats)
        freezeout = self.plan.mode == "freezeout"
        live = [s for s in range(n) if chips[s] > 0] if freezeout else list(range(n))
        if self.stop or number >= self.plan.hands or len(live) < 2:
            return []
        if not checked:
            restart = self.plan.fault_policy == "restart"
            attention = [seats[s] for s in live if not seats[s].session.live or (restart and seats[s].failed)]
            if attention:
                return attention
        if freezeout:
            table.button = next(s for s in itertools.chain(range(table.button + 1, n), range(n)) if s in live)
        else:
            table.button = number % n
        config = self._hand_config(number, tuple(chips[s] for s in live), live.index(table.button))
        key = deal_key(self.secret, spec.deal_set, number, self.plan.attempt)
        hand = Hand(config, shuffled_deck(key, 2 * n + 8))
        table.live = live
        table.decisions = {}
        table.encoder = wire.HandWire(table.id, hand, number, live, n)
        for engine_seat, s in enumerate(live):
            if not seats[s].failed:  # a failed seat is sent no more hands
                seats[s].session.send_framed(table.encoder.hand_start(engine_seat))
        return None

    def _phh_fields(self, spec: Seating, table_id: int) -> dict[str, str | int]:
        """Our fields in a hand's PHH: what ``dealer verify`` re-deals it from, beside the seed, and
        the table's number (``MatchPlan.first_table``)."""
        fields: dict[str, str | int] = {
            "_match": self.plan.match_id,
            "_table": spec.deal_set,
            "_rotation": spec.rotation,
            "_table_id": table_id,
        }
        if self.plan.attempt:
            fields["_attempt"] = self.plan.attempt
        return fields

    def _advance(self, table: _Table, answer: tuple[Legal, _Seat, Reply | None] | None = None) -> None:
        """Apply ``answer`` (to the request asked of a seat: what was legal, the seat, its reply
        or None), publish new public events and play on, dealing hand after hand, until a bot
        must answer, the table is over or a seat needs seeing to (``_deal``).

        Runs synchronously, from the table's task and then from the answer (or its time running
        out) to each request: no task switch per decision or per hand. An error here ends the
        table's task with that error, never the bot's stream.
        """
        try:
            encoder, seats, live = table.encoder, table.seats, table.live
            hand = encoder.hand
            if answer is not None:
                legal, seat, reply = answer
                index, bet = len(hand.events), hand.bets[hand.actors[0]]
                self._apply(hand, legal, seat, reply)
                if reply is not None and seat.entry.name in self._trusted and reply.strategy:
                    self._note_strategy(table, seat, legal, bet, index, reply)
            while True:
                published = encoder.publish()
                if published:
                    for s in live:
                        seat = seats[s]
                        if not seat.failed:
                            seat.session.send_framed(published)
                actor = hand.actor
                if actor is None:
                    self._end_hand(table)
                    waiting = self._deal(table)
                    if waiting is not None:  # the table's task takes over
                        table.over.set_result(waiting)
                        return
                    encoder, live = table.encoder, table.live
                    hand = encoder.hand
                    continue
                legal = hand.legal()
                if legal.call == 0 and not legal.can_raise:
                    hand.check_call()  # the only legal action: no need to ask
                    continue
                seat = seats[live[actor]]
                if not seat.failed and seat.session.live:
                    self._ask(table, legal, seat)
                    return
                self._apply(hand, legal, seat, None)
        except BaseException as error:  # noqa: BLE001 - handed to the table's task, which raises it
            if not table.over.done():
                table.over.set_exception(error)

    def _ask(self, table: _Table, legal: Legal, seat: _Seat) -> None:
        """Send the actor its request; its answer (or the lack of one) continues the table in ``_advance``."""
        time = self.plan.game.time
        session = seat.session
        request_id = session.next_request_id()
        bank = seat.bank
        framed = table.encoder.request(request_id, legal, time.per_action_ms, bank.ms)
        allowance = (time.per_action_ms + bank.ms + time.grace_ms) / 1000
        free_s = (time.per_action_ms + time.grace_ms - 0.5) / 1000  # answers sooner never touch the bank

        def answered(reply: Reply | None, elapsed: float) -> None:
            if elapsed >= free_s:  # past the per-action limit: the bank pays
                used_ms = max(0, round(elapsed * 1000) - time.grace_ms)
                bank.ms = max(0, bank.ms - max(0, used_ms - time.per_action_ms))
            if reply is None:
                if session.live:
                    seat.strikes += 1
                    if not seat.failed:
                        session.notice(Fault.TIMEOUT, "no answer in time", request_id)
                if seat.strikes >= STRIKES or not session.live:
                    self._fail(seat)
            else:
                seat.strikes = 0
            self._advance(table, (legal, seat, reply))

        session.request(request_id, framed, allowance, answered, table=table.id)

    def _apply(self, hand: Hand, legal: Legal, seat: _Seat, reply: Reply | None) -> None:
        """Apply the bot's answer, or the policy's default (check, else fold) when it has none or
        its answer breaks the rules."""
        kind = None if reply is None else reply.action
        if kind == CHECK_CALL:
            hand.check_call()
            return
        if kind == BET_RAISE:
            assert reply is not None
            try:
                hand.raise_to(reply.amount)  # the engine owns the raise range and says why it refuses
                return
            except IllegalActionError as error:
                detail = str(error)
            seat.session.fault(Fault.ILLEGAL, detail, table=reply.table, request_id=reply.request_id)
            seat.session.notice(Fault.ILLEGAL, detail, reply.request_id)
        elif reply is not None and kind != FOLD:
            detail = f"unknown action type {kind}"
            seat.session.fault(Fault.ILLEGAL, detail, table=reply.table, request_id=reply.request_id)
            seat.session.notice(Fault.ILLEGAL, detail, reply.request_id)
        if legal.fold:
            hand.fold()
        else:
            hand.check_call()

    def _note_strategy(self, table: _Table, seat: _Seat, legal: Legal, bet: int, index: int, reply: Reply) -> None:
        """Keep the strategy a bot reported with its answer for the hand's decision terms
        (``dealer.aivat``); a strategy that cannot be used is logged and the bot's later ones ignored."""
        acted = table.encoder.hand.events[index]  # the record of the answer just applied
        assert isinstance(acted, Acted)
        got = read_strategy(reply.strategy, legal, bet, acted)
        if isinstance(got, str):
            name = seat.entry.name
            self._trusted.discard(name)
            self.result.strategies_refused[name] = got
            log.warning(
                "strategy of bot %s ignored from now on in match %s (table %d, request %d): %s; its "
                "decisions count as a black box's",
                name,
                self.plan.match_id,
                reply.table,
                reply.request_id,
                got,
            )
            return
        table.decisions[index] = got

    def _end_hand(self, table: _Table) -> None:
        """Settle a finished hand: chips, freezeout places, HandEnd to every seat, the record, the PHH."""
        hand, live, spec, n = table.encoder.hand, table.live, table.spec, len(table.seats)
        number = table.played  # hands are numbered from 0 in the order played
        stacks, final = hand.config.stacks, hand.final_stacks()
        net = [0] * n
        for engine_seat, s in enumerate(live):
            net[s] = final[engine_seat] - stacks[engine_seat]
            table.net[s] += net[s]
        if self.plan.mode == "freezeout":
            for engine_seat, s in enumerate(live):
                table.chips[s] = final[engine_seat]
            busted = sorted((s for s in live if table.chips[s] == 0), key=lambda s: -stacks[live.index(s)])
            self.result.places[:0] = [spec.seats[s] for s in busted]
        end = table.encoder.hand_end(net)
        for s in live:
            seat = table.seats[s]
            if not seat.failed:
                seat.session.send_framed(end)
        adjusted = adjusted_net(hand)
        luck, known = hand_luck(hand, table.decisions) if self.plan.luck else (None, None)
        table.played += 1
        text = phh_text(
            hand,
            names=[spec.seats[s] for s in live],
            hand_number=number,
            table_seats=live,
            seat_count=n,
            extra=self._phh_fields(spec, table.id),
        )
        table.history.add(text)
        if self.on_hand is not None:
            self._publish(spec.deal_set, table.id, text)
        self._record(
            HandRecord(
                table=table.id,
                deal_set=spec.deal_set,
                hand=number,
                big_blind=hand.config.big_blind,
                net={spec.seats[s]: net[s] for s in live},
                ev_net=None if adjusted is None else {spec.seats[s]: adjusted[k] for k, s in enumerate(live)},
                luck_net=None
                if luck is None
                else {spec.seats[s]: round(net[s] - luck[k], 2) for k, s in enumerate(live)},
                full_net=None
                if luck is None or known is None or not table.decisions
                else {spec.seats[s]: round(net[s] - luck[k] - known[k], 2) for k, s in enumerate(live)},
            )
        )

    def _publish(self, deal_set: str, table_id: int, text: str) -> None:
        """Pass on the hands of a deal set that every table dealt its cards has finished: a hand
        still in play in another seat rotation would show that table's cards."""
        unshown = self._unshown[deal_set]
        unshown.setdefault(table_id, []).append(text)
        if len(unshown) < self._deal_tables[deal_set]:
            return  # a table of these cards has not started: it has played none of them
        ready = min(len(texts) for texts in unshown.values())
        for number in range(ready):
            for texts in unshown.values():
                self.on_hand(self.plan.match_id, texts[number])  # type: ignore[misc]
        for texts in unshown.values():
            del texts[:ready]

    def _record(self, record: HandRecord) -> None:
        """Fold a finished hand's record into the result (a hook: ``compare`` also feeds its sequential test here)."""
        self.result.tally.add(record)
        if self.result.records is not None:
            self.result.records.append(record)
