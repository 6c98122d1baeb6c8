"""The arena's HTTP side against hostile clients (issue 31): archives whose headers announce more
than they hold or lie, bodies sent to routes that must not read them, malformed JSON and forms,
login floods. Each runs the API and the pages (``make_app``, ``add_pages``) on a real socket and
checks what a demanding organiser would: a 4xx of one line, the server's memory not grown by
what a header announced, nothing read before its size is checked, nothing charged to the quota
that the server refused before building. The real ``dealer arena serve`` (its log, connection
caps and timeouts): test_arena_serve_hostile.py."""

from __future__ import annotations

import asyncio
import functools
import gzip
import io
import logging
import re
import struct
import tarfile
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from typer.testing import CliRunner

from dealer.arena.config import HttpLimits, SubmissionLimits
from dealer.arena.http import API
from dealer.arena.model import BuildState
from dealer.arena.sessions import COOKIE, CSRF_FIELD
from dealer.arena.store.teams import Repository
from dealer.cli.main import app as cli_app
from test_arena_http import BOT, auth, bot_archive, form
from test_arena_pages import run_pages

MB = 1024 * 1024


@functools.cache
def long_name_bomb(size: int) -> bytes:
    """A tar.gz whose first header is a GNU long name of ``size`` bytes (the name follows, compressed)."""
    head = tarfile.TarInfo("././@LongLink")
    head.type, head.size = tarfile.GNUTYPE_LONGNAME, size
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6) as packed:
        packed.write(head.tobuf(format=tarfile.GNU_FORMAT))
        chunk = b"a" * MB
        for _ in range(size // MB):
            packed.write(chunk)
    return out.getvalue()


def zip_of(name: str, data: bytes) -> bytes:
    """A zip of one deflated member."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.yaml", BOT["bot.yaml"])
        archive.writestr(name, data)
    return out.getvalue()


def patched_zip(data: bytes, name: bytes, *, size: int | None = None, crc: int | None = None) -> bytes:
    """``data`` with member ``name``'s uncompressed size or CRC-32 rewritten in its local header
    and its central directory record (a lying header)."""
    out = bytearray(data)
    for signature, crc_at in ((b"PK\x03\x04", 14), (b"PK\x01\x02", 16)):
        start = 0
        while (start := out.find(signature, start)) >= 0:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if out[name_at : name_at + len(name)] == name:
                if crc is not None:
                    out[start + crc_at : start + crc_at + 4] = struct.pack("<I", crc)
                if size is not None:
                    out[start + crc_at + 8 : start + crc_at + 12] = struct.pack("<I", size)
            start += 4
    return bytes(out)


def test_a_tar_header_bomb_is_refused_before_its_name_is_read(tmp_path: Path) -> None:
    """A 400 KB tar.gz whose first header is a GNU long name of 400 MB: refused (422, one line)
    while the server's traced memory grows by far less than the name (tarfile would read it whole)."""
    bomb = long_name_bomb(400 * MB)
    assert len(bomb) < MB

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], queued: Any) -> None:
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            response = await client.post(f"{API}/submissions", data=form(bomb), headers=auth(tokens["alpha"]))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak - before < 16 * MB, f"the server's memory grew by {(peak - before) / MB:.0f} MB"
        assert response.status == 422
        assert (await response.json())["error"] == (
            "'././@LongLink': an extended header (long name or pax) of 419430400 bytes, more than 65536"
        )
        assert queued == []

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)


