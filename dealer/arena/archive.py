"""A submission's files: an archive (tar.gz or zip) checked entry by entry and unpacked into the
arena's storage, content-addressed, or refused with one line and nothing kept.

What is refused, each with its own line: an archive over ``max_archive_mb``; more than
``max_files`` entries; a path that is absolute, holds ``..``, is longer than ``max_path`` or
appears twice; an entry beneath a symbolic link; a symbolic link that is absolute or climbs (only
links to a file or folder below their own folder are kept); a hard link to anything but an
earlier file of the archive; a device, FIFO or socket; files adding up to more than
``max_unpacked_mb`` (a zip bomb: counted on the bytes actually unpacked, not the sizes declared);
a missing or invalid ``bot.yaml``. Entries are written only below a fresh folder of
``storage/incoming`` (files created with O_EXCL | O_NOFOLLOW, never through a link), which becomes
``storage/versions/<sha256>`` once every check has passed, read-only, or is deleted.

The SHA-256 is the files' own (their paths, contents, executable bits and links), not the
archive's bytes: the same files packed twice are one version.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import os
import secrets
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath
from typing import IO

from dealer.arena.config import SubmissionLimits
from dealer.arena.layout import incoming, version_files
from dealer.arena.manifest import MANIFEST, MAX_MANIFEST_BYTES, BotManifest, parse_manifest
from dealer.arena.model import ArenaError

MB = 1024 * 1024
CHUNK = 64 * 1024


class Kind(Enum):
    """What an archive entry is once checked: the kinds the arena keeps."""

    FILE = "file"
    DIR = "dir"
    SYMLINK = "symlink"
    HARDLINK = "hardlink"


@dataclass(frozen=True, slots=True)
class Entry:
    """One archive entry as read: its path, kind, executable bit, link target, and its data's reader."""

    name: str
    kind: Kind
    executable: bool = False
    target: str = ""
    open: Callable[[], IO[bytes]] | None = None


@dataclass(frozen=True, slots=True)
class Unpacked:
    """A stored version's files: their SHA-256, folder, count, total size, and ``bot.yaml``."""

    digest: str
    folder: Path
    files: int
    size: int
    manifest: BotManifest


EXTENDED_HEADER_MAX = 64 * 1024  # bytes of one GNU long name or pax header: a path of max_path (<= 4096) fits
EXTENDED_IN_A_ROW = 8  # extended headers before one member (a pax and a long name and a long link take 3)
_EXTENDED = (
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
)
DAMAGED = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, OSError, NotImplementedError, RuntimeError)
"""What reading a damaged archive raises: a short read, a bad CRC-32, an unknown compression, a password."""


