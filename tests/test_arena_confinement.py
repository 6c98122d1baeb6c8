"""A team controls its own folder and nothing else (issue 31): a hostile team's bot tries, in the real
``dealer arena serve``, to read the arena's database, another team's version and a host file through
its ``run:`` words (relative and absolute), its ``build:`` and links in its folder, and its logs, read
back over its own API, show nothing of them; a link planted out of a team's folder is refused, and
one its bot follows in the sandbox leads nowhere."""

from __future__ import annotations

import asyncio
import io
import os
import re
import secrets
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from conftest import ROOT
from dealer.arena.archive import unpack
from dealer.arena.builds import Builder
from dealer.arena.config import ArenaConfig, BuildLimits
from dealer.arena.layout import build_log, smoke_bot_logs
from dealer.arena.model import BuildState, Version
from dealer.arena.store.schema import migrate
from dealer.arena.store.teams import open_repository
from dealer.config.league_file import game_config

DEALER = Path(sys.executable).parent / "dealer"
STDIO_BOT = (ROOT / "sample_bots" / "python" / "stdio_bot.py").read_bytes()
# The probe prints what it finds at each path it is given (and each relative one beside itself too),
# then plays as the stdio sample bot, so that its smoke test passes and its log is kept.
PROBE = b"""import os, runpy, sys
def look(path):
    try:
        if os.path.isdir(path):
            return "LISTED " + " ".join(sorted(os.listdir(path)))
        with open(path, "rb") as f:
            return "READ " + repr(f.read(300))
    except OSError as error:
        return "nothing (" + str(error.strerror) + ")"
where, *paths = sys.argv[1:]
here = os.path.dirname(os.path.abspath(__file__))
print("PROBE-FILE", where, os.path.abspath(__file__), file=sys.stderr, flush=True)
for path in paths + [os.path.join(here, p) for p in paths if not os.path.isabs(p)]:
    print("PROBE", where, path, "->", look(path), file=sys.stderr, flush=True)
if where == "run":
    runpy.run_path(os.path.join(here, "bot.py"), run_name="__main__")
"""


