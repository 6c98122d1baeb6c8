"""``dealer arena``: the organiser's commands on a real database (SQLite and PostgreSQL): a token
printed once and alone on stdout, and one ``error:`` line for every bad input, never a traceback."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from dealer.cli.main import app

RUNNER = CliRunner()


def _arena(tmp_path: Path, database: str) -> Path:
    config = tmp_path / "arena.yaml"
    config.write_text(f"database: '{database}'\n", encoding="utf-8")
    return config


def test_an_organiser_adds_teams_and_each_token_is_printed_once(tmp_path: Path, arena_database: str) -> None:
    config = _arena(tmp_path, arena_database)
    migrated = RUNNER.invoke(app, ["arena", "migrate", "--config", str(config)])
    assert migrated.exit_code == 0, migrated.output
    assert migrated.stdout == "database ready: its schema is at the newest revision\n"
    added = RUNNER.invoke(app, ["arena", "team", "add", "alpha", "-c", str(config)])
    assert added.exit_code == 0, added.output
    (token,) = added.stdout.split()
    assert token.startswith("team_")
    assert "keep it now" in added.stderr and token not in added.stderr
    listed = RUNNER.invoke(app, ["arena", "team", "list", "-c", str(config)])
    assert listed.exit_code == 0 and listed.stdout.split("\t")[0] == "alpha" and token not in listed.stdout
    rotated = RUNNER.invoke(app, ["arena", "team", "token", "alpha", "-c", str(config)])
    assert rotated.exit_code == 0 and rotated.stdout.strip().startswith("team_") and token not in rotated.stdout
    organiser = RUNNER.invoke(app, ["arena", "organiser-token", "-c", str(config)])
    assert organiser.exit_code == 0 and organiser.stdout.strip().startswith("org_")


def test_bad_input_is_one_error_line_each(tmp_path: Path, arena_database: str) -> None:
    config = _arena(tmp_path, arena_database)
    bad = tmp_path / "bad.yaml"
    bad.write_text("listen: 1\nsubmissions: {max_path: 0}\n", encoding="utf-8")
    cases = [
        (["team", "add", "alpha", "-c", str(config)], ["error: the arena's database is at schema none (empty), "]),
        (["migrate", "-c", str(tmp_path / "missing.yaml")], [f"error: {tmp_path / 'missing.yaml'}: cannot read: "]),
        (
            ["migrate", "-c", str(bad)],
            [f"error: {bad}:1: listen: expected a string (quote it), ", f"error: {bad}:2: submissions.max_path: "],
        ),
    ]
    for argv, starts in cases:
        result = RUNNER.invoke(app, ["arena", *argv])
        assert result.exit_code == 2, (argv, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (argv, result.exception)
        lines = result.stderr.splitlines()
        assert len(lines) == len(starts) and all(line.startswith(s) for line, s in zip(lines, starts, strict=True))
    assert RUNNER.invoke(app, ["arena", "migrate", "-c", str(config)]).exit_code == 0
    RUNNER.invoke(app, ["arena", "team", "add", "alpha", "-c", str(config)])
    for argv, line in [
        (["team", "add", "alpha"], "error: team 'alpha' already exists"),
        (["team", "add", "../x"], "error: team name '../x' must match ^[A-Za-z0-9_.-]{1,40}$"),
        (["team", "token", "nobody"], "error: no team 'nobody'"),
    ]:
        result = RUNNER.invoke(app, ["arena", *argv, "-c", str(config)])
        assert (result.exit_code, result.stderr) == (2, line + "\n"), argv


def test_a_database_that_cannot_be_reached_is_one_line(tmp_path: Path) -> None:
    config = _arena(tmp_path, f"postgresql://nobody@/none?host={tmp_path / 'no-server'}")
    result = RUNNER.invoke(app, ["arena", "migrate", "-c", str(config)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: database postgresql+asyncpg://nobody@/none?host=%2F") and "no-server: " in line


def test_dealer_starts_without_loading_the_database_stack() -> None:
    """Every other command would pay SQLAlchemy's and Alembic's import (about 0.6 s) otherwise."""
    code = (
        "import sys, dealer.cli.main; print(sorted({m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'alembic'}))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_a_teams_commands_fail_in_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    with socket.socket() as probe:  # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    cases = [
        (["submit", str(text), "--server", closed, "--token", "t"], f"error: {text}: not a folder, a tar.gz or a zip"),
        (["submit", str(tmp_path), "--server", closed, "--token", "t"], f"error: cannot reach the arena at {closed}: "),
        (["versions", "--server", closed, "--token", "t"], f"error: cannot reach the arena at {closed}: "),
        (["log", "v1", "--server", closed, "--token", "t"], f"error: cannot reach the arena at {closed}: "),
    ]
    for argv, start in cases:
        result = RUNNER.invoke(app, ["arena", *argv])
        assert result.exit_code == 2, (argv, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (argv, result.exception)
        (line,) = result.stderr.splitlines()
        assert line.startswith(start), (argv, line)
    usage = RUNNER.invoke(app, ["arena", "activate", "three", "--server", closed, "--token", "t"])
    assert usage.exit_code == 2 and "expected a version such as 3 or v3, not 'three'" in usage.output


def test_serve_on_a_busy_port_is_one_line_naming_the_port(tmp_path: Path) -> None:
    """Issue 33 (8): a port in use was reported as a database error."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "arena.yaml"
        config.write_text(f"database: '{database}'\nlisten: 127.0.0.1:{port}\nladder: {{jobs: 0}}\n", encoding="utf-8")
        assert RUNNER.invoke(app, ["arena", "migrate", "-c", str(config)]).exit_code == 0
        served = RUNNER.invoke(app, ["arena", "serve", str(config)])
    assert served.exit_code == 2, served.output
    assert served.stderr.splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: port {port} is already in use (another arena or program "
        "listens there): stop it, or give the arena file another listen: address"
    ]
    assert "database" not in served.stderr


def test_ctrl_c_and_sigterm_on_serve_say_in_one_line_what_is_kept_and_how_to_go_on(tmp_path: Path) -> None:
    """Issue 33 (5): Ctrl-C on dealer arena serve said only 'arena stopped'. Ctrl-C (SIGINT) is one
    'interrupted:' line and exit 130, as on dealer run; SIGTERM, a service's stop, is one line and 0."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = tmp_path / "arena.yaml"
    config.write_text(f"database: '{database}'\nlisten: 127.0.0.1:0\nladder: {{jobs: 0}}\n", encoding="utf-8")
    assert RUNNER.invoke(app, ["arena", "migrate", "-c", str(config)]).exit_code == 0
    dealer = Path(sys.executable).parent / "dealer"
    kept = (
        "every finished build, match and rating is kept in its database; run the same command again to go on "
        "(a build or match it cut off is played again)"
    )
    for sig, code, line in [
        (signal.SIGINT, 130, f"interrupted: the arena stopped: {kept}"),
        (signal.SIGTERM, 0, f"arena stopped: {kept}"),
    ]:
        server = subprocess.Popen([str(dealer), "arena", "serve", str(config)], stderr=subprocess.PIPE, text=True)
        assert server.stderr is not None
        try:
            first = server.stderr.readline()
            assert first.startswith("arena on http://127.0.0.1:"), first
            server.send_signal(sig)
            rest = server.stderr.read().splitlines()
            assert server.wait(30) == code, rest
        finally:
            if server.poll() is None:
                server.kill()
        assert rest[-1] == line, rest