class _CheckedTarInfo(tarfile.TarInfo):
    """A tar header whose sizes are checked before tarfile reads what they announce: a GNU long
    name or pax header larger than EXTENDED_HEADER_MAX (which tarfile would read whole into memory),
    a chain of extended headers, and sparse files (whose maps tarfile reads block after block)."""

    def _proc_member(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        assert isinstance(archive, _CheckedTarFile), "read by a _CheckedTarFile"
        if self.type in _EXTENDED:
            archive.chain += 1
            if archive.chain > EXTENDED_IN_A_ROW:
                raise ArenaError(f"more than {EXTENDED_IN_A_ROW} extended headers before one member")
            if self.size > EXTENDED_HEADER_MAX:
                raise ArenaError(
                    f"{_shown(self.name)}: an extended header (long name or pax) of {self.size} bytes, "
                    f"more than {EXTENDED_HEADER_MAX}"
                )
        else:
            archive.chain = 0
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise ArenaError(f"{_shown(self.name)}: a sparse file: only files, folders and links are kept")
        member: tarfile.TarInfo = super()._proc_member(archive)  # type: ignore[misc]
        return member

    def _proc_gnusparse_00(self, *_args: object) -> None:
        raise ArenaError(f"{_shown(self.name)}: a sparse file: only files, folders and links are kept")

    _proc_gnusparse_01 = _proc_gnusparse_10 = _proc_gnusparse_00


class _CheckedTarFile(tarfile.TarFile):
    """A tar read with ``_CheckedTarInfo`` headers; ``chain`` counts the extended headers in a row."""

    tarinfo = _CheckedTarInfo
    chain = 0


def _tar_entries(source: IO[bytes], limits: SubmissionLimits) -> Iterator[Entry]:
    """The entries of a gzipped tar; every size a header announces is checked before it is read:
    extended headers (``_CheckedTarInfo``), the count of members, and each member's declared size
    (so a bomb of huge members is refused before it is decompressed)."""
    try:
        archive = _CheckedTarFile.open(fileobj=source, mode="r:gz")
    except (*DAMAGED, RecursionError) as exc:
        raise ArenaError(f"not a readable tar.gz archive: {_reason(exc)}") from None
    declared = 0
    with archive:
        for count in itertools.count(1):
            try:
                member = archive.next()
            except (*DAMAGED, RecursionError) as exc:
                raise ArenaError(f"the tar.gz archive is damaged: {_reason(exc)}") from None
            if member is None:
                return
            if count > limits.max_files:
                raise ArenaError(f"more than {limits.max_files} entries")
            declared += member.size
            if declared > limits.max_unpacked_mb * MB:
                raise ArenaError(f"the files unpack to more than {limits.max_unpacked_mb} MB")
            name = member.name
            if member.isreg():
                yield Entry(name, Kind.FILE, bool(member.mode & 0o111), open=_tar_reader(archive, member))
            elif member.isdir():
                yield Entry(name, Kind.DIR)
            elif member.issym():
                yield Entry(name, Kind.SYMLINK, target=member.linkname)
            elif member.islnk():
                yield Entry(name, Kind.HARDLINK, target=member.linkname)
            else:
                what = "a FIFO" if member.isfifo() else "a device file" if member.isdev() else "not a file"
                raise ArenaError(f"{_shown(name)}: {what}: only files, folders and links are kept")


def _reason(exc: BaseException) -> str:
    """Why reading an archive failed, in one short line."""
    text = " ".join(str(exc).split())[:200]
    return text or type(exc).__name__


def _tar_reader(archive: tarfile.TarFile, member: tarfile.TarInfo) -> Callable[[], IO[bytes]]:
    """A reader of one tar member's data."""

    def read() -> IO[bytes]:
        stream = archive.extractfile(member)
        assert stream is not None, "a regular member has data"
        return stream

    return read


ZIP_ENTRY_MAX = 46 + 64 * 1024  # a central directory record: its fixed part and a name, extra and comment


def _zip_entries(source: IO[bytes], limits: SubmissionLimits) -> Iterator[Entry]:
    """The entries of a zip (Unix modes from the external attributes: links, devices, exec bits).
    The central directory's count and size are checked before zipfile reads it; a member's data is
    counted as it is decompressed (its header's sizes are not trusted: the writer counts)."""
    try:
        end = zipfile._EndRecData(source)  # type: ignore[attr-defined]  # the end record, without the directory
        if end is not None and (
            end[zipfile._ECD_ENTRIES_TOTAL] > limits.max_files  # type: ignore[attr-defined]
            or end[zipfile._ECD_SIZE] > limits.max_files * ZIP_ENTRY_MAX  # type: ignore[attr-defined]
        ):
            raise ArenaError(f"more than {limits.max_files} entries")
        archive = zipfile.ZipFile(source)
    except DAMAGED as exc:
        raise ArenaError(f"not a readable zip archive: {_reason(exc)}") from None
    with archive:
        if len(archive.infolist()) > limits.max_files:
            raise ArenaError(f"more than {limits.max_files} entries")
        for info in archive.infolist():
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if info.is_dir():
                yield Entry(info.filename, Kind.DIR)
            elif kind == stat.S_IFLNK:
                with _damaged(info.filename), archive.open(info) as stream:  # a link's target: 4 KiB at most
                    target = stream.read(4096).decode("utf-8", "replace")
                yield Entry(info.filename, Kind.SYMLINK, target=target)
            elif kind in (0, stat.S_IFREG):
                yield Entry(info.filename, Kind.FILE, bool(mode & 0o111), open=_zip_reader(archive, info))
            else:
                what = "a device file" if kind in (stat.S_IFCHR, stat.S_IFBLK) else "not a file"
                raise ArenaError(f"{_shown(info.filename)}: {what}: only files, folders and links are kept")


def _zip_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[], IO[bytes]]:
    """A reader of one zip member's data."""
    return lambda: archive.open(info)