def test_damaged_archives_are_one_line_4xx_each_and_do_not_count_against_the_quota(
    arena_database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A zip whose header says a 100 MiB member holds 10 bytes, a zip member with a wrong CRC-32,
    a tar.gz cut in half, a tar bomb: each a 4xx of one line, the memory bounded, no error logged;
    with ``per_hour: 2`` the team's next two new versions are still taken (a resubmission of the
    same files between them counts for nothing), and the third is not."""
    huge = zip_of("big.bin", bytes(100 * MB))
    lying = patched_zip(huge, b"big.bin", size=10)
    wrong_crc = patched_zip(zip_of("bot.py", b"print('call')\n"), b"bot.py", crc=0x12345678)
    whole = bot_archive({**BOT, "blob": bytes(range(256)) * 4096})
    cut = whole[: len(whole) // 2]
    cases = [
        (lying, "'big.bin': the archive is damaged: Bad CRC-32 for file 'big.bin'"),
        (wrong_crc, "'bot.py': the archive is damaged: Bad CRC-32 for file 'bot.py'"),
        (cut, "'blob': the archive is damaged: Compressed file ended before the end-of-stream marker was reached"),
    ]

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], queued: Any) -> None:
        alpha = auth(tokens["alpha"])
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for archive, message in cases:
                response = await client.post(f"{API}/submissions", data=form(archive), headers=alpha)
                assert (response.status, await response.json()) == (422, {"error": message})
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak - before < 16 * MB, f"the server's memory grew by {(peak - before) / MB:.0f} MB"
        good = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=alpha)
        assert good.status == 201, "refused archives do not count against the hourly quota"
        same = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=alpha)
        assert same.status == 200, "the same files again: the same version, nothing built, nothing counted"
        second = await client.post(f"{API}/submissions", data=form(bot_archive({**BOT, "x": b"1"})), headers=alpha)
        assert second.status == 201
        third = await client.post(f"{API}/submissions", data=form(bot_archive({**BOT, "x": b"2"})), headers=alpha)
        assert third.status == 429, "a third new version within the hour is over the quota"
        assert [v.label for v in queued] == ["v1", "v2"]

    with caplog.at_level(logging.WARNING):
        run_pages(arena_database, tmp_path / "storage", scenario, submissions=SubmissionLimits(per_hour=2))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], "an error was logged"


async def _raw(client: TestClient[Any, Any], request: bytes, body: bytes = b"", timeout_s: float = 10) -> bytes:
    """Send ``request`` (its line and headers) and ``body`` on a raw connection; what the server
    answers before it closes the connection or ``timeout_s`` passes (never waiting for a body)."""
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        writer.write(request + body)
        await writer.drain()
        answer = b""
        async with asyncio.timeout(timeout_s):
            while b"\r\n\r\n" not in answer or not _complete(answer):
                chunk = await reader.read(65536)
                if not chunk:
                    break
                answer += chunk
        return answer
    except TimeoutError:
        return answer
    finally:
        writer.close()


def _complete(answer: bytes) -> bool:
    """Whether a response's head and its whole Content-Length body are in ``answer``."""
    head, _, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    return length is not None and len(body) >= int(length[1])


def test_a_large_body_is_refused_before_it_is_read(arena_database: str, tmp_path: Path) -> None:
    """Requests that announce a large body and send none of it: each route answers at once, never
    waiting for the body: 413 for a login form of 1 GB (the login page's limit is ``max_body_kb``),
    for an archive over ``max_archive_mb``, and 401 for an anonymous submission of a size allowed;
    a chunked body (no length announced) is cut off at the limit as it is read."""

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], queued: Any) -> None:
        def head(path: str, length: int, *extra: str) -> bytes:
            lines = [f"POST {path} HTTP/1.1", "Host: arena", f"Content-Length: {length}", *extra, "", ""]
            return "\r\n".join(lines).encode()

        started = time.monotonic()
        login = await _raw(client, head("/login", 1 << 30, "Content-Type: application/x-www-form-urlencoded"))
        assert login.startswith(b"HTTP/1.1 413 "), login[:200]
        assert b'"the body is larger than 64 KB, the most this route takes"' in login
        bearer = f"Authorization: Bearer {tokens['alpha']}"
        big = await _raw(client, head(f"{API}/submissions", 1 << 30, bearer, "Content-Type: multipart/form-data; b=x"))
        assert big.startswith(b"HTTP/1.1 413 ") and b"the archive is larger than 16 MB" in big, big[:300]
        anonymous = await _raw(client, head(f"{API}/submissions", 8 * MB, "Content-Type: multipart/form-data; b=x"))
        assert anonymous.startswith(b"HTTP/1.1 401 "), anonymous[:200]
        for route in ("/organiser/teams", f"{API}/active", f"{API}/scrimmages"):
            answer = await _raw(client, head(route, 1 << 30, bearer, "Content-Type: application/json"))
            assert answer.startswith(b"HTTP/1.1 413 "), (route, answer[:200])
        assert time.monotonic() - started < 8, "every refusal came without waiting for a body"
        chunked = (
            b"POST /login HTTP/1.1\r\nHost: arena\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\n"
        )
        piece = b"a" * 65536
        body = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(16)) + b"0\r\n\r\n"
        cut = await _raw(client, chunked, body)
        assert cut.startswith(b"HTTP/1.1 413 "), cut[:200]
        assert b'"the body is larger than 64 KB, the most this route takes"' in cut
        assert queued == []

    run_pages(arena_database, tmp_path / "storage", scenario)


