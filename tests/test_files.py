"""Tests of the one owner of writing a file in one step (``dealer/files.py``): its modes, a failed
write that keeps the last complete file, a link left where the partial goes, and that no other
module writes a partial file of its own."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import pytest

from dealer.files import PRIVATE, PUBLIC, write_atomically

DEALER = Path(__file__).resolve().parent.parent / "dealer"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_private_file_is_0600_and_a_public_one_0644_even_over_an_older_file(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        results = tmp_path / "results.json"
        results.write_text("old")
        results.chmod(0o644)
        write_atomically(results, "new\n", mode=PRIVATE)
        game = tmp_path / "game"
        write_atomically(game, "gamedef\n", mode=PUBLIC)
    finally:
        os.umask(old_umask)
    assert results.read_text() == "new\n" and _mode(results) == 0o600
    assert game.read_text() == "gamedef\n" and _mode(game) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game", "results.json"]  # no partial left


def test_a_failed_write_keeps_the_last_complete_file_and_leaves_no_partial(tmp_path: Path) -> None:
    path = tmp_path / "standings.txt"
    write_atomically(path, "complete\n")
    with pytest.raises(UnicodeEncodeError):  # raised mid-write, as a full disk's OSError would be
        write_atomically(path, "half \udcff")
    assert path.read_text() == "complete\n"
    assert [p.name for p in tmp_path.iterdir()] == ["standings.txt"]


def test_a_link_left_where_the_partial_goes_is_replaced_never_written_through(tmp_path: Path) -> None:
    target, victim = tmp_path / "game", tmp_path / "victim"
    victim.write_text("untouched")
    (tmp_path / f".game.{os.getpid()}.partial").symlink_to(victim)
    write_atomically(target, "gamedef\n")
    assert victim.read_text() == "untouched"
    assert target.read_text() == "gamedef\n" and not target.is_symlink()


def _names_a_partial(path: Path) -> bool:
    """Whether the code of ``path`` names a ``.partial`` file (a string, or a piece of an f-string)."""
    tree = ast.parse(path.read_text(), str(path))
    return any(isinstance(n, ast.Constant) and str(n.value).endswith(".partial") for n in ast.walk(tree))


def test_no_module_but_files_writes_a_partial_file_of_its_own() -> None:
    writers = [
        path.relative_to(DEALER).as_posix()
        for path in sorted(DEALER.rglob("*.py"))
        if "node_modules" not in path.parts and _names_a_partial(path)
    ]
    # The scan sees the owner's own partial name, so a copy elsewhere would be seen too.
    assert writers == ["files.py"], "write through dealer.files.write_atomically instead"


def test_replace_false_creates_the_file_once_and_leaves_one_already_there(tmp_path: Path) -> None:
    target = tmp_path / "match.game"
    assert write_atomically(target, "first\n", replace=False) is True
    inode = target.stat().st_ino
    assert write_atomically(target, "second\n", replace=False) is False  # in use elsewhere: left alone
    assert target.read_text() == "first\n" and target.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.game"]  # no partial left behind
    assert write_atomically(target, "second\n") is True and target.read_text() == "second\n"
