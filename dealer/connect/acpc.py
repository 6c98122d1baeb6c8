"""Bots that speak the ACPC dealer protocol 2.0.0 (``protocol: acpc``).

An ACPC client plays one seat of one table at a time over TCP. For a bot at K tables of a match
the dealer writes the match's ``.game`` file into its own output folder (never into a bot's
folder), opens K ports and launches the bot's command K times (``{game}``, ``{host}`` and
``{port}`` replaced), each through the same launcher, limits and scratch folders as any bot. Once
every client has connected and said ``VERSION:2.0.0``, the clients are one connection of
``dealer.connect.pump``, as a gRPC stream is: each batch the bot's ``BotSession`` (its ``link``) releases is translated,
table by table, into ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` lines (one per change of
state, as the ACPC dealer sends them), and each answer ``<state>:<f|c|r[N]>`` goes back to the
request of that state. Clocks, faults and the fault policy are the link's, the session's and the match's.

Sealed (the default: sandboxed with ``network: none``), each client runs in a network namespace of
its own: its launcher listens on ``PORT`` of that namespace's loopback and hands the connection over
(SCM_RIGHTS) on a Unix socket of the dealer's bound into the sandbox, and the game file is bound read-only at
``GAME_PATH``; no other process can reach the port. With ``network: host`` or ``sandbox: off`` the
dealer listens on a port of the host's loopback instead, where any local process can dial it first.

Faults: a first line that is not ``VERSION:2...`` (or longer than MAX_LINE_BYTES) is ``protocol``
and ends the bot's start; a client that connects and says nothing is the match's ``no_connect``;
a line that is no ``<state>:<action>`` answer (or a no-limit ``r`` without a size) is
``protocol``; an answer to a state that asked nothing is ``unexpected_reply``; a raise out of
range is ``illegal_action``. A port's second connection is closed and charged to no bot.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import os
import shutil
import socket as stdsocket
import tempfile
from collections.abc import Callable
from pathlib import Path

from dealer.config.acpc_game import game_definition
from dealer.config.choices import Network
from dealer.config.confined import Command, replaced
from dealer.config.league_file import GameConfig, Limits
from dealer.connect import wire_json
from dealer.connect.acpc_view import AcpcSeats
from dealer.connect.pump import Inbox, pump
from dealer.connect.session import BotSession
from dealer.connect.wire import Reply
from dealer.files import write_atomically
from dealer.isolation.processes import BotProcess
from dealer.stats.faults import Fault

LOGGER = logging.getLogger(__name__)
HOST = "127.0.0.1"
PORT = 18791  # a sealed client's port: on the loopback of its own network namespace, so never taken
GAME_PATH = "/run/match.game"  # where a sandboxed client finds the game file, bound read-only
VERSION = "VERSION:2."
MAX_LINE_BYTES = 1 << 12


@dataclasses.dataclass(eq=False)
class _Client:
    """One launched ACPC client: its process, the dealer's end of its port."""

    process: BotProcess
    server: asyncio.Server | _HandOff
    connected: asyncio.Future[_Line]