def test_a_body_that_does_not_arrive_is_cut_off(tmp_path: Path) -> None:
    """``body_timeout_s: 1``: a login form, a JSON body and an archive that announce 100 bytes and
    send 10 are answered 408 once the second has passed, never held open."""

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], queued: Any) -> None:
        bearer = f"Authorization: Bearer {tokens['alpha']}\r\n"
        for path, extra in (
            ("/login", "Content-Type: application/x-www-form-urlencoded\r\n"),
            (f"{API}/active", bearer + "Content-Type: application/json\r\n"),
            (f"{API}/submissions", bearer + "Content-Type: multipart/form-data; boundary=b\r\n"),
        ):
            started = time.monotonic()
            head = f"POST {path} HTTP/1.1\r\nHost: arena\r\nContent-Length: 100\r\n{extra}\r\n".encode()
            answer = await _raw(client, head, b"--b\r\n12345", timeout_s=8)
            assert answer.startswith(b"HTTP/1.1 408 "), (path, answer[:200])
            assert b"s to arrive" in answer and time.monotonic() - started < 6
        assert queued == []

    run_pages(
        f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "storage",
        scenario,
        http=HttpLimits(body_timeout_s=1),
    )


def test_malformed_json_and_forms_are_one_line_4xx(
    arena_database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Numbers past any version (10**30, +-2**63), JSON nested 100,000 deep (and 30,000 deep,
    within the body limit) on /active, /scrimmages and /scrimmage-policy, multipart without a
    boundary or with a broken part header: each a 4xx with one line, nothing logged as an error."""

    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: Any
    ) -> None:
        alpha = auth(tokens["alpha"])
        assert (await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=alpha)).status == 201
        await repository.set_state(queued[0], BuildState.READY)
        for number in (10**30, 2**63, 2**63 - 1, -(2**63), 0, 10**9):
            response = await client.put(f"{API}/active", data=f'{{"version": {number}}}', headers=alpha)
            assert response.status == 404, (number, await response.text())
            assert "\n" not in (await response.json())["error"]
        assert (await client.put(f"{API}/active", json={"version": 1}, headers=alpha)).status == 200
        for route, method in (
            (f"{API}/active", "PUT"),
            (f"{API}/scrimmages", "POST"),
            (f"{API}/scrimmage-policy", "PUT"),
        ):
            for depth, status in ((100_000, 413), (30_000, 400)):
                deep = "[" * depth + "]" * depth
                response = await client.request(method, route, data=deep, headers=alpha)
                assert response.status == status, (route, depth, await response.text())
                assert "\n" not in (await response.json())["error"]
        no_boundary = await client.post(
            f"{API}/submissions", data=b"--x\r\n\r\n", headers={**alpha, "Content-Type": "multipart/form-data"}
        )
        assert no_boundary.status == 400
        assert (await no_boundary.json())["error"].startswith("not a multipart/form-data body: ")
        broken = (
            b'--b\r\nContent-Disposition: form-data; name="archive"; filename="'
            + b"a" * 200_000
            + b'"\r\n\r\nx\r\n--b--\r\n',
            b"--b\r\nContent-Disposition: \x00;;;\r\n\r\nxx\r\n--b--\r\n",
        )
        for body in broken:  # a part's header too long for aiohttp's parser, a header it refuses
            headers = {**alpha, "Content-Type": "multipart/form-data; boundary=b"}
            response = await client.post(f"{API}/submissions", data=body, headers=headers)
            assert response.status == 400
            assert (await response.json())["error"].startswith("not a multipart/form-data body: ")

    with caplog.at_level(logging.WARNING):
        run_pages(arena_database, tmp_path / "storage", scenario)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], "an error was logged"


async def _login(client: TestClient[Any, Any], token: str) -> tuple[int, str | None]:
    """Log in with ``token`` on a fresh cookie jar: the status and the session cookie (None if refused)."""
    client.session.cookie_jar.clear()
    page = await client.get("/login")
    csrf = re.search(rf'name="{CSRF_FIELD}" value="([^"]+)"', await page.text())
    assert csrf is not None
    done = await client.post("/login", data={CSRF_FIELD: csrf[1], "token": token}, allow_redirects=False)
    cookie = done.cookies.get(COOKIE)
    return done.status, None if cookie is None else cookie.value


async def _logged_in(client: TestClient[Any, Any], cookie: str) -> bool:
    """Whether the session of ``cookie`` is still open (the API knows it)."""
    client.session.cookie_jar.clear()
    response = await client.get(f"{API}/versions", cookies={COOKIE: cookie})
    return response.status in (200, 403)


def test_a_teams_logins_end_only_its_own_sessions(arena_database: str, tmp_path: Path) -> None:
    """With 3 sessions per token, alpha logging in 12 times ends its own oldest sessions alone:
    beta's and the organiser's stay open."""

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], _q: Any) -> None:
        organiser = (await _login(client, tokens["organiser"]))[1]
        beta = (await _login(client, tokens["beta"]))[1]
        assert organiser and beta
        mine = [(await _login(client, tokens["alpha"]))[1] for _ in range(12)]
        assert all(mine)
        assert await _logged_in(client, organiser) and await _logged_in(client, beta)
        assert [await _logged_in(client, c) for c in mine if c] == [False] * 9 + [True] * 3

    run_pages(
        arena_database, tmp_path / "storage", scenario, http=HttpLimits(sessions_per_token=3, logins_per_minute=100)
    )


def test_logins_are_rate_limited_per_client_address(tmp_path: Path) -> None:
    """``logins_per_minute: 4``: the fifth login attempt from one address within the minute is a 429."""

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], _q: Any) -> None:
        statuses = [(await _login(client, tokens["alpha"] if k % 2 else "team_wrong"))[0] for k in range(6)]
        assert statuses == [401, 303, 401, 303, 429, 429]

    run_pages(
        f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "storage",
        scenario,
        http=HttpLimits(logins_per_minute=4),
    )


def test_only_one_archive_of_a_team_is_read_at_a_time(tmp_path: Path) -> None:
    """A team's second upload while its first is still arriving is refused (409) before it is read;
    another team's is not."""

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], _q: Any) -> None:
        assert client.server.port is not None
        reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
        head = (
            f"POST {API}/submissions HTTP/1.1\r\nHost: arena\r\nAuthorization: Bearer {tokens['alpha']}\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n"
            '--b\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.gz"\r\n\r\n\x1f\x8b'
        ).encode()
        writer.write(head)  # the first archive's start, the rest never sent
        await writer.drain()
        await asyncio.sleep(0.3)
        second = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["alpha"]))
        assert second.status == 409
        assert (await second.json())["error"] == "another submission of your team is being read: one at a time"
        other = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["beta"]))
        assert other.status == 201
        writer.close()
        del reader

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)


