"""Submissions' archives: good ones are stored content-addressed and read-only; every hostile one is
refused with its own line, with nothing written outside the storage folder and nothing kept in it."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from dealer.arena.archive import MB, unpack
from dealer.arena.config import SubmissionLimits
from dealer.arena.model import ArenaError

BOT_YAML = b"protocol: stdio\nrun: python3 bot.py\n"
LIMITS = SubmissionLimits(max_archive_mb=4, max_unpacked_mb=8, max_files=20, max_path=60)


def _tar(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    """A tar.gz of the given members (data for regular files)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, *, mode: int = 0o644, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, target
    return info


def _file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    return _member(name, mode=mode), data


def _zip(*members: tuple[str, bytes, int]) -> bytes:
    """A zip of (name, data, unix mode) members, deflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return out.getvalue()


def _tree(root: Path) -> set[str]:
    """Every path below ``root`` (links not followed)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _refused(tmp_path: Path, data: bytes, message: str, limits: SubmissionLimits = LIMITS) -> None:
    """``data`` is refused with exactly ``message``; nothing is written outside the storage, nothing kept in it."""
    storage = tmp_path / "arena" / "storage"
    storage.mkdir(parents=True)
    before = _tree(tmp_path)
    with pytest.raises(ArenaError) as caught:
        unpack(data, storage, limits)
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)
    assert _tree(storage) <= {"incoming"}, "a refused archive left files in the storage"
    assert _tree(tmp_path) - before <= {"arena/storage/incoming"}


def test_a_good_archive_is_stored_read_only_under_its_files_sha256(tmp_path: Path) -> None:
    data = _tar(
        _file("bot.yaml", BOT_YAML),
        _file("bot.py", b"print('hi')\n"),
        _file("bin/run", b"#!/bin/sh\n", 0o755),
        (_member("lib", tarfile.DIRTYPE, mode=0o755), None),
        _file("lib/x.py", b"x = 1\n"),
        (_member("run", tarfile.SYMTYPE, target="bin/run"), None),
        (_member("copy.py", tarfile.LNKTYPE, target="bot.py"), None),
    )
    stored = unpack(data, tmp_path / "storage", LIMITS)
    assert stored.folder == tmp_path / "storage" / "versions" / stored.digest and len(stored.digest) == 64
    assert (stored.files, stored.size) == (5, len(BOT_YAML) + 12 + 10 + 6 + 12)
    assert stored.manifest.protocol == "stdio" and stored.manifest.run == ("python3", "bot.py")
    assert (stored.folder / "copy.py").read_bytes() == b"print('hi')\n"
    assert os.readlink(stored.folder / "run") == "bin/run"
    assert stat.S_IMODE((stored.folder / "bin" / "run").stat().st_mode) == 0o555
    assert stat.S_IMODE((stored.folder / "bot.py").stat().st_mode) == 0o444
    assert stat.S_IMODE((stored.folder / "lib").stat().st_mode) == 0o555
    assert not any((tmp_path / "storage" / "incoming").iterdir())


def test_the_same_files_as_zip_or_tar_are_one_version(tmp_path: Path) -> None:
    as_tar = unpack(_tar(_file("bot.yaml", BOT_YAML), _file("bot.py", b"pass\n", 0o755)), tmp_path / "storage", LIMITS)
    as_zip = unpack(
        _zip(("bot.yaml", BOT_YAML, 0o100644), ("bot.py", b"pass\n", 0o100755)), tmp_path / "storage", LIMITS
    )
    assert as_tar.digest == as_zip.digest and as_tar.folder == as_zip.folder
    other = unpack(
        _zip(("bot.yaml", BOT_YAML, 0o100644), ("bot.py", b"pass\n", 0o100644)), tmp_path / "storage", LIMITS
    )
    assert other.digest != as_tar.digest, "the executable bit is part of the content"
    assert sorted(p.name for p in (tmp_path / "storage" / "versions").iterdir()) == sorted(
        [as_tar.digest, other.digest]
    )


def test_a_zip_bomb_is_refused_on_the_bytes_it_unpacks(tmp_path: Path) -> None:
    bomb = _zip(("bot.yaml", BOT_YAML, 0o100644), ("zeros", bytes(100 * MB), 0o100644))
    assert len(bomb) < MB / 4, "a small archive..."
    _refused(tmp_path, bomb, "the files unpack to more than 8 MB")


def test_a_tar_bomb_is_refused_on_its_declared_sizes_before_unpacking(tmp_path: Path) -> None:
    bomb = _tar(_file("bot.yaml", BOT_YAML), _file("a", bytes(5 * MB)), _file("b", bytes(5 * MB)))
    assert len(bomb) < MB / 4
    _refused(tmp_path, bomb, "the files unpack to more than 8 MB")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../evil", "'../evil': a path with '..'"),
        ("lib/../../evil", "'lib/../../evil': a path with '..'"),
        ("/tmp/evil", "'/tmp/evil': an absolute path"),
    ],
)
def test_a_path_out_of_the_folder_is_refused(tmp_path: Path, name: str, message: str) -> None:
    _refused(tmp_path, _tar(_file("bot.yaml", BOT_YAML), _file(name, b"x")), message)
    _refused(tmp_path / "z", _zip(("bot.yaml", BOT_YAML, 0o100644), (name, b"x", 0o100644)), message)
    assert not (tmp_path / "evil").exists() and not Path("/tmp/evil").exists()


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/etc", "'out': a symbolic link to '/etc', out of its folder"),
        ("../../..", "'out': a symbolic link to '../../..', out of its folder"),
        ("lib/../..", "'out': a symbolic link to 'lib/../..', out of its folder"),
    ],
)
def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path, target: str, message: str) -> None:
    full = message + " (only links to a file or folder below their own folder are kept)"
    _refused(tmp_path, _tar(_file("bot.yaml", BOT_YAML), (_member("out", tarfile.SYMTYPE, target=target), None)), full)
    as_zip = _zip(("bot.yaml", BOT_YAML, 0o100644), ("out", target.encode(), stat.S_IFLNK | 0o777))
    _refused(tmp_path / "z", as_zip, full)


