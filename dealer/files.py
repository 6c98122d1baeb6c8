"""Writing a file in one step: the one owner of "a kill never leaves it half written".

Results, standings, a finals' seed, an ACPC bot's game file and report.html are all written here:
the text goes to a fresh partial file beside the target (opened with O_EXCL and O_NOFOLLOW, so
never through a link or a FIFO left there), which then replaces the target by a rename.
"""

from __future__ import annotations

import os
from pathlib import Path

PUBLIC = 0o644
"""A file others may read (a bot's own user reads its game file; report.html is for the room)."""
PRIVATE = 0o600
"""A file only the dealer's user reads: results that reveal the seed, the seed itself."""


def write_atomically(path: Path, text: str, *, mode: int = PUBLIC, replace: bool = True) -> bool:
    """Replace ``path`` with ``text`` (UTF-8) in one step, created with ``mode`` (umask applies). On
    any failure (a full disk, text that is not UTF-8) the partial file is removed, the last complete
    file stays, and the error is raised. ``replace=False`` only creates the file: one already there
    (another process's, in use) is left as it is and False returned. True when the text was written."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        with os.fdopen(os.open(partial, flags, mode), "w", encoding="utf-8") as file:
            file.write(text)
        if replace:
            os.replace(partial, path)
            return True
        try:
            os.link(partial, path)  # fails where a file (or a link) is already there: never replaced
            return True
        except FileExistsError:
            return False
        finally:
            partial.unlink()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
