"""How the dealer reads a bot's CPU cgroup (``sandbox.CpuCgroup.usage_s``, polled for every instance
by ``BotProcess._watch_cpu``): the usage file is opened once and read again from its start, and
closed when the cgroup is removed. The folders here are plain ones laid out as the kernel's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dealer.isolation import sandbox


def _cgroup(tmp_path: Path, version: int) -> sandbox.CpuCgroup:
    share = sandbox._Hierarchy(tmp_path, version)
    cgroup = sandbox.CpuCgroup(sandbox.CpuHierarchy(share, share), "holdem-test-1")
    cgroup.folders[0].mkdir()
    return cgroup


def _held(path: Path) -> int:
    """How many of this process's descriptors are open on ``path``."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if os.path.realpath(fd) == str(path.resolve()))


def _rewrite(path: Path, text: str) -> None:
    """Change the file's content in place (the same inode, as the kernel's files stay)."""
    with path.open("r+") as file:
        file.write(text)
        file.truncate()


@pytest.mark.parametrize(
    ("version", "name", "before", "after", "seconds"),
    [
        (1, "cpuacct.usage", "1500000000\n", "2750000000\n", (1.5, 2.75)),
        (
            2,
            "cpu.stat",
            "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n",
            "usage_usec 2750000\nuser_usec 2000000\nsystem_usec 750000\nnr_periods 0\n",
            (1.5, 2.75),
        ),
    ],
)
def test_a_cgroups_cpu_usage_file_is_opened_once_read_afresh_and_closed_on_removal(
    tmp_path: Path, version: int, name: str, before: str, after: str, seconds: tuple[float, float]
) -> None:
    cgroup = _cgroup(tmp_path, version)
    usage = cgroup.usage_folder / name
    usage.write_text(before)
    assert cgroup.usage_s() == seconds[0]
    assert _held(usage) == 1  # kept open between polls
    _rewrite(usage, after)
    assert cgroup.usage_s() == seconds[1]  # read again from its start: the new value
    assert cgroup.usage_s() == seconds[1] and _held(usage) == 1  # still the one descriptor
    usage.unlink()  # the kernel removes the files with the folder
    assert cgroup.remove() and _held(usage) == 0 and not cgroup.folders[0].exists()
    assert cgroup.remove()  # removing twice is nothing


def test_a_cgroup_v2_usage_without_its_line_is_an_error_that_names_the_file(tmp_path: Path) -> None:
    cgroup = _cgroup(tmp_path, 2)
    (cgroup.usage_folder / "cpu.stat").write_text("user_usec 1\n")
    with pytest.raises(OSError, match=r"holdem-test-1/cpu.stat has no usage_usec"):
        cgroup.usage_s()
    (cgroup.usage_folder / "cpu.stat").unlink()
    assert cgroup.remove() and not _held(cgroup.usage_folder / "cpu.stat")


def test_a_real_cgroups_usage_grows_while_its_process_burns_and_is_read_through_one_descriptor() -> None:
    """On the kernel's own files: a process moved into the cgroup burns CPU; each read from the
    kept descriptor sees the time grow (the kernel writes the file afresh for a read from offset 0)."""
    if os.geteuid() != 0 or sandbox.cpu_hierarchy() is None:
        pytest.fail("a CPU cgroup needs the tests to run as root with cgroups writable; CI runs them so")
    cgroup = sandbox.CpuCgroup.create()
    assert cgroup is not None
    procs = cgroup.open_procs()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child burns until killed
        for fd in procs:
            os.write(fd, b"0")
        while True:
            pass
    try:
        for fd in procs:
            os.close(fd)
        seen = [cgroup.usage_s()]
        while len(seen) < 3:
            if (now := cgroup.usage_s()) > seen[-1] + 0.02:
                seen.append(now)
        name = "cpuacct.usage" if (cgroup.usage_folder / "cpuacct.usage").exists() else "cpu.stat"
        assert _held(cgroup.usage_folder / name) == 1
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
    assert cgroup.remove() and _held(cgroup.usage_folder / name) == 0
