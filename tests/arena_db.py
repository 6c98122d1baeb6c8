"""The arena's database fixtures: every database test runs on SQLite and on a real PostgreSQL server.

The server is a throw-away cluster started once per test session: ``initdb`` into a temporary
folder, listening on a Unix socket in that folder only (no TCP port), run as the ``postgres``
user when the tests run as root (PostgreSQL refuses root), stopped and deleted at the end. Each
test gets a database of its own. Where PostgreSQL is not installed the PostgreSQL tests fail,
never skip: ``.ci/run`` installs Debian's ``postgresql``.
"""

from __future__ import annotations

import asyncio
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

SUPERUSER = "arena"  # the cluster's own superuser, whatever the OS user that runs it


@dataclass(frozen=True)
class PostgresServer:
    """A running throw-away cluster: the folder of its socket, and a counter for fresh databases."""

    socket_dir: Path
    counter: itertools.count

    def new_database(self) -> str:
        """Create an empty database and return its SQLAlchemy URL (asyncpg over the Unix socket)."""
        name = f"t{next(self.counter)}"

        async def create() -> None:
            connection = await asyncpg.connect(host=str(self.socket_dir), user=SUPERUSER, database="postgres")
            try:
                await connection.execute(f'CREATE DATABASE "{name}"')
            finally:
                await connection.close()

        asyncio.run(create())
        return f"postgresql+asyncpg://{SUPERUSER}@/{name}?host={self.socket_dir}"


def _bin_dir() -> Path:
    """The folder of PostgreSQL's server programs: initdb on PATH, else Debian's versioned folder."""
    on_path = shutil.which("initdb")
    if on_path:
        return Path(os.path.realpath(on_path)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not versions:
        pytest.fail("PostgreSQL is not installed (no initdb): apt-get install postgresql (the arena tests need it)")
    return Path(versions[-1]).parent


def _wait_ready(socket_dir: Path, server: subprocess.Popen[bytes], log: Path, timeout_s: float = 60) -> None:
    """Wait until the server accepts connections on its socket; fail with its log if it exits or never does."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"PostgreSQL exited with {server.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        if (socket_dir / ".s.PGSQL.5432").exists():
            try:
                asyncio.run(_ping(socket_dir))
                return
            except (OSError, asyncpg.PostgresError):
                pass
        time.sleep(0.1)
    pytest.fail(f"PostgreSQL did not accept connections in {timeout_s} s:\n{log.read_text(errors='replace')[-3000:]}")


async def _ping(socket_dir: Path) -> None:
    """One connection and a query: the server is up."""
    connection = await asyncpg.connect(host=str(socket_dir), user=SUPERUSER, database="postgres", timeout=5)
    try:
        await connection.fetchval("SELECT 1")
    finally:
        await connection.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster for the session, on a Unix socket in a temporary folder, removed at the end."""
    binaries = _bin_dir()
    folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    as_user: dict[str, object] = {}
    if os.geteuid() == 0:
        account = pwd.getpwnam("postgres")
        os.chown(folder, account.pw_uid, account.pw_gid)
        as_user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    data, log = folder / "data", folder / "server.log"
    server: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            [binaries / "initdb", "-D", data, "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
            cwd=folder,
            capture_output=True,
            check=True,
            timeout=120,
            **as_user,  # type: ignore[arg-type]
        )
        with open(os.open(log, os.O_WRONLY | os.O_CREAT, 0o644), "wb") as out:
            if as_user:
                os.chown(log, as_user["user"], as_user["group"])  # type: ignore[arg-type]
            server = subprocess.Popen(
                [binaries / "postgres", "-D", data, "-k", folder, "-c", "listen_addresses=", "-c", "fsync=off"],
                cwd=folder,
                stdout=out,
                stderr=subprocess.STDOUT,
                **as_user,  # type: ignore[arg-type]
            )
        _wait_ready(folder, server, log)
        yield PostgresServer(folder, itertools.count(1))
    except subprocess.CalledProcessError as error:
        pytest.fail(f"initdb failed: {error.stderr.decode(errors='replace')[-3000:]}")
    finally:
        if server is not None:
            server.terminate()  # SIGTERM: PostgreSQL's smart shutdown; the connections are all closed by now
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def arena_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database's URL, once on SQLite (a file in the test's folder) and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()
