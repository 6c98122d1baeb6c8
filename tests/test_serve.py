"""`dealer serve`: a league that waits for a remote bot, which joins with its tokens.

The league's event is a heads-up duplicate round-robin, so the remote bot has two instances (one
per seat rotation) and needs a token for each; the dealer says that they cannot be sealed.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from conftest import PY_BOTS, ROOT

DEALER = Path(sys.executable).parent / "dealer"
TOKENS = ["alice-token-0123456789abcdef-XYZ", "alice-token-second-instance-QRS"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def league(tmp_path: Path, port: int, tokens_file: bool, tokens: object = TOKENS) -> Path:
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
        (tmp_path / "tokens.yaml").write_text(json.dumps({"alice": tokens}) + "\n")  # JSON is YAML
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
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_serve_plays_a_remote_bot_that_joins_with_its_token_from_the_tokens_file(tmp_path: Path) -> None:
    port = free_port()
    dealer = subprocess.Popen(
        [str(DEALER), "serve", str(league(tmp_path, port, True))],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        note = wait_for_line(dealer, "note:")
        assert "remote bots (alice) cannot be sealed" in note
        wait_for_line(dealer, "waiting for alice.0")
        impostor = remote_bot(port, "not-" + TOKENS[0])
        assert impostor.wait(30) == 1  # refused: a wrong token never joins
        alices = [remote_bot(port, token) for token in TOKENS]  # one process per instance
        assert dealer.wait(120) == 0
        assert [alice.wait(30) for alice in alices] == [0, 0]
    finally:
        dealer.kill()
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    hands = {s["name"]: s["hands"] for s in results["standings"]}
    assert hands == {"alice": 40, "caller": 40}  # one pair: 20 hands in each of the two seat rotations
    assert all(not s["faults"] for s in results["standings"])
    outputs = [
        p.read_text(errors="replace")
        for p in (tmp_path / "out").rglob("*")
        if p.is_file() and p.suffix in (".json", ".txt", ".phhs", ".log")
    ]
    assert not any(token in text for token in TOKENS for text in outputs)
    assert results["sealing"]["remote_not_sealed"] == ["alice"]
    assert "cannot be sealed" in results["sealing"]["note"]


def test_serve_prints_a_fresh_token_once_and_the_bot_joins_with_it(tmp_path: Path) -> None:
    port = free_port()
    dealer = subprocess.Popen(
        [str(DEALER), "serve", str(league(tmp_path, port, False))],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        tokens = [wait_for_line(dealer, f"token for alice.{k}:").split(":", 1)[1].strip() for k in range(2)]
        assert len(set(tokens)) == 2 and all(len(token) >= 32 for token in tokens)
        # The tokens are printed before the server listens; a bot dialling in before that exits
        # ("cannot connect") and the dealer would wait for it for ever.
        wait_for_line(dealer, "dealer listening on")
        alices = [remote_bot(port, token) for token in tokens]
        assert dealer.wait(120) == 0
        assert [alice.wait(30) for alice in alices] == [0, 0]
    finally:
        dealer.kill()
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert {s["name"] for s in results["standings"]} == {"alice", "caller"}


def test_serve_refuses_a_tokens_file_with_fewer_tokens_than_instances(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(DEALER), "serve", str(league(tmp_path, free_port(), True, TOKENS[0]))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "alice needs 2 token(s)" in done.stderr and "one per instance" in done.stderr, done.stderr


def test_a_remote_bots_version_reaches_the_connected_line_escaped(tmp_path: Path) -> None:
    """``Hello.version`` is the bot's text: in serve's "connected" line its control characters are
    escapes, so it cannot retitle the terminal, write its clipboard or forge a line."""
    port = free_port()
    dealer = subprocess.Popen(
        [str(DEALER), "serve", str(league(tmp_path, port, True))],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    version = "\x1b]52;c;cm0gLXJmIH4=\x07\r\x1b[2Kalice.1 connected"
    forger = (
        "import sys, pokerbot, random_bot; "
        f"pokerbot.run(random_bot.decide, name='alice', version={version!r}, argv=sys.argv[1:])"
    )
    alices: list[subprocess.Popen[bytes]] = []
    try:
        wait_for_line(dealer, "waiting for alice.0")
        alices = [
            subprocess.Popen(
                [sys.executable, "-c", forger, "--dealer", f"127.0.0.1:{port}", "--token", token],
                cwd=PY_BOTS,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for token in TOKENS
        ]
        line = wait_for_line(dealer, "alice.0 connected")
        assert dealer.wait(120) == 0
    finally:
        dealer.kill()
        for alice in alices:
            alice.kill()
            alice.wait()
    assert line == "alice.0 connected (version \\x1b]52;c;cm0gLXJmIH4=\\x07\\x0d\\x1b[2Kalice.1 connected)\n", repr(
        line
    )


def test_serve_gives_up_on_a_remote_bot_that_never_connects_after_its_startup_time(tmp_path: Path) -> None:
    path = league(tmp_path, free_port(), True)
    path.write_text(path.read_text().replace("startup_ms: 20000", "startup_ms: 1500"))
    started = time.monotonic()
    done = subprocess.run(
        [str(DEALER), "serve", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=90, check=False
    )
    assert time.monotonic() - started < 60
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: alice.0, alice.1 did not connect within 1500 ms (startup_ms): nothing was played; "
        "start them with their tokens, or pass --keep-going to play without them"
    ], done.stderr
    assert not (tmp_path / "out" / "results.json").exists()
