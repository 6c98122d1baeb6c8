"""Shared helpers for the end-to-end tests: bot command lines, running a real match, reading PHH.

``run_match`` starts a real ``DealerServer`` on 127.0.0.1:0, launches the bots as real processes
and plays ``Match(...).run()`` in a fresh event loop. It returns what the tests check afterwards:
the plan, the result, the bots' pids and tokens, and the dealer's authentication failures.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena_db import arena_database, postgres_server  # noqa: F401  (the arena's fixtures: SQLite and PostgreSQL)
from dealer.config.league_file import game_config
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.stats.records import MatchResult

ROOT = Path(__file__).resolve().parents[1]
# Where the browser tests save the README's screenshots: docs/ when asked (DEALER_SCREENSHOTS=1),
# else a folder in the temporary directory, so that a test run leaves the checkout as it was.
SHOTS = ROOT / "docs" if os.environ.get("DEALER_SCREENSHOTS") == "1" else Path(tempfile.gettempdir(), "dealer-shots")
PY_BOTS = ROOT / "sample_bots" / "python"
NODE_BOT = ROOT / "sample_bots" / "node" / "bot.js"
RECORDER_BOT = ROOT / "tests" / "bots" / "recorder_bot.py"
VARIANTS = ("no-limit", "pot-limit", "fixed-limit", "mixed")
# Generous clocks: a loaded test machine must not turn into timeouts (faults) of well-behaved bots.
TIME = {"per_action_ms": 5000, "bank_ms": 60000, "grace_ms": 200, "startup_ms": 30000}


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """Give every test the dealer's loggers as the test before found them: a command run in
    process (``dealer run``, ``dealer arena serve``) sets their handlers, level and propagation for
    the whole process, which would hide later tests' records from their log capture."""
    names = ("dealer", "asyncio", *(name for name in logging.root.manager.loggerDict if name.startswith("aiohttp")))
    kept = {name: logging.getLogger(name) for name in names}
    state = {name: (list(lg.handlers), list(lg.filters), lg.level, lg.propagate) for name, lg in kept.items()}
    yield
    for name, (handlers, filters, level, propagate) in state.items():
        logger = kept[name]
        for handler in logger.handlers:
            if handler not in handlers:
                handler.close()
        logger.handlers[:], logger.filters[:] = handlers, filters
        logger.setLevel(level)
        logger.propagate = propagate


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test stale code: a module that mypyc compiled at install, older than its source;
    with ``DEALER_PURE`` set (``make test-pure``), refuse to test compiled code at all."""
    if os.environ.get("DEALER_PURE"):
        import dealer.engine.rules

        if not dealer.engine.rules.__file__ or not dealer.engine.rules.__file__.endswith(".py"):
            pytest.exit(
                f"DEALER_PURE is set but the compiled {dealer.engine.rules.__file__} was imported", returncode=2
            )
        return
    for compiled in (ROOT / "dealer").rglob("*.so"):
        source = compiled.with_name(compiled.name.split(".")[0] + ".py")
        if source.exists() and source.stat().st_mtime > compiled.stat().st_mtime:
            pytest.exit(
                f"{source.relative_to(ROOT)} changed after it was compiled: run `make setup` "
                "(or `pip install -e .`) again",
                returncode=2,
            )


def node_command() -> tuple[str, ...]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is not installed: the Node sample bot needs `node` on PATH")
    if not (NODE_BOT.parent / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.fail("sample_bots/node/node_modules is missing: run `npm ci` in sample_bots/node")
    return (node, str(NODE_BOT))


def bot_command(kind: str, *, bot_seed: str | None = None) -> tuple[str, ...]:
    """The command of a sample bot: node, random, strength, call, raise (or recorder).

    Launched bots get a minimal environment, so ``bot_seed`` (BOT_SEED) goes through ``env``.
    """
    if kind == "node":
        return node_command()
    script = RECORDER_BOT if kind == "recorder" else PY_BOTS / f"{kind}_bot.py"
    argv = (sys.executable, str(script))
    return ("env", f"BOT_SEED={bot_seed}", *argv) if bot_seed is not None else argv


@pytest.fixture(scope="session")
def stdio_samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, ...]]:
    """The C, Java and Rust stdio sample bots, built from source for this test run: commands by language."""
    out = tmp_path_factory.mktemp("stdio-samples")
    done = subprocess.run(
        ["bash", str(ROOT / "sample_bots" / "build.sh"), str(out)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"sample_bots/build.sh failed: {done.stderr.strip()}")
    return {
        "c": (str(out / "c" / "bot"),),
        "java": ("java", "-cp", str(out / "java" / "build"), "Bot"),
        "rust": (str(out / "rust" / "bot"),),
    }


@pytest.fixture(scope="session")
def acpc_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's ACPC reference client (tests/bots/acpc_client.c), compiled for this test run."""
    binary = tmp_path_factory.mktemp("acpc") / "acpc_client"
    done = subprocess.run(
        [
            "gcc",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-o",
            str(binary),
            str(ROOT / "tests" / "bots" / "acpc_client.c"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"cannot build the ACPC reference client: {done.stderr.strip()}")
    return binary


@dataclass
class MatchRun:
    plan: MatchPlan
    result: MatchResult
    out: Path
    pids: dict[str, int]
    tokens: dict[str, str]
    auth_failures: dict[str, int]


def run_match(
    out: Path,
    bots: Mapping[str, Sequence[str]],
    *,
    variant: str = "no-limit",
    hands: int = 20,
    seed: str | None = "e2e-seed",
    ante: int = 0,
    duplicate: bool = True,
    tables: int = 1,
    rake_percent: float = 0.0,
    rake_cap: int = 0,
    stack: int = 20000,
    blinds: tuple[int, int] = (50, 100),
    mixed: Mapping[str, object] | None = None,
    mode: str = "reset",
    protocols: Mapping[str, str] | None = None,
    time: Mapping[str, int] | None = None,
    sealed: bool = True,
) -> MatchRun:
    """Play a real match between ``bots`` (name -> command, in seat order); ``hands`` per table.
    ``protocols``: a bot's protocol when not gRPC (name -> "stdio"); ``time``: other clocks;
    ``sealed``: each bot a process per table of a deal set (the default) or one process for all."""
    game = game_config(
        variant=variant,
        blinds=blinds,
        ante=ante,
        stack=stack,
        rake_percent=rake_percent,
        rake_cap=rake_cap,
        mixed=mixed,
        time=dict(time or TIME),
    )
    names = list(bots)
    plan = MatchPlan(
        match_id="e2e",
        tables=plan_tables(names, duplicate=duplicate, tables=tables),
        game=game,
        hands=hands,
        seed=seed,
        mode=mode,
        sealed=sealed,
    )
    entries = {
        name: MatchBot(name, tuple(command), protocol=(protocols or {}).get(name, "grpc"))
        for name, command in bots.items()
    }

    async def play() -> MatchRun:
        async with DealerServer("127.0.0.1:0") as server:
            match = Match(plan, server, entries, out=out, base=ROOT, records=True)
            result = await match.run()
            pids = {}
            for name, seat in match.seats.items():  # an ACPC bot is a process per table
                for k, process in enumerate(getattr(seat.process, "processes", [seat.process] if seat.process else [])):
                    pids[name if k == 0 else f"{name}.seat{k}"] = process.process.pid
            tokens = {name: seat.session.token for name, seat in match.seats.items()}
            return MatchRun(plan, result, out, pids, tokens, dict(server.auth_failures))

    return asyncio.run(play())


# ------------------------------------------------------------------------------------------ PHH


@dataclass(frozen=True)
class PhhHand:
    """One hand of a .phhs file: its text, its fields, and cards by 0-based table seat."""

    text: str
    fields: dict

    @property
    def number(self) -> int:
        return self.fields["hand"]

    @property
    def table_seats(self) -> list[int]:
        """0-based table seat of each position."""
        return [s - 1 for s in self.fields["seats"]]

    def hole_by_position(self) -> list[str]:
        holes = {}
        for action in self.fields["actions"]:
            words = action.split()
            if words[:2] == ["d", "dh"]:
                holes[int(words[2][1:]) - 1] = words[3]
        return [holes[k] for k in range(len(holes))]

    def hole_by_seat(self) -> dict[int, list[str]]:
        return {seat: split_cards(cards) for seat, cards in zip(self.table_seats, self.hole_by_position(), strict=True)}

    def board(self) -> list[str]:
        return [c for a in self.fields["actions"] if a.startswith("d db ") for c in split_cards(a.split()[2])]

    def shown_by_seat(self) -> dict[int, list[str]]:
        seats = self.table_seats
        shown = {}
        for action in self.fields["actions"]:
            words = action.split()
            if len(words) == 3 and words[1] == "sm":
                shown[seats[int(words[0][1:]) - 1]] = split_cards(words[2])
        return shown

    def net_by_player(self) -> dict[str, int]:
        f = self.fields
        return {
            name: end - start
            for name, start, end in zip(f["players"], f["starting_stacks"], f["finishing_stacks"], strict=True)
        }

    @property
    def rake(self) -> int:
        return self.fields.get("_rake", 0)


def split_cards(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def read_phhs(path: Path) -> list[PhhHand]:
    """The hands of a .phhs file, in order (tables ``[1]``, ``[2]``, ...)."""
    text = path.read_text(encoding="utf-8")
    parts = re.split(r"^\[(\d+)\]\n", text, flags=re.MULTILINE)
    assert parts[0] == "", f"{path} does not start with a table header"
    hands = []
    for k in range(1, len(parts), 2):
        assert int(parts[k]) == len(hands) + 1, f"{path}: table [{parts[k]}] out of order"
        hands.append(PhhHand(parts[k + 1], tomllib.loads(parts[k + 1])))
    assert tomllib.loads(text).keys() == {str(k) for k in range(1, len(hands) + 1)}
    return hands


def history_path(out: Path, deal_set: str, rotation: int) -> Path:
    (path,) = (out / "hands").glob(f"table-*-{deal_set.replace('/', '-')}-r{rotation}.phhs")
    return path


def _mount_source(path: Path) -> tuple[str, str]:
    """(device, path inside its filesystem) of ``path``, as /proc/*/mountinfo names a bind of it."""
    best = ("", "", "")
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        root, point = (f.encode().decode("unicode_escape") for f in fields[3:5])
        if (str(path) + "/").startswith(point.rstrip("/") + "/") and len(point) > len(best[2]):
            best = (fields[2], root, point)
    device, root, point = best
    return device, root.rstrip("/") + "/" + str(path)[len(point) :].lstrip("/")


def _open_under(entry: Path, marker: str) -> bool:
    """Whether process ``entry`` holds a folder under ``marker`` open (a sandboxed bot's launcher
    holds its scratch folder open to copy HOME into it; a Dask worker's open log file is not a bot)."""
    try:
        links = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
    except OSError:
        return False
    return any((link + "/").startswith(marker) and os.path.isdir(link) for link in links)


def processes_under(folder: Path) -> list[tuple[int, str]]:
    """Live processes (other than this one) whose command line or working folder is under ``folder``,
    that have a part of ``folder`` mounted or open (a sandboxed bot's launcher: its scratch folder),
    or that share a pid namespace with one that has (the rest of a sandbox: its bot and daemons)."""
    found: dict[int, str] = {}
    marker = str(folder) + "/"
    device, inside = _mount_source(folder)
    live: dict[int, str] = {}  # pid -> command line
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            try:
                cwd = os.readlink(entry / "cwd")
            except OSError:
                cwd = ""
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            mounts = [line.split()[2:4] for line in (entry / "mountinfo").read_text().splitlines()]
        except OSError:
            continue
        if state == "Z":
            continue
        live[int(entry.name)] = cmdline
        mounted = any(dev == device and (root + "/").startswith(inside.rstrip("/") + "/") for dev, root in mounts)
        if marker in cmdline or (cwd + "/").startswith(marker) or mounted or _open_under(entry, marker):
            found[int(entry.name)] = cmdline
    sandboxes = {_pid_namespace(pid) for pid in found} - {_pid_namespace(os.getpid()), None}
    for pid, cmdline in live.items():
        if pid not in found and _pid_namespace(pid) in sandboxes:
            found[pid] = cmdline
    return sorted(found.items())


def _pid_namespace(pid: int) -> str | None:
    """The pid namespace of ``pid`` (``pid:[inode]``), None if it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None
