"""Secret seeds: never on a command line, never readable before the event ends, committed to at
the start, revealed at the end, and checkable afterwards with ``dealer verify``.

Each test runs the real ``dealer`` command with a bot that pauses at its first request
(tests/bots/pauses.py) and looks at the event while it is in progress: the dealer's command
line, and every file of the output folder, hold no seed; the folders and files that will reveal
it are the dealer's user's alone. Then: the revealed seed matches the commitment printed at the
start; ``dealer verify`` re-deals every hand and passes, and fails on a tampered history; a short
seed is brute-forced from the histories in a moment, which is why it gets a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

from conftest import PY_BOTS, ROOT
from dealer.engine.cards import cards_text, shuffled_deck

DEALER = Path(sys.executable).parent / "dealer"
PAUSES = ROOT / "tests" / "bots" / "pauses.py"
CALLER = PY_BOTS / "call_bot.py"
PAUSED = b"pauses.py: thinking at the first request"  # the marker tests/bots/pauses.py logs


def _paused(out: Path) -> bool:
    """Whether the pausing bot has written its marker to its log (it is thinking, mid-event)."""
    return any(p.is_file() and PAUSED in p.read_bytes() for p in out.rglob("*.log"))


def watch(command: list[str], out: Path) -> tuple[subprocess.CompletedProcess[str], dict[Path, bytes], str]:
    """Run the dealer; once the pausing bot is thinking (mid-event), copy every file of ``out`` and
    the dealer's command line; return the finished run, the copies and the command line."""
    dealer = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not _paused(out):
            assert dealer.poll() is None and time.monotonic() < deadline, "the event ended before the bot paused"
            time.sleep(0.05)
        cmdline = Path(f"/proc/{dealer.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        copies = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
        stdout, stderr = dealer.communicate(timeout=120)
    finally:
        if dealer.poll() is None:
            dealer.kill()
    return subprocess.CompletedProcess(command, dealer.returncode, stdout, stderr), copies, cmdline


def commitment_printed(stderr: str) -> str:
    return re.search(r"^seed commitment \(SHA-256\): ([0-9a-f]{64})$", stderr, re.M).group(1)


def _holds(data: bytes, seed: str) -> bool:
    """Whether a file's bytes hold the seed as a value of its own: the dealer log's line times
    (2026-12-01 ...) are not the seed 2026."""
    untimed = re.sub(rb"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ", b"", data, flags=re.M)
    return re.search(rb"(?<![0-9])" + re.escape(seed.encode()) + rb"(?![0-9])", untimed) is not None


def test_a_short_seed_from_a_file_stays_secret_until_the_end_then_verifies_and_can_be_brute_forced(
    tmp_path: Path,
) -> None:
    seed = "2026"
    (tmp_path / "seed.txt").write_text(seed + "\n")
    out = tmp_path / "out"
    done, copies, cmdline = watch(
        [
            str(DEALER),
            "match",
            f"python {PAUSES}",
            f"python {CALLER}",
            "--hands",
            "40",
            "--seed-file",
            str(tmp_path / "seed.txt"),
            "--per-action-ms",
            "5000",
            "--out",
            str(out),
        ],
        out,
    )
    assert done.returncode == 0, done.stderr
    assert seed not in cmdline and "--seed-file" in cmdline
    assert copies and not any(_holds(data, seed) for data in copies.values())  # logs only, mid-event
    assert (out / "results.json") not in copies
    assert stat.S_IMODE(os.stat(out / "hands").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(out / "results.json").st_mode) == 0o600
    assert "warning: the seed is short enough to guess" in done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["seed"] == seed and "short enough to guess" in results["seed_warning"]
    assert results["seed_sha256"] == commitment_printed(done.stderr) == hashlib.sha256(seed.encode()).hexdigest()

    # Why the warning: one history's first hand gives the seed away to a few thousand shuffles.
    (history,) = (out / "hands").glob("table-*-m-0-r0.phhs")
    text = history.read_text()
    holes = re.search(r'"d dh p1 (\w{4})", "d dh p2 (\w{4})"', text).groups()  # a bot's own and, say, a showdown
    found = [
        s
        for s in range(10000)
        if (lambda deck: (cards_text([deck[0], deck[2]]), cards_text([deck[1], deck[3]])))(
            shuffled_deck(f"{s}/m/0/0", 12)
        )
        == holes
    ]
    assert found == [2026]

    verified = subprocess.run([str(DEALER), "verify", str(out)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert re.search(r": 40 hands in 2 histories re-dealt .*: ok$", verified.stdout.strip()), verified.stdout
    # A history a bot leaves in its scratch folder is not the dealer's, and is not read.
    planted = next((out / "scratch").iterdir()) / "hands" / "table-001-m-0-r0.phhs"
    planted.parent.mkdir()
    planted.write_text("not a history of this seed\n")
    verified = subprocess.run([str(DEALER), "verify", str(out)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert re.search(r": 40 hands in 2 histories re-dealt .*: ok$", verified.stdout.strip()), verified.stdout
    # A history that does not hold the seed's deal fails, with the hand named.
    board = re.search(r'"d db (\w{6})"', text).group(1)
    swapped = board[2:4] + board[0:2] + board[4:]
    history.write_text(text.replace(f'"d db {board}"', f'"d db {swapped}"', 1))
    tampered = subprocess.run([str(DEALER), "verify", str(out)], capture_output=True, text=True, timeout=60)
    assert tampered.returncode == 1, tampered.stdout + tampered.stderr
    assert f"the board is {swapped}" in tampered.stdout and "FAILED: 1 hands" in tampered.stdout


def test_a_league_without_a_seed_commits_to_a_fresh_one_and_reveals_it_only_at_the_end(tmp_path: Path) -> None:
    out = tmp_path / "out"
    league = tmp_path / "league.yaml"
    league.write_text(f"""\
name: secret
seed: random
jobs: 1
out: {out}
bots:
  - {{name: pauses, command: [{sys.executable}, {PAUSES}]}}
  - {{name: caller, command: [{sys.executable}, {CALLER}]}}
game: {{time: {{per_action_ms: 5000, startup_ms: 30000}}}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 10}}
""")
    done, copies, cmdline = watch([str(DEALER), "run", str(league)], out)
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    seed = results["seed"]
    assert re.fullmatch(r"[0-9a-f]{64}", seed) and results["seed_warning"] is None  # 256 bits
    assert results["seed_sha256"] == commitment_printed(done.stderr) == hashlib.sha256(seed.encode()).hexdigest()
    assert seed not in cmdline
    middle = json.loads(copies[out / "results.json"])  # written at the start: committed, not revealed
    assert middle["seed"] is None and middle["seed_sha256"] == results["seed_sha256"]
    # Only the journal keeps the drawn seed (for --resume), and only the dealer's user can read it.
    holding = {path.name for path, data in copies.items() if seed.encode() in data}
    assert holding and holding <= {"journal.sqlite", "journal.sqlite-wal"}, holding
    for path in [out / "results.json", out / "standings.txt", *out.glob("journal.sqlite*")]:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    verified = subprocess.run([str(DEALER), "verify", str(out)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and verified.stdout.strip().endswith(": ok"), verified.stdout + verified.stderr


def test_a_seed_on_the_command_line_is_refused() -> None:
    done = subprocess.run([str(DEALER), "match", "a", "b", "--seed", "1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "can be read by every process" in done.stderr and "--seed-file" in done.stderr
