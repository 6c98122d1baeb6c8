"""`dealer serve`: a league that waits for a remote bot, which joins with its token."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from conftest import PY_BOTS, ROOT

DEALER = Path(sys.executable).parent / "dealer"
TOKEN = "alice-token-0123456789abcdef-XYZ"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def league(tmp_path: Path, port: int, tokens_file: bool) -> Path:
    path = tmp_path / "league.yaml"
    lines = [
        "name: remote night",
        "seed: 5",
        "jobs: 1",
        f"out: {tmp_path / 'out'}",
        f"listen: 127.0.0.1:{port}",
        "bots:",
        f"  - {{name: caller, command: [{sys.executable}, {PY_BOTS / 'call_bot.py'}]}}",
        "  - {name: alice, remote: true}",
        "game: {time: {per_action_ms: 5000, startup_ms: 20000}}",
        "events:",
        "  - {name: hu, format: round-robin, table_size: 2, hands: 20}",
    ]
    if tokens_file:
        (tmp_path / "tokens.yaml").write_text(f"alice: {TOKEN}\n")
        lines.insert(5, "tokens_file: tokens.yaml")
    path.write_text("\n".join(lines) + "\n")
    return path


def wait_for_line(process: subprocess.Popen[str], text: str, timeout_s: float = 30) -> str:
    """Read the dealer's stdout until a line containing ``text``; return it."""
    deadline = time.monotonic() + timeout_s
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if text in line:
            return line
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"the dealer never printed {text!r}")


def remote_bot(port: int, token: str) -> subprocess.Popen[bytes]:
    """Alice's bot on her laptop: the SDK's random bot dialling in with its token."""
    return subprocess.Popen(
        [sys.executable, str(PY_BOTS / "random_bot.py"), "--dealer", f"127.0.0.1:{port}", "--token", token],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def test_serve_plays_a_remote_bot_that_joins_with_its_token_from_the_tokens_file(tmp_path: Path) -> None:
    port = free_port()
    dealer = subprocess.Popen([str(DEALER), "serve", str(league(tmp_path, port, True))], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        wait_for_line(dealer, "waiting for alice")
        impostor = remote_bot(port, "not-" + TOKEN)
        assert impostor.wait(30) == 1  # refused: a wrong token never joins
        alice = remote_bot(port, TOKEN)
        assert dealer.wait(120) == 0
        assert alice.wait(30) == 0
    finally:
        dealer.kill()
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    hands = {s["name"]: s["hands"] for s in results["standings"]}
    assert hands == {"alice": 40, "caller": 40}  # one pair: 20 hands in each of the two seat rotations
    assert all(not s["faults"] for s in results["standings"])
    outputs = [p.read_text(errors="replace") for p in (tmp_path / "out").rglob("*") if p.is_file()
               and p.suffix in (".json", ".txt", ".phhs", ".log")]
    assert not any(TOKEN in text for text in outputs)


def test_serve_prints_a_fresh_token_once_and_the_bot_joins_with_it(tmp_path: Path) -> None:
    port = free_port()
    dealer = subprocess.Popen([str(DEALER), "serve", str(league(tmp_path, port, False))], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        token = wait_for_line(dealer, "token for alice:").split(":", 1)[1].strip()
        assert len(token) >= 32
        alice = remote_bot(port, token)
        assert dealer.wait(120) == 0
        assert alice.wait(30) == 0
    finally:
        dealer.kill()
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert {s["name"] for s in results["standings"]} == {"alice", "caller"}
