"""How a dealer process is set up, whichever starts it (the ``dealer`` command, the arena's
server, a Dask worker, a benchmark): its garbage collector and its log. The one owner of both."""

from __future__ import annotations

import gc
import logging
import os
from pathlib import Path


def tune_gc() -> None:
    """Collect cyclic garbage less often: a dealer makes many short-lived objects per decision
    and few cycles, so the default thresholds spend ~4% of its time in collections. What exists
    so far (modules, tables) is frozen out of them."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""A line of a dealer's log file: when, how grave, which module, what."""


def log_file(
    path: Path, level: str, formatter: type[logging.Formatter] = logging.Formatter, *, label: str = ""
) -> logging.Handler:
    """Append the dealer's log (the ``dealer`` logger and every module's under it) to ``path`` at
    ``level``, through ``formatter``, each line marked ``[label]`` when given (the worker process
    that wrote it, in a log several processes share); a new file is created mode 0600, readable by
    the dealer's user only. Returns the handler, for a caller that removes it at its end."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(formatter(LOG_FORMAT.replace("%(name)s", f"[{label}] %(name)s") if label else LOG_FORMAT))
    logger = logging.getLogger("dealer")
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    return handler


def log_target() -> tuple[Path, str] | None:
    """Where this process's dealer log goes (the first file ``log_file`` set up) and at what level,
    so that a child process (a match's worker) logs to the same file; None when there is none."""
    logger = logging.getLogger("dealer")
    for handler in logger.handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename), logging.getLevelName(logger.level)
    return None
