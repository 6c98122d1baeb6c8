"""``arena.yaml``: defaults, the database URL forms, and one ``file:line: key: problem`` line per
mistake, with the league file's own checks on ``game:`` and ``limits:``."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.arena.config import database_url, load_arena, parse_arena
from dealer.arena.toolchains import Toolchain
from dealer.config.league_file import LeagueConfigError


def test_an_empty_file_is_every_default_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text("", encoding="utf-8")
    arena = load_arena(path)
    assert arena.storage == tmp_path / "arena"
    assert arena.database == f"sqlite+aiosqlite:///{tmp_path / 'arena' / 'arena.db'}"
    assert arena.listen == "127.0.0.1:8090"
    assert (arena.submissions.max_files, arena.submissions.per_hour) == (1000, 20)
    assert arena.game.big_blind == 100 and arena.limits.memory_mb == 1024


def test_database_urls_get_their_async_driver_and_relative_sqlite_paths_the_files_folder(tmp_path: Path) -> None:
    assert database_url("sqlite:///data/a.db", tmp_path) == f"sqlite+aiosqlite:///{tmp_path}/data/a.db"
    assert database_url("sqlite:////srv/a.db", tmp_path) == "sqlite+aiosqlite:////srv/a.db"
    assert (
        database_url("postgresql://arena:pw@db.example:5432/arena", tmp_path)
        == "postgresql+asyncpg://arena:pw@db.example:5432/arena"
    )
    assert (
        database_url("postgresql+asyncpg://u@/a?host=/run/pg", tmp_path) == "postgresql+asyncpg://u@/a?host=%2Frun%2Fpg"
    )


def test_settings_are_read(tmp_path: Path) -> None:
    text = (
        "storage: /srv/arena\ndatabase: postgresql://arena@db/arena\nlisten: 0.0.0.0:9000\n"
        "submissions: {max_archive_mb: 2, max_files: 50, per_hour: 3}\n"
        "game: {blinds: [1, 2], stack: 200}\nlimits: {memory_mb: 512}\n"
        "build: {timeout_s: 60, smoke_hands: 4, toolchains: [gcc, python]}\n"
        "ladder: {jobs: 3, hands: 50, table_size: 6, window: 8, k: 2, pause_share: 0.2, house: false, seed: s}\n"
    )
    arena = parse_arena(text, str(tmp_path / "arena.yaml"))
    assert arena.storage == Path("/srv/arena") and arena.database == "postgresql+asyncpg://arena@db/arena"
    assert arena.listen == "0.0.0.0:9000"
    assert (arena.submissions.max_archive_mb, arena.submissions.max_files, arena.submissions.per_hour) == (2, 50, 3)
    assert (arena.submissions.max_unpacked_mb, arena.submissions.max_path) == (64, 200)
    assert (arena.game.small_blind, arena.game.big_blind, arena.game.stack) == (1, 2, 200)
    assert arena.limits.memory_mb == 512
    assert (arena.build.timeout_s, arena.build.smoke_hands, arena.build.memory_mb) == (60, 4, 2048)
    assert arena.build.toolchains == (Toolchain.GCC, Toolchain.PYTHON)
    assert parse_arena("build: {toolchains: []}\n").build.toolchains == ()
    assert parse_arena("").build.toolchains == tuple(Toolchain), "every toolchain unless the organiser lists some"
    ladder = arena.ladder
    assert (ladder.jobs, ladder.ahead, ladder.hands, ladder.k, ladder.house, ladder.seed) == (3, 6, 50, 2.0, False, "s")
    assert (ladder.matchmaking.table_size, ladder.matchmaking.window, ladder.matchmaking.new_share) == (6, 8.0, 0.25)
    assert (ladder.pause.share, ladder.pause.after, ladder.scrimmages_per_hour) == (0.2, 10, 10)


def test_every_problem_is_one_line_with_its_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text(
        "database: mysql://x@y/z\n"
        "listen: nowhere\n"
        "submissions:\n"
        "  max_files: 0\n"
        "  per_hr: 5\n"
        "game: {stack: 50}\n"
        "limits: {memory_mb: 1}\n"
        "ladder: {jobs: -1, windw: 2, new_share: 1.5, house: maybe}\n"
        "build: {timeout_s: 0, log_kb: x}\n",
        encoding="utf-8",
    )
    with pytest.raises(LeagueConfigError) as caught:
        load_arena(path)
    assert caught.value.errors == [
        f"{path}:1: database: expected a sqlite:// or postgresql:// URL (drivers aiosqlite, asyncpg), "
        "got 'mysql://x@y/z'",
        f"{path}:2: listen: expected host:port with a port 0..65535, got 'nowhere'",
        f"{path}:4: submissions.max_files: must be 1..100000, got 0",
        f"{path}:5: submissions.per_hr: unknown key (did you mean 'per_hour'?)",
        f"{path}:6: game.stack: stack 50 must be larger than the big blind 100",
        f"{path}:7: limits.memory_mb: must be >= 16, got 1",
        f"{path}:8: ladder.windw: unknown key (did you mean 'window'?)",
        f"{path}:8: ladder.jobs: must be 0..1024, got -1",
        f"{path}:8: ladder.new_share: must be in 0 and 1, got 1.5",
        f"{path}:8: ladder.house: expected true or false, got a string 'maybe'",
        f"{path}:9: build.timeout_s: must be 1..86400, got 0",
        f"{path}:9: build.log_kb: expected an integer, got a string 'x'",
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("database: sqlite://\n", "1: database: a SQLite database needs a file path"),
        ("database: 'sqlite+pysqlite:///a.db'\n", "1: database: expected a sqlite:// or postgresql:// URL"),
        ("database: 12\n", "1: database: expected a string (quote it), got an integer 12"),
        ("storage: [a]\n", "1: storage: expected a string, got a list"),
        ("- a\n", "1: expected a mapping, got a list"),
        ("a: [\n", "2: YAML syntax error"),
        (
            "build: {toolchains: [python, gc]}\n",
            "1: build.toolchains[1]: 'gc' is not one of python, node, gcc, javac, rustc (did you mean 'gcc'?)",
        ),
        ("build:\n  toolchains:\n    - gcc\n    - gcc\n", "4: build.toolchains[1]: gcc is listed twice"),
        ("build: {toolchains: gcc}\n", "1: build.toolchains: expected a list of toolchains (python, node, gcc,"),
    ],
)
def test_bad_values(tmp_path: Path, text: str, error: str) -> None:
    with pytest.raises(LeagueConfigError) as caught:
        parse_arena(text, "arena.yaml")
    assert len(caught.value.errors) == 1 and caught.value.errors[0].startswith(f"arena.yaml:{error}")


def test_an_unreadable_or_non_utf8_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(LeagueConfigError) as missing:
        load_arena(tmp_path / "none.yaml")
    assert missing.value.errors == [f"{tmp_path / 'none.yaml'}: cannot read: No such file or directory"]
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"storage: caf\xe9\n")
    with pytest.raises(LeagueConfigError) as bad:
        load_arena(latin)
    assert bad.value.errors == [f"{latin}: not UTF-8 (byte offset 12); save the file as UTF-8"]
