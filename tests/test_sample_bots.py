"""The sample bots, run as real subprocesses against the scripted fake dealer (tests/fake_dealer.py).

Every bot must say Hello with its token, answer every request legally quoting its table and
request_id, answer a batched message in one BotMessage, and exit 0 after Goodbye; given a wrong
address it must exit non-zero with a one-line message.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fake_dealer import TOKEN, FakeDealer, dealer_pb2, standard_script

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = ROOT / "sample_bots" / "node"
PYTHON_BOTS = ["random_bot", "call_bot", "raise_bot", "strength_bot", "leaky_bot", "mixed_bot"]
ALL_BOTS = [*PYTHON_BOTS, "node"]
FOLD, CHECK_CALL, BET_RAISE = (
    dealer_pb2.ACTION_TYPE_FOLD,
    dealer_pb2.ACTION_TYPE_CHECK_CALL,
    dealer_pb2.ACTION_TYPE_BET_RAISE,
)
TIMEOUT = 30


def command(bot: str) -> list[str]:
    if bot == "node":
        node = shutil.which("node")
        if node is None:
            pytest.fail("Node.js is not installed: the Node sample bot needs `node` on PATH")
        if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
            pytest.fail("sample_bots/node/node_modules is missing: run `npm ci` in sample_bots/node")
        return [node, str(NODE_DIR / "bot.js")]
    return [sys.executable, str(ROOT / "sample_bots" / "python" / f"{bot}.py")]


def launch(bot: str, dealer: str, token: str = TOKEN, *, args: tuple[str, ...] = (), seed: str = "7"):
    env = {**os.environ, "POKER_DEALER": dealer, "POKER_TOKEN": token, "BOT_SEED": seed}
    env.pop("POKER_TLS_CA", None)
    return subprocess.run(
        [*command(bot), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def play(bot: str, *, unix: bool = False, **kwargs) -> tuple[FakeDealer, subprocess.CompletedProcess]:
    script = standard_script()
    with FakeDealer(script) as dealer:
        address = dealer.start(unix=unix)
        done = launch(bot, address, **kwargs)
        assert dealer.sessions, f"{bot} never opened a stream; stderr: {done.stderr}"
        assert dealer.sessions[0].done.wait(5), "the fake dealer's stream did not finish"
    return dealer, done


def answers(dealer: FakeDealer) -> dict[tuple[int, int], dealer_pb2.ActionReply]:
    """Check every scripted request was answered once, legally, in one BotMessage per batch."""
    session = dealer.sessions[0]
    assert session.hello is not None and session.hello.token == TOKEN
    assert session.hello.name
    assert not session.timed_out, f"requests went unanswered: {session.received}"
    found = {}
    for scripted, got in zip(dealer.script, session.received, strict=True):
        requests = {
            (item.table, item.request.request_id): item.request
            for item in scripted.items
            if item.WhichOneof("kind") == "request"
        }
        replies = [reply for message in got for reply in message.actions]
        keys = [(reply.table, reply.request_id) for reply in replies]
        assert sorted(keys) == sorted(requests), "each request answered exactly once, by its table"
        if requests:
            assert len(got) == 1, f"answers to one message must come in one BotMessage, got {got}"
        for reply in replies:
            request = requests[(reply.table, reply.request_id)]
            assert reply.type in (FOLD, CHECK_CALL, BET_RAISE), reply
            if reply.type == FOLD:
                assert request.can_fold, f"folded when a check was free: {reply}"
            if reply.type == BET_RAISE:
                assert request.min_raise_to > 0, f"raised when no raise is allowed: {reply}"
                assert request.min_raise_to <= reply.amount <= request.max_raise_to, reply
            found[(reply.table, reply.request_id)] = reply
    return found


@pytest.mark.parametrize("bot", ALL_BOTS)
def test_bot_answers_every_request_legally_and_exits_after_goodbye(bot):
    dealer, done = play(bot)
    assert done.returncode == 0, f"{bot} exited {done.returncode}: {done.stderr}"
    answers(dealer)


def test_call_bot_always_checks_or_calls():
    dealer, done = play("call_bot")
    assert done.returncode == 0, done.stderr
    assert {reply.type for reply in answers(dealer).values()} == {CHECK_CALL}


def test_raise_bot_raises_the_minimum_when_allowed():
    dealer, done = play("raise_bot")
    assert done.returncode == 0, done.stderr
    found = answers(dealer)
    for scripted in dealer.script:
        for item in scripted.items:
            if item.WhichOneof("kind") != "request":
                continue
            reply = found[(item.table, item.request.request_id)]
            if item.request.min_raise_to > 0:
                assert (reply.type, reply.amount) == (BET_RAISE, item.request.min_raise_to)
            else:
                assert reply.type == CHECK_CALL


def test_strength_bot_plays_by_strength_and_is_deterministic():
    dealer, done = play("strength_bot")
    assert done.returncode == 0, done.stderr
    found = answers(dealer)
    assert found[(7, 101)].type == BET_RAISE  # AK pre-flop
    assert found[(9, 201)].type == CHECK_CALL  # 72o with a free check
    assert found[(7, 102)].type == BET_RAISE  # top two pair on the flop
    assert found[(9, 202)].type == FOLD  # 72 on Q J 9 facing a bet
    assert found[(9, 203)].type == BET_RAISE  # quads on the turn
    again, _ = play("strength_bot")
    assert answers(again) == found


def test_mixed_bot_reports_the_strategy_it_draws_from_and_is_deterministic():
    dealer, done = play("mixed_bot")
    assert done.returncode == 0, done.stderr
    found = answers(dealer)
    for reply in found.values():
        options = {(o.type, o.amount if o.type == BET_RAISE else 0): o.probability for o in reply.strategy}
        assert len(options) == len(reply.strategy) and abs(sum(options.values()) - 1) < 1e-9, reply
        assert options[(reply.type, reply.amount if reply.type == BET_RAISE else 0)] > 0, reply
    assert any(len(r.strategy) > 1 for r in found.values())  # a real mix somewhere
    assert found[(9, 203)].type == BET_RAISE and found[(9, 203)].strategy[0].probability == 1  # quads: always raise
    again, _ = play("mixed_bot")
    assert answers(again) == found


def test_random_bot_is_reproducible_with_bot_seed():
    first, _ = play("random_bot", seed="42")
    second, _ = play("random_bot", seed="42")
    assert answers(first) == answers(second)


@pytest.mark.parametrize("bot", ["call_bot", "node"])
def test_bot_connects_over_a_unix_socket(bot):
    dealer, done = play(bot, unix=True)
    assert done.returncode == 0, done.stderr
    answers(dealer)


@pytest.mark.parametrize("bot", ["raise_bot", "node"])
def test_command_line_options_override_the_environment(bot):
    with FakeDealer(standard_script()) as dealer:
        address = dealer.start()
        done = launch(bot, "127.0.0.1:1", "wrong", args=("--dealer", address, "--token", TOKEN))
    assert done.returncode == 0, done.stderr
    answers(dealer)


@pytest.mark.parametrize("bot", ["raise_bot", "node"])
@pytest.mark.parametrize("token", ["-Xk9_seat-token", "--dealer"])
def test_a_token_that_begins_with_a_dash_is_read_after_token(bot, token):
    """A seat token is URL-safe base64, so about 1 in 64 begins with "-": ``--token TOKEN`` still reads it."""
    with FakeDealer(standard_script(), token=token) as dealer:
        address = dealer.start()
        done = launch(bot, "127.0.0.1:1", "wrong", args=("--token", token, "--dealer", address))
    assert done.returncode == 0, done.stderr
    assert dealer.sessions[0].hello.token == token


@pytest.mark.parametrize("bot", ["call_bot", "node"])
def test_bot_exits_cleanly_when_the_stream_ends_without_goodbye(bot):
    with FakeDealer(standard_script()[:2], goodbye=False) as dealer:
        done = launch(bot, dealer.start())
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("bot", ["call_bot", "node"])
def test_bot_rejected_by_the_dealer_exits_with_one_line(bot):
    with FakeDealer(standard_script()) as dealer:
        done = launch(bot, dealer.start(), "not-the-token")
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "unknown seat token" in done.stderr


@pytest.mark.parametrize("bot", ALL_BOTS)
def test_bot_given_a_wrong_address_exits_nonzero_with_one_line(bot):
    done = launch(bot, "127.0.0.1:1")  # nothing listens on port 1
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "127.0.0.1:1" in lines[0]


def test_a_bot_outside_the_repository_imports_the_installed_sdk(tmp_path):
    """The SDK is a package of the installed project: a bot copied into a folder of its own, run from
    there, imports ``pokerbot`` and plays (it failed with ModuleNotFoundError when the SDK lived in
    sample_bots/python/)."""
    bot = tmp_path / "mine" / "my_bot.py"
    bot.parent.mkdir()
    shutil.copy(ROOT / "sample_bots" / "python" / "call_bot.py", bot)
    with FakeDealer(standard_script()) as dealer:
        env = {**os.environ, "POKER_DEALER": dealer.start(), "POKER_TOKEN": TOKEN, "PYTHONPATH": ""}
        done = subprocess.run(
            [sys.executable, str(bot)], cwd=bot.parent, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
        assert done.returncode == 0, done.stderr
    answers(dealer)


def test_a_bot_outside_the_repository_plays_a_sandboxed_match(tmp_path):
    """The same through ``dealer match``: the sandbox makes the installed SDK readable to a bot whose
    program lies outside the repository, and the bot plays every hand without a fault."""
    bot = tmp_path / "mine" / "my_bot.py"
    bot.parent.mkdir()
    shutil.copy(ROOT / "sample_bots" / "python" / "call_bot.py", bot)
    out = tmp_path / "out"
    dealer = Path(sys.executable).with_name("dealer")
    other = ROOT / "sample_bots" / "python" / "raise_bot.py"
    done = subprocess.run(
        [str(dealer), "match", f"python {bot}", f"python {other}", "--hands", "4", "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((out / "results.json").read_text())
    standings = {row["name"]: row for row in results["standings"]}
    assert standings["my_bot"]["hands"] == 4
    assert standings["my_bot"]["faults"] == {}, results["log_tails"]