@contextlib.contextmanager
def _damaged(name: str) -> Iterator[None]:
    """Turn an error reading entry ``name``'s data (a bad CRC-32, a short stream) into one line."""
    try:
        yield
    except DAMAGED as exc:
        raise ArenaError(f"{_shown(name)}: the archive is damaged: {_reason(exc)}") from None


def _shown(name: str) -> str:
    """An archive path as an error shows it: quoted, cut short, control characters escaped."""
    return repr(name if len(name) <= 80 else name[:77] + "...")


def _checked_path(name: str, limits: SubmissionLimits) -> PurePosixPath:
    """The relative path an entry is written at; absolute, climbing, empty or too long is refused."""
    if len(name) > limits.max_path:
        raise ArenaError(f"{_shown(name)}: path longer than {limits.max_path} characters")
    if "\0" in name:
        raise ArenaError(f"{_shown(name)}: a NUL in a path")
    if name.startswith("/"):
        raise ArenaError(f"{_shown(name)}: an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArenaError(f"{_shown(name)}: a path with '..'")
    return PurePosixPath(*parts)


def _kept_target(path: PurePosixPath, target: str) -> None:
    """Refuse a symbolic link unless it points below its own folder (so no chain of links climbs)."""
    if not target or target.startswith("/") or ".." in target.split("/"):
        raise ArenaError(
            f"{_shown(str(path))}: a symbolic link to {_shown(target)}, out of its folder "
            "(only links to a file or folder below their own folder are kept)"
        )


class _Writer:
    """Writes checked entries below one fresh folder, counting files and bytes against the limits."""

    def __init__(self, root: Path, limits: SubmissionLimits) -> None:
        self.root = root
        self.limits = limits
        self.seen: dict[PurePosixPath, Kind] = {PurePosixPath(): Kind.DIR}
        self.hashes: dict[PurePosixPath, tuple[str, bool]] = {}  # a file's SHA-256 and executable bit
        self.links: dict[PurePosixPath, str] = {}
        self.size = 0

    def add(self, entry: Entry) -> None:
        """Check one entry and write it; the first problem raises ArenaError."""
        if len(self.seen) > self.limits.max_files:
            raise ArenaError(f"more than {self.limits.max_files} entries")
        path = _checked_path(entry.name, self.limits)
        if path == PurePosixPath() and entry.kind is Kind.DIR:
            return
        if path in self.seen and not (entry.kind is Kind.DIR and self.seen[path] is Kind.DIR):
            raise ArenaError(f"{_shown(entry.name)}: appears twice")
        self._parents(path, entry.name)
        self.seen[path] = entry.kind
        where = self.root / path
        if entry.kind is Kind.DIR:
            where.mkdir(exist_ok=True)
        elif entry.kind is Kind.SYMLINK:
            _kept_target(path, entry.target)
            os.symlink(entry.target, where)
            self.links[path] = entry.target
        elif entry.kind is Kind.HARDLINK:
            try:
                source = _checked_path(entry.target, self.limits)
            except ArenaError as error:
                raise ArenaError(f"{_shown(entry.name)}: a hard link to {error}") from None
            if source not in self.hashes:
                raise ArenaError(
                    f"{_shown(entry.name)}: a hard link to {_shown(entry.target)}, "
                    "which is not an earlier file of the archive"
                )
            with open(self.root / source, "rb") as stream:
                self._write(path, stream, self.hashes[source][1])
        else:
            assert entry.open is not None, "a file entry has data"
            with _damaged(entry.name):
                opened = entry.open()
            with opened as stream:
                self._write(path, stream, entry.executable)

    def _parents(self, path: PurePosixPath, name: str) -> None:
        """Create the folders above ``path``; refuse a path beneath a link or a file."""
        for parent in reversed(path.parents[:-1]):
            kind = self.seen.get(parent)
            if kind is None:
                (self.root / parent).mkdir()
                self.seen[parent] = Kind.DIR
            elif kind is not Kind.DIR:
                raise ArenaError(f"{_shown(name)}: beneath {_shown(str(parent))}, which is not a folder")

    def _write(self, path: PurePosixPath, stream: IO[bytes], executable: bool) -> None:
        """Copy one file's data, stopping at the unpacked-size limit whatever its header declared."""
        digest = hashlib.sha256()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(self.root / path, flags, 0o600), "wb") as out:
            while True:
                with _damaged(str(path)):
                    chunk = stream.read(CHUNK)
                if not chunk:
                    break
                self.size += len(chunk)
                if self.size > self.limits.max_unpacked_mb * MB:
                    raise ArenaError(f"the files unpack to more than {self.limits.max_unpacked_mb} MB")
                digest.update(chunk)
                out.write(chunk)
        self.hashes[path] = (digest.hexdigest(), executable)

    def digest(self) -> str:
        """The SHA-256 of the tree: every file's path, executable bit and content hash, every link, every folder."""
        lines = [f"file\0{p}\0{int(x)}\0{h}" for p, (h, x) in self.hashes.items()]
        lines += [f"link\0{p}\0{t}" for p, t in self.links.items()]
        lines += [f"dir\0{p}" for p, k in self.seen.items() if k is Kind.DIR and p != PurePosixPath()]
        return hashlib.sha256("\n".join(sorted(lines)).encode("utf-8", "surrogateescape")).hexdigest()

    def seal(self) -> None:
        """Make the tree read-only (files 0444 or 0555, folders 0555): a stored version never changes."""
        for path, kind in sorted(self.seen.items(), key=lambda item: -len(item[0].parts)):
            if kind is Kind.DIR:
                os.chmod(self.root / path, 0o555)
            elif path in self.hashes:
                os.chmod(self.root / path, 0o555 if self.hashes[path][1] else 0o444)