def _tar(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return out.getvalue()


class Arena:
    """A running ``dealer arena serve`` with teams alpha and beta (its ladder plays their active versions)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.storage = folder / "storage"
        config = folder / "arena.yaml"
        config.write_text(
            f"storage: {self.storage}\nlisten: 127.0.0.1:0\nbuild: {{smoke_hands: 2, timeout_s: 120}}\n"
            "ladder: {jobs: 1, hands: 2, house: false}\ngame: {time: {per_action_ms: 3000, startup_ms: 30000}}\n",
            encoding="utf-8",
        )
        run = [str(DEALER), "arena"]
        subprocess.run([*run, "migrate", "-c", str(config)], capture_output=True, check=True)
        self.tokens = {
            name: subprocess.run(
                [*run, "team", "add", name, "-c", str(config)], capture_output=True, text=True, check=True
            ).stdout.strip()
            for name in ("alpha", "beta")
        }
        self.log = folder / "serve.log"
        with open(self.log, "wb") as out:
            self.server = subprocess.Popen([*run, "serve", str(config)], stderr=out, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not (found := re.search(r"arena on (\S+)/api/v1", self.log.read_text())):
            assert self.server.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.1)
        self.site = found[1]
        self.url = found[1] + "/api/v1"

    def call(self, team: str, method: str, path: str, archive: bytes | None = None) -> tuple[int, Any]:
        """One request of ``team``'s over its own API: the status and the JSON answer."""

        async def go() -> tuple[int, Any]:
            headers = {"Authorization": f"Bearer {self.tokens[team]}"}
            form = None
            if archive is not None:
                form = aiohttp.FormData()
                form.add_field("archive", archive, filename="bot.tar.gz", content_type="application/gzip")
            async with (
                aiohttp.ClientSession() as session,
                session.request(method, self.url + path, headers=headers, data=form) as answer,
            ):
                return answer.status, await answer.json()

        return asyncio.run(go())

    def put(self, team: str, path: str, body: object) -> tuple[int, Any]:
        """A PUT of ``body`` as JSON over ``team``'s API."""

        async def go() -> tuple[int, Any]:
            headers = {"Authorization": f"Bearer {self.tokens[team]}"}
            async with (
                aiohttp.ClientSession() as session,
                session.put(self.url + path, headers=headers, json=body) as answer,
            ):
                return answer.status, await answer.json()

        return asyncio.run(go())

    def match_log(self, team: str, timeout_s: float = 120) -> str:
        """What ``team``'s bot wrote in its first finished ladder match, read as the team reads it on
        its page (logged in with its token)."""

        async def go() -> str:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
                deadline = time.monotonic() + timeout_s
                while True:
                    async with session.get(self.site + "/data/matches") as answer:
                        recent = (await answer.json())["recent"]
                    played = [m for m in recent if team in {s["team"] for s in m["seats"]}]
                    if played:
                        break
                    assert time.monotonic() < deadline, self.log.read_text()[-3000:]
                    await asyncio.sleep(0.5)
                async with session.get(self.site + "/login") as answer:
                    csrf = re.search(r'name="csrf" value="([^"]+)"', await answer.text())
                assert csrf is not None
                form = {"csrf": csrf[1], "token": self.tokens[team]}
                async with session.post(self.site + "/login", data=form, allow_redirects=False) as answer:
                    assert answer.status == 303, await answer.text()
                async with session.get(f"{self.site}/data/team/matches/{played[0]['id']}/log") as answer:
                    assert answer.status == 200, await answer.text()
                    return str((await answer.json())["log"])

        return asyncio.run(go())

    def built(self, team: str, number: int, timeout_s: float = 180) -> dict[str, Any]:
        """Wait until ``team``'s version ``number`` is ready or failed; its build's answer."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            status, build = self.call(team, "GET", f"/versions/{number}/build")
            assert status == 200, build
            if build["state"] in ("ready", "failed"):
                return dict(build)
            time.sleep(0.5)
        pytest.fail(f"{team} v{number} was not built in {timeout_s} s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        self.server.terminate()
        self.server.wait(30)


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    served = Arena(tmp_path)
    try:
        yield served
    finally:
        served.stop()


@pytest.mark.timeout(400)
def test_a_hostile_bot_finds_nothing_of_the_database_other_teams_or_the_host(arena: Arena) -> None:
    host_secret, beta_secret = f"HOST-SECRET-{secrets.token_hex(8)}", f"BETA-SECRET-{secrets.token_hex(8)}"
    host_file = arena.folder / "organiser-notes.txt"  # beside the storage, as tokens files and arena.yaml are
    host_file.write_text(host_secret, encoding="utf-8")
    beta_bot = {
        "bot.yaml": b"protocol: stdio\nrun: python3 bot.py\n",
        "bot.py": STDIO_BOT,
        "beta_only_file.txt": beta_secret.encode(),
    }
    status, beta = arena.call("beta", "POST", "/submissions", _tar(beta_bot))
    assert status == 201, beta
    assert arena.built("beta", 1)["state"] == "ready"
    (beta_build,) = [p.parent for p in (arena.storage / "builds").glob("*/beta_only_file.txt")]
    stored = arena.storage / "versions" / beta["sha256"]
    database = arena.storage / "arena.db"
    assert database.read_bytes().startswith(b"SQLite format 3") and (beta_build / "beta_only_file.txt").is_file()
    secret_paths = [str(database), str(host_file), str(beta_build), str(stored), str(arena.storage)]

    # Relative words that climb out of the folder: refused at submission, in one line naming the word.
    climbing = {
        "bot.yaml": b"protocol: stdio\nrun: python3 probe.py run ../../arena.db ../../../organiser-notes.txt\n",
        "probe.py": PROBE,
        "bot.py": STDIO_BOT,
    }
    status, refused = arena.call("alpha", "POST", "/submissions", _tar(climbing))
    assert status == 422, refused
    assert refused["error"] == (
        "bot.yaml:2: run: '../../arena.db' climbs out of the bot's folder: a bot names only its own files"
    )
    # A link out of the folder: refused at submission (the archive's own check).
    status, refused = arena.call("alpha", "POST", "/submissions", _tar(climbing, {"db": str(database)}))
    assert status == 422 and "a symbolic link to" in refused["error"], refused

    # Absolute words, a build that looks around, links in its own folder: all accepted, and nothing found.
    relative = ["../../arena.db", "../../../organiser-notes.txt", f"../../builds/{beta_build.name}", "../../versions"]
    words = " ".join(secret_paths)
    hostile = {
        "bot.yaml": (
            f"protocol: stdio\nbuild: python3 probe.py build {' '.join(relative)} {words}\n"
            f"run: python3 here/probe.py run {words} here/here /bot/here/here\n"
        ).encode(),
        "probe.py": PROBE,
        "bot.py": STDIO_BOT,
    }
    status, version = arena.call("alpha", "POST", "/submissions", _tar(hostile, {"here": "."}))
    assert status == 201, version
    build = arena.built("alpha", version["version"])
    status, bot_log = arena.call("alpha", "GET", f"/versions/{version['version']}/bot-log")
    assert status == 200
    logs = build["log"] + bot_log["log"]
    assert build["state"] == "ready", logs
    probes = re.findall(r"^PROBE (build|run) (\S+) -> (.*)$", logs, re.MULTILINE)
    tried = {(where, path) for where, path, _ in probes}
    assert {("run", p) for p in secret_paths} | {("build", p) for p in secret_paths} <= tried, logs
    assert {("build", p) for p in relative} <= tried, logs
    for where, path, found in probes:
        own = path == "/bot" or path.startswith(("/bot/", "/home/bot/"))  # its own folder, through its links
        assert found.startswith("nothing") or own, f"{where}: {path} -> {found}"
    assert "PROBE run /bot -> LISTED bot.py bot.yaml here probe.py" in logs, logs  # here/here: its folder
    assert "PROBE run /bot/here/here -> LISTED bot.py bot.yaml here probe.py" in logs, logs
    assert "PROBE-FILE run /bot/probe.py" in logs, "the bot runs from its folder in the sandbox, not a host path"
    for secret in ("SQLite format 3", host_secret, beta_secret, "beta_only_file"):
        assert secret not in logs, f"{secret!r} leaked:\n{logs}"

    # In the ladder (a ranked match against beta): the same, as its team reads its match log.
    assert arena.put("beta", "/active", {"version": 1})[0] == 200
    assert arena.put("alpha", "/active", {"version": version["version"]})[0] == 200
    played = arena.match_log("alpha")
    assert "PROBE-FILE run /bot/probe.py" in played and f"PROBE run {database} -> nothing" in played, played
    for secret in ("SQLite format 3", host_secret, beta_secret, "beta_only_file"):
        assert secret not in played, f"{secret!r} leaked in a ladder match:\n{played}"


def _store(config: ArenaConfig, files: dict[str, bytes], plant: dict[str, str]) -> tuple[str, dict[str, object]]:
    """Unpack ``files`` and plant the links ``plant`` (name -> target) in the stored version, as if
    the archive's check of links had been passed: what the launch must refuse by itself."""
    stored = unpack(_tar(files), config.storage, config.submissions)
    os.chmod(stored.folder, 0o755)
    for name, target in plant.items():
        os.symlink(target, stored.folder / name)
    os.chmod(stored.folder, 0o555)
    fields: dict[str, object] = {"files": stored.files, "size": stored.size, "protocol": "stdio"}
    return stored.digest, {**fields, "run": stored.manifest.run, "build": stored.manifest.build}


@pytest.mark.timeout(200)
def test_a_link_out_of_a_teams_folder_is_refused_or_leads_nowhere(tmp_path: Path) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("HOST-SECRET-planted", encoding="utf-8")
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = ArenaConfig(
        storage=tmp_path / "storage",
        database=database,
        build=BuildLimits(timeout_s=60, smoke_hands=2),
        game=game_config(time={"per_action_ms": 3000, "startup_ms": 30000}),
    )
    asyncio.run(migrate(database))
    named = {"bot.yaml": b"protocol: stdio\nrun: python3 probe.py run leak\n", "probe.py": PROBE, "bot.py": STDIO_BOT}
    followed = {**named, "bot.yaml": b"protocol: stdio\nrun: python3 probe.py run /bot/leak /bot\n"}

    async def scenario() -> list[Version]:
        async with open_repository(database) as repository:
            team, _ = await repository.add_team("alpha")
            builder = Builder(repository, config)
            built = []
            for files in (named, followed):
                digest, fields = _store(config, files, {"leak": str(secret)})
                version, _ = await repository.add_version(team, digest=digest, **fields)
                built.append(await builder.build(version))
            return built

    named_version, followed_version = asyncio.run(asyncio.wait_for(scenario(), 150))
    log = build_log(config.storage, named_version).read_text(encoding="utf-8")
    assert named_version.state is BuildState.FAILED and named_version.smoke is None, log
    assert "[arena] refused: version v1: its command names 'leak', which is not in its own folder\n" in log, log
    text = "".join(p.read_text() for p in smoke_bot_logs(config.storage, followed_version))
    assert followed_version.state is BuildState.READY, build_log(config.storage, followed_version).read_text()
    assert "PROBE run /bot/leak -> nothing (No such file or directory)" in text, text
    assert "PROBE run /bot -> LISTED bot.py bot.yaml leak probe.py" in text, text
    assert "HOST-SECRET" not in text
