"""The distribution carries what the package needs at run time: a wheel built from the tracked files
alone (no ``make setup``, no vendored files, no node_modules) installs in a clean venv whose
``dealer run --web`` serves the page and its vendored uPlot."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDORED = ("dealer/web/static/vendor/uPlot.iife.min.js", "dealer/web/static/vendor/uPlot.min.css")
ARENA_MIGRATIONS = (
    "dealer/arena/openapi.yaml",
    "dealer/arena/data-openapi.yaml",
    "dealer/arena/migrations/env.py",
    "dealer/arena/migrations/script.py.mako",
    "dealer/arena/migrations/versions/r0001_teams.py",
    "dealer/arena/migrations/versions/r0002_versions.py",
    "dealer/arena/migrations/versions/r0003_smoke.py",
)


def _tracked_copy(dest: Path) -> Path:
    """The checkout as a fresh clone has it: the files git tracks, nothing built or vendored."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_wheel_from_a_clean_tree_serves_the_web_view(tmp_path):
    source = _tracked_copy(tmp_path / "src")
    assert not (source / VENDORED[0]).exists()
    build = subprocess.run(  # DEALER_PURE: no compiling, the assets are what is tested
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            ".",
        ],
        cwd=source,
        env={**os.environ, "DEALER_PURE": "1"},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    # make setup's first screen is not a 40-line setuptools warning about the vendored folder
    assert "would be ignored" not in build.stdout + build.stderr, (build.stdout + build.stderr)[-3000:]
    (wheel,) = (tmp_path / "dist").glob("holdem_dealer-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(VENDORED) <= names and "pokerbot/__init__.py" in names
    assert set(ARENA_MIGRATIONS) <= names, "the arena's Alembic scripts are package data"

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run(
        [venv / "bin" / "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    # The dependencies come from this test's environment (a path, not its editable install of the checkout).
    site = subprocess.run(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    bot = f"python {ROOT / 'sample_bots' / 'python' / 'stdio_bot.py'}"
    league = tmp_path / "league.yaml"
    bots = "".join(f"  - {{name: {name}, command: '{bot}', protocol: stdio}}\n" for name in "ab")
    league.write_text(
        f"name: wheel\nseed: wheel-test-seed-0123456789\nout: {tmp_path / 'out'}\nbots:\n{bots}"
        "events:\n  - {name: hu, format: round-robin, table_size: 2, hands: 20000}\n"
    )
    address = f"127.0.0.1:{_free_port()}"
    run = subprocess.Popen(
        [venv / "bin" / "dealer", "run", str(league), "--web", address],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url, said = None, ""
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = run.stdout.readline()
            said += line
            assert line, f"dealer run ended before serving the page: {said}"
            found = re.search(r"https?://\S+", line)
            url = found.group(0) if found and "web view" in line else None
        assert url is not None, "dealer run never said where the web view is"
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # the page's key, as a cookie
        page = browser.open(url, timeout=10).read().decode()
        assert "uPlot.min.css" in page
        for asset in VENDORED:
            body = browser.open(url.split("?")[0].rstrip("/") + "/static/" + asset.split("static/")[1], timeout=10)
            assert body.status == 200 and len(body.read()) > 1000
    finally:
        run.kill()
        run.wait(10)