def kind_of(data: bytes) -> str | None:
    """Which archive ``data`` is, by its magic bytes: "tar.gz", "zip" or None."""
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    return None


def unpack(data: bytes | Path, storage: Path, limits: SubmissionLimits) -> Unpacked:
    """Check and store an archive's files (``data``, or the file it names: an upload streamed to
    disk) under ``storage/versions/<sha256>``; ArenaError (one line) for the first problem, with
    nothing left behind."""
    with open(data, "rb") if isinstance(data, Path) else io.BytesIO(data) as source:
        return _unpack(source, storage, limits)


def _unpack(source: IO[bytes], storage: Path, limits: SubmissionLimits) -> Unpacked:
    """``unpack`` of an open, seekable archive."""
    if source.seek(0, os.SEEK_END) > limits.max_archive_mb * MB:
        raise ArenaError(f"the archive is larger than {limits.max_archive_mb} MB")
    source.seek(0)
    kind = kind_of(source.read(4))
    source.seek(0)
    if kind is None:
        raise ArenaError("not a tar.gz or zip archive")
    unpacking = incoming(storage)
    unpacking.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=secrets.token_hex(4), dir=unpacking))
    try:
        writer = _Writer(root, limits)
        for entry in _tar_entries(source, limits) if kind == "tar.gz" else _zip_entries(source, limits):
            writer.add(entry)
        if writer.seen.get(PurePosixPath(MANIFEST)) is not Kind.FILE:
            raise ArenaError(f"no {MANIFEST} at the top of the archive (see dealer/arena/manifest.py)")
        with open(root / MANIFEST, "rb") as stream:  # read no more than a manifest may hold
            manifest = parse_manifest(stream.read(MAX_MANIFEST_BYTES + 1))
        digest = writer.digest()
        writer.seal()
        folder = version_files(storage, digest)
        folder.parent.mkdir(exist_ok=True)
        try:
            os.rename(root, folder)
        except OSError:  # the same files are stored already (an earlier version, maybe another team's)
            if not folder.is_dir():
                raise
            _remove(root)
        return Unpacked(digest, folder, len(writer.hashes), writer.size, manifest)
    except BaseException:
        _remove(root)
        raise


def _remove(root: Path) -> None:
    """Delete an unpacking folder, read-only parts included."""
    if not root.exists():
        return
    for folder, dirs, _ in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o700)
    os.chmod(root, 0o700)
    shutil.rmtree(root)