def test_a_zip_bomb_is_counted_on_what_it_unpacks(tmp_path: Path) -> None:
    """A zip whose member holds 100 MiB of zeros (100 KB packed), its header honest: refused at
    ``max_unpacked_mb`` on the bytes written, the memory bounded."""
    data = zip_of("zeros", bytes(100 * MB))

    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], _q: Any) -> None:
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            response = await client.post(f"{API}/submissions", data=form(data), headers=auth(tokens["alpha"]))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert (response.status, await response.json()) == (422, {"error": "the files unpack to more than 8 MB"})
        assert peak - before < 16 * MB

    run_pages(
        f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "storage",
        scenario,
        submissions=SubmissionLimits(max_unpacked_mb=8),
    )


def test_a_revoked_organiser_token_and_its_web_sessions_stop_working(arena_database: str, tmp_path: Path) -> None:
    """``dealer arena organiser-revoke``: by the token read from stdin, its bearer requests and the
    web session opened with it are refused at once; by id, another token; an unknown one is one line."""
    config = tmp_path / "arena.yaml"
    config.write_text(f"storage: {tmp_path / 'storage'}\ndatabase: '{arena_database}'\n", encoding="utf-8")

    def cli(*args: str, stdin: str = "") -> tuple[int, str]:
        done = CliRunner().invoke(cli_app, ["arena", *args, "-c", str(config)], input=stdin)
        return done.exit_code, done.output.strip()

    async def scenario(client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], _q: Any) -> None:
        organiser = auth(tokens["organiser"])
        second = await repository.add_organiser_token()
        _status, cookie = await _login(client, tokens["organiser"])
        assert cookie is not None and await _logged_in(client, cookie)
        assert (await client.get(f"{API}/teams", headers=organiser)).status == 200
        listed = await asyncio.to_thread(cli, "organiser-tokens")
        assert listed[0] == 0 and re.fullmatch(r"1\t\S+ \S+ UTC\n2\t\S+ \S+ UTC", listed[1]), listed
        revoked = await asyncio.to_thread(cli, "organiser-revoke", "-", stdin=tokens["organiser"] + "\n")
        assert revoked == (0, "organiser token 1 revoked: it and its web sessions no longer work")
        assert (await client.get(f"{API}/teams", headers=organiser)).status == 401
        assert not await _logged_in(client, cookie)
        client.session.cookie_jar.clear()
        page = await client.get("/organiser", cookies={COOKIE: cookie}, allow_redirects=False)
        assert page.status in (303, 401, 403) and "Organiser" not in await page.text()
        assert (await client.get(f"{API}/teams", headers=auth(second))).status == 200
        assert await asyncio.to_thread(cli, "organiser-revoke", "2") == (
            0,
            "organiser token 2 revoked: it and its web sessions no longer work",
        )
        assert (await client.get(f"{API}/teams", headers=auth(second))).status == 401
        assert await asyncio.to_thread(cli, "organiser-revoke", "2") == (2, "error: no organiser token 2")

    run_pages(arena_database, tmp_path / "storage", scenario)