class _Line(asyncio.Protocol):
    """The dealer's end of one client's connection: what it sends, cut into lines (a line longer than
    MAX_LINE_BYTES ends it), the first for the handshake (``first``), every later one handed to the
    bot's ``_Clients`` (``attach``); written lines go straight to its socket."""

    def __init__(self, connected: asyncio.Future[_Line]) -> None:
        self._connected = connected
        self.transport: asyncio.Transport | None = None
        self.first: asyncio.Future[bytes | None] = connected.get_loop().create_future()
        self._buffer = b""
        self._heard: Callable[[bytes | None], None] | None = None
        self._early: list[bytes | None] = []  # heard before ``attach``
        self._ended = False
        self._lost = False
        self._paused: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep a port's first connection; close any other (charged to no bot: it cannot be told whose)."""
        assert isinstance(transport, asyncio.Transport)
        if self._connected.done():
            transport.close()
        else:
            self.transport = transport
            self._connected.set_result(self)

    def data_received(self, data: bytes) -> None:
        """Cut the bytes into lines (the line end kept); a line too long is the end of the client."""
        if self._ended:
            return
        if not self._buffer and data.find(b"\n") == len(data) - 1 and len(data) <= MAX_LINE_BYTES + 1:
            self._hear(data)  # one whole line, as a client mostly sends
            return
        buffer, start = self._buffer + data, 0
        while (end := buffer.find(b"\n", start)) >= 0:
            if end - start > MAX_LINE_BYTES:
                break
            self._hear(buffer[start : end + 1])
            start = end + 1
        self._buffer = buffer[start:]
        if len(self._buffer) > MAX_LINE_BYTES:
            self._end(None)

    def eof_received(self) -> bool:
        """The client's side ended: a last line without its end is still a line (as readline reads it);
        the connection stays open until the dealer closes it."""
        if self._buffer and not self._ended:
            self._hear(self._buffer)
        self._end(b"")
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended (either side): the end of the client's lines, and of any wait to write."""
        self._lost = True
        self._end(b"")
        if self._paused is not None and not self._paused.done():
            self._paused.set_result(None)

    def pause_writing(self) -> None:
        """The client reads slower than it is written: ``drain`` waits."""
        self._paused = self.first.get_loop().create_future()

    def resume_writing(self) -> None:
        """``drain`` waits no more."""
        if self._paused is not None and not self._paused.done():
            self._paused.set_result(None)
        self._paused = None

    def _hear(self, line: bytes | None) -> None:
        """A line (b"": the end, None: a line too long) to the handshake first, then to the bot's reader."""
        if not self.first.done():
            self.first.set_result(line)
        elif self._heard is not None:
            self._heard(line)
        else:
            self._early.append(line)

    def _end(self, why: bytes | None) -> None:
        if not self._ended:
            self._ended = True
            self._hear(why)
            if why is None and self.transport is not None:
                self.transport.pause_reading()  # nothing more is read from it

    def attach(self, heard: Callable[[bytes | None], None]) -> None:
        """From now on every line goes to ``heard`` (those heard since the handshake first)."""
        self._heard = heard
        for line in self._early:
            heard(line)
        self._early.clear()

    def write(self, data: bytes) -> None:
        """Send ``data`` to the client."""
        assert self.transport is not None
        self.transport.write(data)

    @property
    def blocked(self) -> bool:
        """Whether ``drain`` has anything to wait for or report (the client reads slowly, or is gone)."""
        return self._paused is not None or self._lost

    async def drain(self) -> None:
        """Wait while the client leaves too much unread; ConnectionResetError once the connection is lost."""
        if self._paused is not None:
            await self._paused
        if self._lost:
            raise ConnectionResetError("Connection lost")

    def close(self) -> None:
        """Close the connection."""
        if self.transport is not None:
            self.transport.close()


class _Clients:
    """A bot's connected ACPC clients, one per table, as one connection of the pump (``dealer.connect.pump``):
    each batch is translated table by table into MATCHSTATE lines, each answer into a reply."""

    lost = "its output ended without Goodbye"
    broken: tuple[type[BaseException], ...] = (BrokenPipeError, ConnectionResetError)

    def __init__(self, lines: list[_Line], no_limit: bool) -> None:
        self._lines = lines  # the clients' connections, in the order they are seated at tables
        self._seats = AcpcSeats(len(lines), no_limit)
        self._heard: list[tuple[int, bytes | None]] = []  # every client's lines, as they came
        self._news: asyncio.Future[None] | None = None  # what the reader waits on while nothing is heard
        for client, line in enumerate(lines):
            line.attach(functools.partial(self._hear, client))

    def _hear(self, client: int, line: bytes | None) -> None:
        self._heard.append((client, line))
        if self._news is not None and not self._news.done():
            self._news.set_result(None)

    async def read(self, inbox: Inbox) -> None:
        """Read every client's answers until one of them closes (one client down ends the bot's
        connection): the answers that came in one turn of the event loop, whichever clients sent
        them, go to the link as one message. The reader waits on a future of the loop's own, not an
        ``asyncio.Event``, whose every wait asks the kernel for the process id (``getpid``)."""
        loop = asyncio.get_running_loop()
        while True:
            if not self._heard:
                self._news = loop.create_future()
                await self._news
            heard, self._heard = self._heard, []
            if not await self._answers(inbox, heard):
                return

    async def _answers(self, inbox: Inbox, heard: list[tuple[int, bytes | None]]) -> bool:
        """Route the answers of ``heard`` in order; False when a client ended or the bot is cut off."""
        replies: list[Reply] = []
        for client, raw in heard:
            if not raw:  # the end of a client, or a line too long
                if replies and not await inbox.receive_replies(replies):
                    return False
                if raw is None:
                    inbox.malformed(f"a line longer than {MAX_LINE_BYTES} bytes", fatal=True)
                return False
            try:
                reply = self._seats.answer(client, raw)
            except ValueError as error:
                if replies and not await inbox.receive_replies(replies):
                    return False
                replies = []
                if not inbox.malformed(str(error)):
                    return False
                continue
            if reply is not None:
                replies.append(reply)
        return not replies or await inbox.receive_replies(replies)

    async def write(self, batch: bytes) -> int:
        """Translate a batch into each client's MATCHSTATE lines and send those a client must have
        now (``AcpcSeats.translate``: its table asks something), then wait until they are sent."""
        due = self._seats.translate(wire_json.acpc_items(batch))
        lines = self._lines
        for client, data in due:
            lines[client].write(data)
        for client, _ in due:
            if lines[client].blocked:
                await lines[client].drain()
        return 0

    def close(self) -> None:
        """Close every client's connection."""
        for line in self._lines:
            line.close()


