"""Tests of how a dealer process is set up (``dealer/runtime.py``): the one owner of a log file,
used by the CLI, the arena's server and each Dask worker, and of the garbage collector's settings."""

from __future__ import annotations

import ast
import gc
import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.arena.config import ArenaConfig
from dealer.arena.server import _log_to
from dealer.cli.options import log_to
from dealer.runtime import log_file, log_target, tune_gc

DEALER = Path(__file__).resolve().parent.parent / "dealer"


@pytest.fixture
def dealer_logger() -> Iterator[logging.Logger]:
    """The ``dealer`` logger, given back as it was: handlers, level and propagation."""
    logger = logging.getLogger("dealer")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    yield logger
    for handler in logger.handlers:
        if handler not in saved[0]:
            handler.close()
    logger.handlers[:], logger.level, logger.propagate = saved


def test_a_log_file_is_0600_appended_at_its_level_in_the_one_format(
    tmp_path: Path, dealer_logger: logging.Logger
) -> None:
    path = tmp_path / "dealer.log"
    path.write_text("an earlier run\n")
    path.chmod(0o600)
    handler = log_file(path, "warning")
    logging.getLogger("dealer.league.match").info("not at this level")
    logging.getLogger("dealer.league.match").warning("bot %s loses on time", "alpha")
    handler.flush()
    lines = path.read_text().splitlines()
    assert lines[0] == "an earlier run" and len(lines) == 2
    assert lines[1].endswith(" WARNING dealer.league.match: bot alpha loses on time")
    new = tmp_path / "worker.log"
    log_file(new, "info")
    assert stat.S_IMODE(new.stat().st_mode) == 0o600


def test_the_cli_log_replaces_earlier_handlers_and_says_errors_on_stderr(
    tmp_path: Path, dealer_logger: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    log_to(tmp_path / "first", "info")
    log_to(tmp_path / "out", "info")
    logging.getLogger("dealer.league.run").error("the dealer failed")
    assert len(dealer_logger.handlers) == 2 and not dealer_logger.propagate
    assert capsys.readouterr().err == "dealer: the dealer failed\n"
    assert stat.S_IMODE((tmp_path / "out" / "dealer.log").stat().st_mode) == 0o600
    assert "the dealer failed" in (tmp_path / "out" / "dealer.log").read_text()
    assert "the dealer failed" not in (tmp_path / "first" / "dealer.log").read_text()


def test_the_arena_log_hides_tokens(tmp_path: Path, dealer_logger: logging.Logger) -> None:
    _log_to(ArenaConfig(storage=tmp_path / "storage", database="sqlite://"))
    token = "team_" + "a" * 40
    logging.getLogger("dealer.arena.http").info("refused token %s", token)
    for handler in dealer_logger.handlers:
        handler.flush()
    text = (tmp_path / "storage" / "arena.log").read_text()
    assert " INFO dealer.arena.http: refused token [token]" in text and token not in text
    assert stat.S_IMODE((tmp_path / "storage" / "arena.log").stat().st_mode) == 0o600


def test_no_module_but_runtime_opens_a_log_file() -> None:
    openers = []
    for path in sorted(DEALER.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        if any(isinstance(n, ast.Attribute) and n.attr == "FileHandler" for n in ast.walk(tree)):
            openers.append(path.relative_to(DEALER).as_posix())
    # The scan sees the owner's own handler, so a copy elsewhere would be seen too.
    assert openers == ["runtime.py"], "set a log file up through dealer.runtime.log_file instead"


def test_tune_gc_raises_the_first_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc, "freeze", lambda: None)  # freezing is for a whole process, not a test's
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == (20_000, 20, 100)
    finally:
        gc.set_threshold(*before)


ROLE_LOGGERS = {"REQUESTS"}  # guard.py: the logger aiohttp's server writes to, named by its role


def _module_loggers(path: Path) -> list[tuple[str, str]]:
    """Each logger ``path`` binds at module level: its variable's name and what ``getLogger`` is given."""
    found = []
    for node in ast.parse(path.read_text(), str(path)).body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "getLogger":
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found.append((ast.unparse(target), ast.unparse(value.args[0]) if value.args else ""))
    return found


def test_every_module_names_its_logger_logger() -> None:
    loggers = {path.relative_to(DEALER).as_posix(): _module_loggers(path) for path in sorted(DEALER.rglob("*.py"))}
    odd = {name: found for name, found in loggers.items() for var, _ in found if var not in {"LOGGER", *ROLE_LOGGERS}}
    assert odd == {}, "a module's logger is LOGGER = logging.getLogger(__name__)"
    # The scan sees the loggers that follow the convention, so one that does not would be seen too.
    assert ("LOGGER", "__name__") in loggers["league/match.py"] and ("LOGGER", "'dealer.league.match'") in loggers[
        "league/table.py"
    ]


def test_log_target_names_the_file_log_file_set_up_so_a_worker_can_log_there(tmp_path: Path) -> None:
    logger = logging.getLogger("dealer")
    assert log_target() is None  # no file yet: a worker logs nowhere but its result's tails
    handler = log_file(tmp_path / "dealer.log", "debug")
    try:
        assert log_target() == (tmp_path / "dealer.log", "DEBUG")
    finally:
        logger.removeHandler(handler)
        handler.close()
