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
    http:                        # what one client of the API and the pages may take
      max_body_kb: 64            # 1..1048576: a request's body, checked before it is read (a team's
                                 #   submission alone may send max_archive_mb, streamed to disk)
      connections_per_client: 64 # 1..100000: open connections from one address (more are closed at once)
      header_timeout_s: 10       # 1..3600: a connection's time to send a request's headers (and to
                                 #   stay idle between requests) before it is closed
      body_timeout_s: 120        # 1..86400: a request's time to send its body, an archive too (408 past it)
      logins_per_minute: 10      # 1..10000: web logins from one address, and with one token
      sessions_per_token: 20     # 1..10000: web sessions open per token (a login beyond ends the oldest)
    build:
      timeout_s: 300             # 1..86400: a build's wall-clock time (and CPU time) before it is killed
      memory_mb: 2048            # 16..1048576: the build's memory (a cgroup where there is one)
      log_kb: 256                # 1..1048576: the build's output kept in its log (the rest dropped)
      processes: 256             # 1..1048576: tasks at once (a pids cgroup; also RLIMIT_NPROC with limits.user)
      smoke_hands: 20            # 1..10000: hands per seat rotation of the smoke test, a sealed
                                 #   duplicate match against the house bot that must not fault
      toolchains: [python, node, gcc, javac, rustc]
                                 # what a build may call (the default: all of them), on its PATH
                                 #   beside the shell's basic tools; python is the dealer's, with the SDK
    ladder:                      # the ladder `dealer arena serve` runs among the teams' active versions
      jobs: 2                    # 0..1024: matches played at once (0: no ladder)
      lookahead: 0               # 0..100000: ranked matches picked ahead of the last one rated (0: twice
                                 #   jobs); a match is picked from the ratings `lookahead` matches
                                 #   before it, so the same seed and submissions pick the same matches
      hands: 100                 # 1..100000: hands per seat rotation (a match is sealed duplicate)
      table_size: 2              # 2..10: seats per table, one version per team at a table
      new_share: 0.25            # 0..1: share of matches started from a version with few games
      few_games: 10              # 0..1000000: "few games"
      window: 5.0                # 0..1000: opponents' mu within this of the first version's
      least_met_every: 4         # 0..1000: every this many ranked matches, the two versions that have
                                 #   met least play (0: never); so with n teams every pair has met
                                 #   within least_met_every * n * (n - 1) / 2 ranked matches
      k: 3.0                     # 0..10: teams ranked by their active version's mu - k sigma
      pause_share: 0.1           # 0..1: a version crashing or timing out in more of its matches is paused
      pause_after: 10            # 1..1000000: ... once it has played this many
      scrimmages_per_hour: 10    # 0..1000: scrimmages a team may ask for in any hour
      house: true                # the house bot (it always calls) plays in the ladder, never paused
      seed: TEXT                 # the ladder's secret seed (its deal sets ladder/<d>); by default one
                                 #   is drawn at the first start and kept in the database
    limits: {...}                # the league file's `limits:` (the bots' sandbox), same keys and checks
    team_uids: 200000            # 1000..2000000000: each team's bots and builds run as a uid (and gid)
                                 #   of its own, this + the team's number in the database, unused on
                                 #   the host (needs root; instead of limits.user); default: all as
                                 #   limits.user (or the dealer's uid)
    game: {...}                  # the league file's `game:`, same keys and checks
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from yaml.nodes import MappingNode, Node, SequenceNode

from dealer.arena.ladder import Matchmaking, PauseRule
from dealer.arena.layout import database_file
from dealer.arena.toolchains import Toolchain
from dealer.config.game import GAME_KEYS, GameConfig, parse_game
from dealer.config.league_file import LIMIT_KEYS, Limits, listen_address, parse_limits
from dealer.config.read import (
    MAX_LIMIT,
    MAX_MS,
    Ctx,
    Layer,
    LeagueConfigError,
    choice,
    float_between,
    integer,
    mapping,
    parse_checked,
    read_bool,
    read_key,
    read_text,
    string,
    sublayers,
)