def test_writing_through_a_symlink_is_refused(tmp_path: Path) -> None:
    """A link to an inner folder, then an entry beneath the link: it is never written through it."""
    data = _tar(
        _file("bot.yaml", BOT_YAML),
        (_member("lib", tarfile.DIRTYPE, mode=0o755), None),
        (_member("via", tarfile.SYMTYPE, target="lib"), None),
        _file("via/x.py", b"x"),
    )
    _refused(tmp_path, data, "'via/x.py': beneath 'via', which is not a folder")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/etc/passwd", "'h': a hard link to '/etc/passwd': an absolute path"),
        ("../x", "'h': a hard link to '../x': a path with '..'"),
        ("later.py", "'h': a hard link to 'later.py', which is not an earlier file of the archive"),
    ],
)
def test_a_hard_link_to_anything_but_an_earlier_file_is_refused(tmp_path: Path, target: str, message: str) -> None:
    data = _tar(
        _file("bot.yaml", BOT_YAML), (_member("h", tarfile.LNKTYPE, target=target), None), _file("later.py", b"")
    )
    _refused(tmp_path, data, message)


@pytest.mark.parametrize(
    ("kind", "what"),
    [(tarfile.CHRTYPE, "a device file"), (tarfile.BLKTYPE, "a device file"), (tarfile.FIFOTYPE, "a FIFO")],
)
def test_device_files_and_fifos_are_refused(tmp_path: Path, kind: bytes, what: str) -> None:
    member = _member("dev", kind)
    member.devmajor, member.devminor = 1, 3  # /dev/null's numbers
    data = _tar(_file("bot.yaml", BOT_YAML), (member, None))
    _refused(tmp_path, data, f"'dev': {what}: only files, folders and links are kept")


def test_a_device_file_in_a_zip_is_refused(tmp_path: Path) -> None:
    data = _zip(("bot.yaml", BOT_YAML, 0o100644), ("dev", b"", stat.S_IFCHR | 0o666))
    _refused(tmp_path, data, "'dev': a device file: only files, folders and links are kept")


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (None, "no bot.yaml at the top of the archive (see dealer/arena/manifest.py)"),
        (b"protocol: tcp\nrun: ./bot\n", "bot.yaml:1: protocol: 'tcp' is not one of grpc, stdio, acpc"),
        (b"protocol: grpc\n", "bot.yaml:1: run: missing (required)"),
        (
            b"protocol: grpc\nrun: ''\nbuild: [make]\nname: x\n",
            "bot.yaml:2: run: must not be empty; bot.yaml:3: build: expected a string, got a list; "
            "bot.yaml:4: name: unknown key",
        ),
        (
            b"protocol: grpc\nrun: 'a\n",
            "bot.yaml:3: YAML syntax error: while scanning a quoted scalar found unexpected end of stream",
        ),
        (
            b"run: ./bot\nprotocol: !!python/name:os.system ''\n",
            "bot.yaml:2: YAML error: could not determine a constructor for the tag "
            "'tag:yaml.org,2002:python/name:os.system'",
        ),
        (b"protocol: grpc\nrun: \xff\n", "bot.yaml: not UTF-8 (byte offset 20)"),
    ],
)
def test_a_missing_or_invalid_bot_yaml_is_refused(tmp_path: Path, manifest: bytes | None, message: str) -> None:
    members = [_file("bot.py", b"pass\n")] + ([_file("bot.yaml", manifest)] if manifest is not None else [])
    _refused(tmp_path, _tar(*members), message)


def test_bot_yaml_below_the_top_or_as_a_folder_is_missing(tmp_path: Path) -> None:
    message = "no bot.yaml at the top of the archive (see dealer/arena/manifest.py)"
    _refused(tmp_path, _tar(_file("sub/bot.yaml", BOT_YAML)), message)
    _refused(tmp_path / "d", _tar((_member("bot.yaml", tarfile.DIRTYPE, mode=0o755), None)), message)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: _tar(_file("bot.yaml", BOT_YAML), *(_file(f"f{i}", b"") for i in range(20))), "more than 20 entries"),
        (
            lambda: _tar(_file("bot.yaml", BOT_YAML), _file("d/" * 30 + "x", b"")),
            f"'{'d/' * 30}x': path longer than 60 characters",
        ),
        (lambda: _tar(_file("bot.yaml", BOT_YAML), _file("a", b"1"), _file("a", b"2")), "'a': appears twice"),
        (lambda: os.urandom(5 * MB), "the archive is larger than 4 MB"),
        (lambda: b"just some text", "not a tar.gz or zip archive"),
        (lambda: b"PK\x03\x04" + b"\0" * 40, "not a readable zip archive: File is not a zip file"),
    ],
)
def test_limits_and_non_archives(tmp_path: Path, make, message: str) -> None:
    _refused(tmp_path, make(), message)