def _share_game_file(path: Path, text: str) -> None:
    """Write the match's game file (0644: a bot's own user reads it) unless it already holds ``text``.
    Every ACPC instance of a match, in any of its worker processes, binds this one file into its
    sandbox: replacing it while another instance's sandbox starts would unlink the very file that
    sandbox is binding (bwrap: "Can't bind mount ... No such file or directory")."""
    if write_atomically(path, text, replace=False) or path.read_text(encoding="utf-8") == text:
        return
    write_atomically(path, text)  # another game's file (an output folder used again): this match's


class AcpcBot:
    """A bot's ACPC clients, one per table, seen by the match as one bot process."""

    def __init__(self, name: str, clients: list[_Client], sockets: str | None) -> None:
        self.name = name
        self.clients = clients
        self.killed = False
        self._bridge: asyncio.Task[None] | None = None
        self._sockets = sockets  # the folder of the dealer's Unix sockets for sealed clients
        self._lines: list[_Line] = []  # the clients' connections, as they came

    @classmethod
    async def launch(
        cls,
        name: str,
        command: Command,
        *,
        session: BotSession,
        tables: int,
        players: int,
        game: GameConfig,
        game_file: Path,
        base: Path,
        workdir: Path,
        log_path: Path,
        limits: Limits,
        startup_s: float,
    ) -> AcpcBot:
        """Write the game file, open a port per table and launch the clients; the session is attached
        (and played) once every client has said its version within ``startup_s``. Raises OSError if
        one cannot start.

        Sealed (sandboxed with ``network: none``), each client runs in a network namespace of its own:
        its launcher listens on ``PORT`` of that namespace's loopback and hands the connection over to
        a Unix socket of the dealer's bound into the sandbox, so no other process reaches its port.
        Otherwise the dealer listens on a port of the host's loopback (``network: host``)."""
        sealed = is_sealed(limits)
        sandboxed = limits.sandbox == "on"
        if not sealed:
            limits = dataclasses.replace(limits, network=Network.HOST)  # the loopback port is the way in
        _share_game_file(game_file, game_definition(game, players))
        sockets = tempfile.mkdtemp(prefix="dealer-acpc-") if sealed else None
        clients: list[_Client] = []
        game_path = GAME_PATH if sandboxed else str(game_file)
        argv = replaced(command, lambda w: w.replace("{game}", game_path).replace("{host}", HOST))
        try:
            for k in range(tables):
                folder = workdir / f"seat{k}" if tables > 1 else workdir
                log = log_path if k == 0 else log_path.with_name(f"{log_path.stem}.seat{k}{log_path.suffix}")
                socket = None if sockets is None else os.path.join(sockets, f"{k}.sock")
                files = {GAME_PATH: game_file} if sandboxed else None
                clients.append(await _launch_client(name, argv, socket, base, folder, log, limits, files))
        except OSError:
            for client in clients:
                client.server.close()
                await client.process.stop(0.2)
            if sockets is not None:
                shutil.rmtree(sockets, ignore_errors=True)
            raise
        bot = cls(name, clients, sockets)
        bot._bridge = asyncio.create_task(bot._serve(session, game.variant != "fixed-limit", startup_s))
        return bot

    async def _handshake(self, session: BotSession, startup_s: float) -> list[_Line]:
        """Wait (until ``startup_s``) for every client's connection and its ``VERSION:2.x`` line; the
        connections, or none. A first line that is something else, or longer than MAX_LINE_BYTES, is a
        ``protocol`` fault, and the clients are stopped (so the match counts no ``no_connect``); a
        client that says nothing in time, or ends, is left to the match (``no_connect``, or its exit)."""
        deadline = asyncio.get_running_loop().time() + startup_s
        connections = []
        for client in self.clients:
            try:
                async with asyncio.timeout_at(deadline):
                    line = await client.connected
                    client.server.close()  # one connection per port
                    self._lines.append(line)
                    first = await line.first
            except TimeoutError:
                return []
            if first is None:
                wrong = f"its first line is longer than {MAX_LINE_BYTES} bytes"
            elif not first:
                return []
            else:
                wrong = "" if first.startswith(VERSION.encode()) else f"not {first.decode('utf-8', 'replace')[:80]!r}"
            if wrong:
                session.fault(Fault.PROTOCOL, f"an ACPC client must say VERSION:2.0.0 first: {wrong}")
                self.killed = True
                for other in self.clients:
                    other.process.terminate()
                return []
            connections.append(line)
        return connections

    async def _serve(self, session: BotSession, no_limit: bool, startup_s: float) -> None:
        """Wait for every client's version, then pump the session's batches to them and their answers back."""
        connections = await self._handshake(session, startup_s)
        if connections:
            LOGGER.info("bot %s connected over its table ports", session.name)
            await pump(session.link, _Clients(connections, no_limit))

    # ------------------------------------------------------------- as the match sees a bot process

    @property
    def processes(self) -> list[BotProcess]:
        """The clients' processes, one per table."""
        return [c.process for c in self.clients]

    @property
    def process(self) -> asyncio.subprocess.Process:
        """The first client's process (for the match's log line)."""
        return self.clients[0].process.process

    @property
    def returncode(self) -> int | None:
        """The first failure status among the clients, else 0 once all ended (None while any runs)."""
        codes = [c.process.returncode for c in self.clients]
        failed = [code for code in codes if code not in (None, 0)]
        return failed[0] if failed else (None if None in codes else 0)

    @property
    def crashed(self) -> bool:
        """Whether a client exited by itself with a failure status."""
        return any(c.process.crashed for c in self.clients)

    async def wait_exit(self, timeout_s: float) -> bool:
        """Wait until a client's process ends (one client down stops the bot); True if one did."""
        waits = [asyncio.ensure_future(c.process.wait_exit(timeout_s)) for c in self.clients]
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for wait in pending:
            wait.cancel()
        return any(w.result() for w in done)

    async def stop(self, grace_s: float = 1.0) -> int | None:
        """Stop every client (as ``BotProcess.stop``), close their connections, end the adapter."""
        await asyncio.gather(*(c.process.stop(grace_s) for c in self.clients))
        self.killed = self.killed or any(c.process.killed for c in self.clients)
        for client in self.clients:
            client.server.close()
            if not client.connected.done():
                client.connected.cancel()
        for line in self._lines:
            line.close()
        if self._bridge is not None:
            await asyncio.wait([self._bridge], timeout=grace_s)
            if not self._bridge.done():  # a connection held open by a process that left the sandbox
                self._bridge.cancel()
                await asyncio.wait([self._bridge])
        if self._sockets is not None:
            shutil.rmtree(self._sockets, ignore_errors=True)
        return self.returncode

    async def log_complete(self, timeout_s: float = 1.0) -> None:
        """Wait (a little) until every client's output has reached its log."""
        await asyncio.gather(*(c.process.log_complete(timeout_s) for c in self.clients))

    def out_of_cpu(self) -> bool:
        """Whether a client hit its CPU time limit (as ``BotProcess.out_of_cpu``)."""
        return any(c.process.out_of_cpu() for c in self.clients)

    def out_of_memory(self) -> bool:
        """Whether a client's log ends with an allocation failure."""
        return any(c.process.out_of_memory() for c in self.clients)

    def log_tail(self, max_bytes: int = 2000) -> str:
        """The end of each client's log."""
        return "\n".join(c.process.log_tail(max_bytes // len(self.clients)) for c in self.clients)


def is_sealed(limits: Limits) -> bool:
    """Whether an ACPC bot with these limits runs in a network namespace of its own (its port
    handed over inside its sandbox), rather than on a port of the host's loopback."""
    return limits.sandbox == "on" and limits.network == "none"


async def _launch_client(
    name: str,
    argv: Command,
    socket: str | None,
    base: Path,
    workdir: Path,
    log_path: Path,
    limits: Limits,
    files: dict[str, Path] | None,
) -> _Client:
    """Open one client's port (a Unix ``socket`` its sealed launcher hands ``PORT``'s connection to, else a port
    of the host's loopback), then launch it with ``{port}`` in ``argv`` replaced; the port is
    closed again if the launch fails."""
    loop = asyncio.get_running_loop()
    connected: asyncio.Future[_Line] = loop.create_future()
    line = functools.partial(_Line, connected)
    server: asyncio.Server | _HandOff
    if socket is not None:
        server, port, local = _HandOff(socket, line), PORT, f"unix:{socket}"
    else:
        server = await loop.create_server(line, HOST, 0)
        port, local = server.sockets[0].getsockname()[1], None
    try:
        process = await BotProcess.launch(
            name,
            replaced(argv, lambda word: word.replace("{port}", str(port))),
            address="",
            token="",
            base=base,
            workdir=workdir,
            log_path=log_path,
            limits=limits,
            local_address=local,
            relay_port=PORT if socket is not None else None,
            files=files,
        )
    except BaseException:
        server.close()
        raise
    return _Client(process, server, connected)


class _HandOff:
    """A sealed client's way in: the dealer's Unix socket at ``path``, where the client's launcher
    hands over the connection it took on the sandbox's port (SCM_RIGHTS), so the dealer reads and
    writes the client's own socket (``TCP_NODELAY``, as asyncio sets it) with no copy between; each
    connection that hands over a connected stream socket is served by a ``line()`` protocol, any
    other is closed."""

    def __init__(self, path: str, line: Callable[[], asyncio.Protocol]) -> None:
        self._listener = stdsocket.socket(stdsocket.AF_UNIX, stdsocket.SOCK_STREAM)
        self._listener.setblocking(False)
        self._listener.bind(path)
        self._listener.listen(8)
        self._task = asyncio.create_task(self._serve(line))

    async def _serve(self, line: Callable[[], asyncio.Protocol]) -> None:
        loop = asyncio.get_running_loop()
        while True:
            connection, _ = await loop.sock_accept(self._listener)
            with connection:
                handed = await _handed_socket(connection)
            if handed is not None:
                # shielded: the handshake closes this hand-off as soon as the line says it is connected,
                # which is before connect_accepted_socket returns; cancelled, it would close the connection
                await asyncio.shield(loop.connect_accepted_socket(line, handed))

    def close(self) -> None:
        """Stop taking connections. The listener is closed once the accepting task has ended: the
        event loop drops its watch on the listener's descriptor only then, and a descriptor closed
        before would be reused by the next connection while still watched, which then never reads."""
        self._task.cancel()
        self._task.add_done_callback(lambda _: self._listener.close())


def _ready(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _handed_socket(connection: stdsocket.socket) -> stdsocket.socket | None:
    """The connected stream socket handed over on ``connection`` (SCM_RIGHTS), or None where it
    carries none (or something else: its descriptor is closed)."""
    loop = asyncio.get_running_loop()
    readable: asyncio.Future[None] = loop.create_future()
    loop.add_reader(connection, _ready, readable)
    try:
        await readable
        _, fds, _, _ = stdsocket.recv_fds(connection, 1, 1)
    except OSError:
        return None
    finally:
        loop.remove_reader(connection)
    for fd in fds:
        try:
            handed = stdsocket.socket(fileno=fd)
        except OSError:  # not a socket
            os.close(fd)
            continue
        try:
            if handed.type == stdsocket.SOCK_STREAM and handed.getpeername():
                return handed
        except OSError:  # not connected
            pass
        handed.close()
    return None