__all__ = [
    "ArenaConfig",
    "BuildLimits",
    "HttpLimits",
    "LadderSettings",
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
class HttpLimits:
    """What one client of the API and the pages may take: bodies, connections, time, logins."""

    max_body_kb: int = 64
    connections_per_client: int = 64
    header_timeout_s: int = 10
    body_timeout_s: int = 120
    logins_per_minute: int = 10
    sessions_per_token: int = 20


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """How a version is built (in the bots' sandbox, no network) and smoke-tested."""

    timeout_s: int = 300
    memory_mb: int = 2048
    log_kb: int = 256
    processes: int = 256
    smoke_hands: int = 20
    toolchains: tuple[Toolchain, ...] = tuple(Toolchain)


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """The ladder's settings: how many matches at once, how long, how they are picked and rated."""

    jobs: int = 2
    lookahead: int = 0
    hands: int = 100
    matchmaking: Matchmaking = field(default_factory=Matchmaking)
    k: float = 3.0
    pause: PauseRule = field(default_factory=PauseRule)
    scrimmages_per_hour: int = 10
    house: bool = True
    seed: str | None = None

    @property
    def ahead(self) -> int:
        """Ranked matches picked ahead of the last one rated."""
        return self.lookahead or max(1, 2 * self.jobs)


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """A whole arena: where it keeps its data, where it listens, and the rules its bots play by."""

    storage: Path
    database: str
    listen: str = "127.0.0.1:8090"
    submissions: SubmissionLimits = field(default_factory=SubmissionLimits)
    http: HttpLimits = field(default_factory=HttpLimits)
    build: BuildLimits = field(default_factory=BuildLimits)
    ladder: LadderSettings = field(default_factory=LadderSettings)
    limits: Limits = field(default_factory=Limits)
    game: GameConfig = field(default_factory=GameConfig)
    path: Path | None = None
    team_uids: int | None = None  # a team's uid and gid: this + its id (None: limits.user for every team)

    def limits_for(self, team_id: int) -> Limits:
        """The limits a team's bots and builds run under: ``limits``, as its own user with ``team_uids``."""
        if self.team_uids is None:
            return self.limits
        uid = self.team_uids + team_id
        return replace(self.limits, user=f"{uid}:{uid}")


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
_HTTP_KEYS = (
    "max_body_kb",
    "connections_per_client",
    "header_timeout_s",
    "body_timeout_s",
    "logins_per_minute",
    "sessions_per_token",
)
_BUILD_KEYS = ("timeout_s", "memory_mb", "log_kb", "processes", "smoke_hands", "toolchains")
_LADDER_KEYS = (
    "jobs",
    "lookahead",
    "hands",
    "table_size",
    "new_share",
    "few_games",
    "window",
    "least_met_every",
    "k",
    "pause_share",
    "pause_after",
    "scrimmages_per_hour",
    "house",
    "seed",
)
_TOP_KEYS = ("storage", "database", "listen", "submissions", "http", "build", "ladder", "limits", "game", "team_uids")


def _parse_ladder(ctx: Ctx, layers: list[Layer]) -> LadderSettings:
    """The ``ladder:`` mapping (every key optional)."""
    d, m, p = LadderSettings(), Matchmaking(), PauseRule()
    return LadderSettings(
        jobs=read_key(ctx, layers, "jobs", integer(0, 1024), d.jobs),
        lookahead=read_key(ctx, layers, "lookahead", integer(0, 100_000), d.lookahead),
        hands=read_key(ctx, layers, "hands", integer(1, 100_000), d.hands),
        matchmaking=Matchmaking(
            table_size=read_key(ctx, layers, "table_size", integer(2, 10), m.table_size),
            new_share=read_key(ctx, layers, "new_share", float_between(0, 1), m.new_share),
            few_games=read_key(ctx, layers, "few_games", integer(0, 1_000_000), m.few_games),
            window=read_key(ctx, layers, "window", float_between(0, 1000), m.window),
            least_met_every=read_key(ctx, layers, "least_met_every", integer(0, 1000), m.least_met_every),
        ),
        k=read_key(ctx, layers, "k", float_between(0, 10), d.k),
        pause=PauseRule(
            share=read_key(ctx, layers, "pause_share", float_between(0, 1), p.share),
            after=read_key(ctx, layers, "pause_after", integer(1, 1_000_000), p.after),
        ),
        scrimmages_per_hour=read_key(ctx, layers, "scrimmages_per_hour", integer(0, 1000), d.scrimmages_per_hour),
        house=read_key(ctx, layers, "house", read_bool, d.house),
        seed=read_key(ctx, layers, "seed", string, "") or None,
    )


def _toolchains(ctx: Ctx, node: Node, path: str) -> tuple[Toolchain, ...] | None:
    """Read a list of toolchain names, each known (the error names the known ones) and listed once."""
    if not isinstance(node, SequenceNode):
        ctx.error(node, path, f"expected a list of toolchains ({', '.join(Toolchain)})")
        return None
    listed: list[Toolchain] = []
    for index, item in enumerate(node.value):
        toolchain = choice(Toolchain)(ctx, item, f"{path}[{index}]")
        if toolchain in listed:
            ctx.error(item, f"{path}[{index}]", f"{toolchain} is listed twice")
        elif toolchain is not None:
            listed.append(toolchain)
    return tuple(listed) if len(listed) == len(node.value) else None


def _parse_top(ctx: Ctx, root: Node, path: Path | None) -> ArenaConfig | None:
    """Build the ArenaConfig of a document's root node."""
    fields = mapping(ctx, root, "", _TOP_KEYS)
    if fields is None:
        return None
    top = [(fields, "")]
    storage_text = read_key(ctx, top, "storage", string, "arena")
    storage = ctx.folder / storage_text
    database = database_url(f"sqlite:///{database_file(storage)}", ctx.folder)
    if "database" in fields:
        text = string(ctx, fields["database"], "database")
        if text is not None:
            try:
                database = database_url(text, ctx.folder)
            except ValueError as exc:
                ctx.error(fields["database"], "database", str(exc))
    sub = sublayers(ctx, top, "submissions", _SUBMISSION_KEYS)
    d = SubmissionLimits()
    submissions = SubmissionLimits(
        max_archive_mb=read_key(ctx, sub, "max_archive_mb", integer(1, 1024), d.max_archive_mb),
        max_unpacked_mb=read_key(ctx, sub, "max_unpacked_mb", integer(1, 4096), d.max_unpacked_mb),
        max_files=read_key(ctx, sub, "max_files", integer(1, 100_000), d.max_files),
        max_path=read_key(ctx, sub, "max_path", integer(1, 4096), d.max_path),
        per_hour=read_key(ctx, sub, "per_hour", integer(1, 10_000), d.per_hour),
    )
    served = sublayers(ctx, top, "http", _HTTP_KEYS)
    h = HttpLimits()
    http = HttpLimits(
        max_body_kb=read_key(ctx, served, "max_body_kb", integer(1, 1_048_576), h.max_body_kb),
        connections_per_client=read_key(
            ctx, served, "connections_per_client", integer(1, 100_000), h.connections_per_client
        ),
        header_timeout_s=read_key(ctx, served, "header_timeout_s", integer(1, 3600), h.header_timeout_s),
        body_timeout_s=read_key(ctx, served, "body_timeout_s", integer(1, 86_400), h.body_timeout_s),
        logins_per_minute=read_key(ctx, served, "logins_per_minute", integer(1, 10_000), h.logins_per_minute),
        sessions_per_token=read_key(ctx, served, "sessions_per_token", integer(1, 10_000), h.sessions_per_token),
    )
    built = sublayers(ctx, top, "build", _BUILD_KEYS)
    b = BuildLimits()
    build = BuildLimits(
        timeout_s=read_key(ctx, built, "timeout_s", integer(1, MAX_MS // 1000), b.timeout_s),
        memory_mb=read_key(ctx, built, "memory_mb", integer(16, MAX_LIMIT), b.memory_mb),
        log_kb=read_key(ctx, built, "log_kb", integer(1, MAX_LIMIT), b.log_kb),
        processes=read_key(ctx, built, "processes", integer(1, MAX_LIMIT), b.processes),
        smoke_hands=read_key(ctx, built, "smoke_hands", integer(1, 10_000), b.smoke_hands),
        toolchains=read_key(ctx, built, "toolchains", _toolchains, b.toolchains),
    )
    return ArenaConfig(
        storage=storage,
        database=database,
        listen=read_key(ctx, top, "listen", listen_address, "127.0.0.1:8090"),
        submissions=submissions,
        http=http,
        build=build,
        ladder=_parse_ladder(ctx, sublayers(ctx, top, "ladder", _LADDER_KEYS)),
        limits=parse_limits(ctx, sublayers(ctx, top, "limits", LIMIT_KEYS)),
        game=parse_game(ctx, sublayers(ctx, top, "game", GAME_KEYS)),
        path=path,
        team_uids=read_key(ctx, top, "team_uids", integer(1000, 2_000_000_000), None),
    )


def read_document(text: str, filename: str, folder: Path) -> tuple[Ctx, Node]:
    """The error collector and root node of a YAML document (an empty one reads as ``{}``); a YAML
    syntax error is a LeagueConfigError of one ``file:line:`` line."""
    ctx = Ctx(filename, folder)
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
    return parse_arena(read_text(path), str(path))
