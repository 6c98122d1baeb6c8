"""``arena.yaml`` into a validated, frozen ``ArenaConfig``, with the league file's readers.

Every problem is reported at once, one line each, ``file:line: key.path: problem`` (a
``LeagueConfigError``, as for a league). Reference format (every key optional)::

    storage: arena               # the arena's folder (relative to this file): submissions, logs,
                                 #   the default SQLite database; default "arena" beside the file
    database: sqlite:///arena/arena.db
                                 # a SQLAlchemy URL: sqlite:// (the default, ARENA_DIR/arena.db;
                                 #   relative paths from this file's folder) or postgresql://
                                 #   (asyncpg); the async drivers are implied
    listen: 127.0.0.1:8090       # host:port of the HTTP API (port 0 = any free port)
    submissions:
      max_archive_mb: 16         # 1..1024: an upload larger than this is refused unread
      max_unpacked_mb: 64        # 1..4096: the files of one version, added up
      max_files: 1000            # 1..100000
      max_path: 200              # 1..4096: characters of a file's path inside the archive
      per_hour: 20               # 1..10000: submissions a team may make in any hour
    build:
      timeout_s: 300             # 1..86400: a build's wall-clock time (and CPU time) before it is killed
      memory_mb: 2048            # 16..1048576: the build's memory (a cgroup where there is one)
      log_kb: 256                # 1..1048576: the build's output kept in its log (the rest dropped)
      processes: 256             # 1..1048576 (as root, with limits.user set: RLIMIT_NPROC)
      smoke_hands: 20            # 1..10000: hands per seat rotation of the smoke test, a sealed
                                 #   duplicate match against the house bot that must not fault
    limits: {...}                # the league file's `limits:` (the bots' sandbox), same keys and checks
    game: {...}                  # the league file's `game:`, same keys and checks
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from yaml.nodes import MappingNode, Node

from dealer.config import (
    _GAME_KEYS,
    _LIMIT_KEYS,
    MAX_LIMIT,
    GameConfig,
    LeagueConfigError,
    Limits,
    _Ctx,
    _int,
    _listen,
    _mapping,
    _parse_game,
    _parse_limits,
    _read,
    _str,
    _sublayers,
)
from dealer.config_read import MAX_MS, parse_checked

__all__ = [
    "ArenaConfig",
    "BuildLimits",
    "SubmissionLimits",
    "database_url",
    "load_arena",
    "parse_arena",
    "read_document",
]

_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}


@dataclass(frozen=True, slots=True)
class SubmissionLimits:
    """What one submission may hold, and how often a team may submit."""

    max_archive_mb: int = 16
    max_unpacked_mb: int = 64
    max_files: int = 1000
    max_path: int = 200
    per_hour: int = 20


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """How a version is built (in the bots' sandbox, no network) and smoke-tested."""

    timeout_s: int = 300
    memory_mb: int = 2048
    log_kb: int = 256
    processes: int = 256
    smoke_hands: int = 20


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """A whole arena: where it keeps its data, where it listens, and the rules its bots play by."""

    storage: Path
    database: str
    listen: str = "127.0.0.1:8090"
    submissions: SubmissionLimits = field(default_factory=SubmissionLimits)
    build: BuildLimits = field(default_factory=BuildLimits)
    limits: Limits = field(default_factory=Limits)
    game: GameConfig = field(default_factory=GameConfig)
    path: Path | None = None


def database_url(text: str, folder: Path) -> str:
    """The async SQLAlchemy URL of ``text`` (sqlite:// or postgresql://, the async driver implied; a
    relative SQLite path taken from ``folder``); raises ValueError with the reason otherwise."""
    try:
        url: URL = make_url(text)
    except ArgumentError:
        raise ValueError(f"not a database URL: {text!r}") from None
    backend, _, driver = url.drivername.partition("+")
    if backend not in _DRIVERS or (driver and f"{backend}+{driver}" != _DRIVERS[backend]):
        raise ValueError(f"expected a sqlite:// or postgresql:// URL (drivers aiosqlite, asyncpg), got {text!r}")
    url = url.set(drivername=_DRIVERS[backend])
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise ValueError("a SQLite database needs a file path (an in-memory database forgets the arena)")
        if not Path(url.database).is_absolute():
            url = url.set(database=str(folder / url.database))
    return url.render_as_string(hide_password=False)


_SUBMISSION_KEYS = ("max_archive_mb", "max_unpacked_mb", "max_files", "max_path", "per_hour")
_BUILD_KEYS = ("timeout_s", "memory_mb", "log_kb", "processes", "smoke_hands")
_TOP_KEYS = ("storage", "database", "listen", "submissions", "build", "limits", "game")


def _parse_top(ctx: _Ctx, root: Node, path: Path | None) -> ArenaConfig | None:
    """Build the ArenaConfig of a document's root node."""
    fields = _mapping(ctx, root, "", _TOP_KEYS)
    if fields is None:
        return None
    top = [(fields, "")]
    storage_text = _read(ctx, top, "storage", _str, "arena")
    storage = ctx.folder / storage_text
    database = database_url(f"sqlite:///{storage / 'arena.db'}", ctx.folder)
    if "database" in fields:
        text = _str(ctx, fields["database"], "database")
        if text is not None:
            try:
                database = database_url(text, ctx.folder)
            except ValueError as exc:
                ctx.error(fields["database"], "database", str(exc))
    sub = _sublayers(ctx, top, "submissions", _SUBMISSION_KEYS)
    d = SubmissionLimits()
    submissions = SubmissionLimits(
        max_archive_mb=_read(ctx, sub, "max_archive_mb", _int(1, 1024), d.max_archive_mb),
        max_unpacked_mb=_read(ctx, sub, "max_unpacked_mb", _int(1, 4096), d.max_unpacked_mb),
        max_files=_read(ctx, sub, "max_files", _int(1, 100_000), d.max_files),
        max_path=_read(ctx, sub, "max_path", _int(1, 4096), d.max_path),
        per_hour=_read(ctx, sub, "per_hour", _int(1, 10_000), d.per_hour),
    )
    built = _sublayers(ctx, top, "build", _BUILD_KEYS)
    b = BuildLimits()
    build = BuildLimits(
        timeout_s=_read(ctx, built, "timeout_s", _int(1, MAX_MS // 1000), b.timeout_s),
        memory_mb=_read(ctx, built, "memory_mb", _int(16, MAX_LIMIT), b.memory_mb),
        log_kb=_read(ctx, built, "log_kb", _int(1, MAX_LIMIT), b.log_kb),
        processes=_read(ctx, built, "processes", _int(1, MAX_LIMIT), b.processes),
        smoke_hands=_read(ctx, built, "smoke_hands", _int(1, 10_000), b.smoke_hands),
    )
    return ArenaConfig(
        storage=storage,
        database=database,
        listen=_read(ctx, top, "listen", _listen, "127.0.0.1:8090"),
        submissions=submissions,
        build=build,
        limits=_parse_limits(ctx, _sublayers(ctx, top, "limits", _LIMIT_KEYS)),
        game=_parse_game(ctx, _sublayers(ctx, top, "game", _GAME_KEYS)),
        path=path,
    )


def read_document(text: str, filename: str, folder: Path) -> tuple[_Ctx, Node]:
    """The error collector and root node of a YAML document (an empty one reads as ``{}``); a YAML
    syntax error is a LeagueConfigError of one ``file:line:`` line."""
    ctx = _Ctx(filename, folder)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        raise LeagueConfigError([f"{filename}:{mark.line + 1 if mark else 1}: YAML syntax error: {problem}"]) from None
    except yaml.YAMLError as exc:  # a control character YAML does not allow
        raise LeagueConfigError([f"{filename}:1: not YAML: {exc}"]) from None
    if root is None:
        mark = yaml.Mark(filename, 0, 0, 0, None, 0)
        root = MappingNode("tag:yaml.org,2002:map", [], mark, mark)
    return ctx, root


def parse_arena(text: str, filename: str = "<string>") -> ArenaConfig:
    """Parse an arena's YAML text; relative paths resolve against ``filename``'s folder (or the cwd).

    Raises LeagueConfigError listing every problem, each as ``file:line: key.path: message``.
    """
    path = None if filename.startswith("<") else Path(filename).resolve()
    ctx, root = read_document(text, filename, path.parent if path is not None else Path.cwd())
    return parse_checked(ctx, lambda: _parse_top(ctx, root, path))


def load_arena(path: str | Path) -> ArenaConfig:
    """Read and parse an arena file (see the module docstring); unreadable or non-UTF-8 is one line."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise LeagueConfigError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    except UnicodeDecodeError as exc:
        raise LeagueConfigError([f"{path}: not UTF-8 (byte offset {exc.start}); save the file as UTF-8"]) from None
    return parse_arena(text, str(path))
