"""The real ``dealer arena serve`` against hostile clients (issue 31): a token in a malformed
header never reaches its log or stderr; a client holding hundreds of idle connections takes its
own share of the server's open files and leaves another team's requests served; and a frozen
arena starts again."""

from __future__ import annotations

import asyncio
import contextlib
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from dealer.arena.store.schema import active_versions, engine_for, migrate, teams
from dealer.arena.store.teams import Repository

DEALER = Path(sys.executable).parent / "dealer"


async def _arena(database: str, frozen: bool = False) -> dict[str, str]:
    """A migrated arena with teams alpha and beta (their tokens), frozen if asked."""
    await migrate(database)
    repository = Repository(engine_for(database))
    try:
        tokens = {name: (await repository.add_team(name))[1] for name in ("alpha", "beta")}
        if frozen:
            await repository.freeze()
        return tokens
    finally:
        await repository.engine.dispose()


@contextlib.contextmanager
def serving(tmp_path: Path, database: str, extra: str = "", files: int | None = None) -> Iterator[tuple[int, Path]]:
    """``dealer arena serve`` on a fresh arena.yaml (no ladder unless ``extra`` says), with at most
    ``files`` open files if given: its port and the file its stderr goes to. Stopped with SIGTERM
    at the end, which it must survive to exit 0."""
    config = tmp_path / "arena.yaml"
    config.write_text(
        f"storage: {tmp_path / 'storage'}\ndatabase: '{database}'\nlisten: 127.0.0.1:0\n"
        + (extra or "ladder: {jobs: 0}")
        + "\n",
        encoding="utf-8",
    )
    stderr = tmp_path / "serve.stderr"

    def limit_files() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    with open(stderr, "wb") as out:
        server = subprocess.Popen(
            [str(DEALER), "arena", "serve", str(config)], stdout=out, stderr=out, preexec_fn=limit_files
        )
    try:
        deadline = time.monotonic() + 60
        while (found := re.search(r"arena on http://127\.0\.0\.1:(\d+)/", stderr.read_text())) is None:
            assert server.poll() is None and time.monotonic() < deadline, stderr.read_text()[-3000:]
            time.sleep(0.1)
        yield int(found[1]), stderr
        assert server.poll() is None, stderr.read_text()[-3000:]
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        code = server.wait(30)
    assert code == 0, stderr.read_text()[-3000:]


def _ask(port: int, request: bytes, source: str = "127.0.0.1", timeout_s: float = 10) -> bytes:
    """Send ``request`` from the address ``source`` and read the answer until the server closes
    the connection (every request here says ``Connection: close``) or ``timeout_s`` passes."""
    with socket.socket() as connection:
        connection.settimeout(timeout_s)
        connection.bind((source, 0))
        connection.connect(("127.0.0.1", port))
        connection.sendall(request)
        answer = b""
        with contextlib.suppress(TimeoutError, ConnectionResetError):
            while chunk := connection.recv(65536):
                answer += chunk
        return answer


def test_a_token_is_never_logged_even_in_a_malformed_request(tmp_path: Path) -> None:
    """``Authorization: Bearer <token>\\x01`` (aiohttp's parser refuses the header and would log it,
    token included), a token in a malformed request line and one beside a NUL: the server's stderr
    and arena.log hold none of the tokens, and arena.log says a malformed request came."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    tokens = asyncio.run(_arena(database))
    alpha, beta = tokens["alpha"], tokens["beta"]
    with serving(tmp_path, database) as (port, stderr):
        hostile = [
            f"GET /api/v1/team HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {alpha}\x01\r\nConnection: close\r\n\r\n",
            f"GET /api/v1/team?token={beta}\x01 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            f"GET /api/v1/team HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer\x00{alpha}\r\nConnection: close\r\n\r\n",
            f"GET /api/v1/team HTTP/1.1\r\nHost: a\r\nX-{alpha}: 1\x7f\r\nConnection: close\r\n\r\n",
        ]
        for request in hostile:
            assert re.match(rb"HTTP/1\.[01] 400 ", _ask(port, request.encode("latin-1"))), request
        fine = f"GET /api/v1/team HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {alpha}\r\nConnection: close\r\n\r\n"
        assert b'"name": "alpha"' in _ask(port, fine.encode())
    log = (tmp_path / "storage" / "arena.log").read_text(encoding="utf-8", errors="replace")
    said = stderr.read_text(encoding="utf-8", errors="replace")
    for token in (alpha, beta):
        for text in (log, said):
            assert token not in text and token[5:25] not in text, text
    assert "malformed request" in log, log


def test_idle_connections_of_one_client_leave_another_teams_requests_served(tmp_path: Path) -> None:
    """The server at 256 open files, ``connections_per_client: 16``, ``header_timeout_s: 2``: a
    client at 127.0.0.3 opens 400 connections and sends nothing. Beta's ``GET /api/v1/team`` from
    127.0.0.2 is answered at once; the 384 connections past the cap are closed at once, the 16
    within it once they have sent no request for 2 s."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    tokens = asyncio.run(_arena(database))
    extra = "ladder: {jobs: 0}\nhttp: {connections_per_client: 16, header_timeout_s: 2}"
    with serving(tmp_path, database, extra, files=256) as (port, _stderr):
        idle = []
        try:
            for _ in range(400):
                connection = socket.socket()
                connection.settimeout(5)
                connection.bind(("127.0.0.3", 0))
                connection.connect(("127.0.0.1", port))
                idle.append(connection)
            time.sleep(0.5)
            started = time.monotonic()
            request = f"GET /api/v1/team HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {tokens['beta']}\r\n"
            answer = _ask(port, (request + "Connection: close\r\n\r\n").encode(), source="127.0.0.2", timeout_s=5)
            assert b'"name": "beta"' in answer, answer[:300]
            assert time.monotonic() - started < 5
            closed = 0
            deadline = time.monotonic() + 15
            for connection in idle:
                connection.settimeout(max(0.1, deadline - time.monotonic()))
                with contextlib.suppress(ConnectionResetError):
                    if connection.recv(1) == b"":
                        closed += 1
                        continue
                closed += 1
            assert closed == 400, "every idle connection was closed"
        finally:
            for connection in idle:
                connection.close()


@pytest.mark.timeout(180)
def test_a_frozen_arena_starts_again_with_its_house_bot(arena_database: str, tmp_path: Path) -> None:
    """``dealer arena serve`` on a frozen arena (its house bot entered before the freeze, and
    after a freeze of an arena that never had one): it serves, and the house bot is active."""
    asyncio.run(_arena(arena_database, frozen=True))
    ladder = "ladder: {jobs: 1, hands: 2, house: true, seed: frozen-test-seed}"
    for _start in range(2):
        with serving(tmp_path, arena_database, ladder) as (_port, stderr):
            deadline = time.monotonic() + 60
            while not asyncio.run(_house_active(arena_database)):
                assert time.monotonic() < deadline, stderr.read_text()[-3000:]
                time.sleep(0.2)
            time.sleep(1)  # the ladder runs on, with the house bot alone


async def _house_active(database: str) -> bool:
    """Whether the house team has an active version."""
    engine = engine_for(database)
    try:
        async with engine.connect() as connection:
            query = select(active_versions.c.version_id).join(teams).where(teams.c.name == "house")
            return (await connection.execute(query)).first() is not None
    finally:
        await engine.dispose()
