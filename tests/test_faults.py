"""Fault handling end to end: real matches against misbehaving bot processes (tests/bots/).

Every test plays a short match (fast clocks: 200 ms per action, a 300 ms bank, 2 s to connect)
between an honest sample bot and one misbehaving bot, and checks that the match finishes, the
honest bot's hands all stand with chips conserved, the fault is counted under the right reason,
and no bot process (nor a bot's child) is left running.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealer.config import game_config
from dealer.match import BotEntry, Match, MatchPlan, MatchResult, plan_tables
from dealer.server import DealerServer, Fault

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"
HONEST = ("python", str(ROOT / "sample_bots" / "python" / "random_bot.py"))
CALLER = ("python", str(ROOT / "sample_bots" / "python" / "call_bot.py"))
TIME = {"per_action_ms": 200, "bank_ms": 300, "grace_ms": 50, "startup_ms": 10000}
GAME = game_config(time=TIME)  # start-up waits end when the bot connects: a long limit costs nothing
QUICK_START = game_config(time={**TIME, "startup_ms": 4000})  # for bots that never connect (honest bots
# must still start within it on a loaded machine)
MATCH_TIMEOUT_S = 40


def bot(script: str, *args: str) -> tuple[str, ...]:
    return ("python", str(BOTS / script), *args)


class Played:
    """A finished match: its result, output folder and the server's authentication failures."""

    def __init__(self, result: MatchResult, out: Path, auth_failures: dict[str, int], seconds: float) -> None:
        self.result, self.out, self.auth_failures, self.seconds = result, out, auth_failures, seconds

    def faults(self, name: str = "bad") -> dict[str, int]:
        return self.result.faults.get(name, {})

    def log(self, name: str = "bad", restart: int = 0) -> str:
        suffix = f".{restart}" if restart else ""
        return (self.out / "logs" / f"{name}{suffix}.log").read_text(errors="replace")

    def pids(self) -> list[int]:
        pids = []
        for path in (self.out / "scratch").glob("*/pids.txt"):
            pids += [int(line) for line in path.read_text().split()]
        return pids


def play(tmp_path: Path, bad: tuple[str, ...], *, honest: tuple[str, ...] = HONEST, hands: int = 6,
         policy: str = "fold", duplicate: bool = True, game=GAME) -> Played:
    """Play honest vs bad and return the result, with a guard against a match that never ends."""
    out = tmp_path / "out"
    names = ["honest", "bad"]
    plan = MatchPlan("faults", plan_tables(names, duplicate=duplicate, tables=1), game, hands=hands, seed=7,
                     fault_policy=policy)
    entries = {"honest": BotEntry("honest", honest), "bad": BotEntry("bad", bad)}

    async def main() -> tuple[MatchResult, dict[str, int]]:
        server = DealerServer()
        await server.start()
        try:
            result = await asyncio.wait_for(Match(plan, server, entries, out=out, base=ROOT).run(), MATCH_TIMEOUT_S)
        finally:
            await server.stop(0.5)
        return result, dict(server.auth_failures)

    started = time.monotonic()
    result, auth_failures = asyncio.run(main())
    played = Played(result, out, auth_failures, time.monotonic() - started)
    assert_no_processes_left(played)
    return played


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def assert_no_processes_left(played: Played) -> None:
    pids = played.pids()
    deadline = time.monotonic() + 2  # an orphaned child may take a moment to be reaped by init
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)], f"bot processes left running: {pids}"


def assert_honest_results_stand(played: Played, hands_per_table: int = 6, tables: int = 2) -> None:
    """Every planned hand is recorded with both bots, chips conserved; the honest bot has no faults."""
    records = played.result.hands
    assert len(records) == hands_per_table * tables
    assert all(set(r.net) == {"honest", "bad"} for r in records)
    assert all(sum(r.net.values()) == 0 for r in records), "chips not conserved"
    assert played.faults("honest") == {}, played.result.log_tails


# ---------------------------------------------------------------------------- connecting


def test_never_connects_is_no_connect_and_its_process_group_is_killed(tmp_path: Path) -> None:
    played = play(tmp_path, bot("never_connects.py"), game=QUICK_START)
    assert_honest_results_stand(played)
    assert played.faults() == {Fault.NO_CONNECT: 1}
    assert len(played.pids()) == 2  # the bot and its child, both gone (it ignores SIGTERM)


def test_wrong_token_is_refused_and_counted(tmp_path: Path) -> None:
    played = play(tmp_path, bot("wrong_token.py"))
    assert_honest_results_stand(played)
    assert played.auth_failures.get("unknown token", 0) >= 1
    assert "UNAUTHENTICATED" in played.log()
    assert played.faults() == {Fault.AUTH: 1}, played.faults()


def test_wrong_token_bot_that_stays_is_still_an_authentication_fault(tmp_path: Path) -> None:
    played = play(tmp_path, bot("wrong_token.py", "stay"), game=QUICK_START)
    assert_honest_results_stand(played)
    assert played.faults() == {Fault.AUTH: 1}, played.faults()


def test_second_stream_with_the_same_token_is_refused_and_the_first_plays_on(tmp_path: Path) -> None:
    played = play(tmp_path, bot("connects_twice.py"))
    assert_honest_results_stand(played)
    assert "second stream: ALREADY_EXISTS" in played.log()
    assert played.faults() == {Fault.AUTH: 1}
    assert "first stream done" in played.log()


# ---------------------------------------------------------------------------- time


def test_hanging_bot_times_out_three_times_then_is_folded(tmp_path: Path) -> None:
    played = play(tmp_path, bot("hangs.py"), duplicate=False)  # one table: strikes come one at a time
    assert_honest_results_stand(played, tables=1)
    assert played.faults() == {Fault.TIMEOUT: 3}
    assert len(played.pids()) == 2


def test_slow_bot_eats_its_bank_then_times_out(tmp_path: Path) -> None:
    played = play(tmp_path, bot("slow.py", "250"), duplicate=False)
    assert_honest_results_stand(played, tables=1)
    # a late answer is a timeout, not also an unexpected reply
    assert played.faults() == {Fault.TIMEOUT: 3}
    banks = [int(b) for b in re.findall(r"^bank (\d+)$", played.log(), re.M)]
    assert banks[0] == TIME["bank_ms"] and banks[-1] == 0 and banks == sorted(banks, reverse=True)


def test_slightly_slow_bot_within_its_bank_is_not_faulted_and_its_bank_shrinks(tmp_path: Path) -> None:
    played = play(tmp_path, bot("slow.py", "150", "1"), duplicate=False)  # slow once, by ~100 ms net of grace
    assert_honest_results_stand(played, tables=1)
    assert played.faults() == {}
    banks = [int(b) for b in re.findall(r"^bank (\d+)$", played.log(), re.M)]
    assert banks[0] == TIME["bank_ms"]
    assert banks == sorted(banks, reverse=True), banks
    # charged ~100 ms once: only the part past per_action_ms + grace (more only if the machine is loaded)
    assert 0 < banks[-1] < TIME["bank_ms"] - 50, banks


# ---------------------------------------------------------------------------- crashes


@pytest.mark.parametrize("how", ["exit", "signal"])
def test_crash_mid_hand_is_counted_and_the_bot_folds_for_the_rest(tmp_path: Path, how: str) -> None:
    played = play(tmp_path, bot("crashes.py", "3", how, "child"))
    assert_honest_results_stand(played)
    assert played.faults() == {Fault.CRASH: 1, Fault.DISCONNECT: 1}
    assert "dying" in played.log()
    assert len(played.pids()) == 2  # the crashed bot's child was killed with its group


def test_crash_before_connecting_is_a_crash_noticed_at_once_despite_a_child_holding_its_output(
    tmp_path: Path,
) -> None:
    played = play(tmp_path, bot("crashes.py", "0", "early", "child"))
    assert_honest_results_stand(played)
    assert played.faults() == {Fault.CRASH: 1}
    assert played.seconds < TIME["startup_ms"] / 1000  # not mistaken for a bot still starting up
    assert "dying before connecting" in played.log()


@pytest.mark.parametrize("oom", [True, False])
def test_a_bot_that_drops_its_connection_then_hangs_is_stopped_and_its_memory_failure_named(
    tmp_path: Path, oom: bool
) -> None:
    played = play(tmp_path, bot("drops_then_hangs.py", *(["oom"] if oom else [])))
    assert_honest_results_stand(played)
    # stopped by the dealer, not exited by itself: "memory" only when its log says so, never "crash"
    assert played.faults() == ({Fault.MEMORY: 1, Fault.DISCONNECT: 1} if oom else {Fault.DISCONNECT: 1})
    assert "hanging" in played.log()
    assert_no_processes_left(played)


def test_a_child_that_left_the_process_group_does_not_hang_the_match(tmp_path: Path) -> None:
    try:
        played = play(tmp_path, bot("crashes.py", "3", "exit", "escape"))
        assert_honest_results_stand(played)
        assert played.faults() == {Fault.CRASH: 1, Fault.DISCONNECT: 1}
        assert played.seconds < 15
    finally:  # out of the dealer's reach (its own session): clean up here
        for path in (tmp_path / "out" / "scratch").glob("*/escaped.txt"):
            try:
                os.kill(int(path.read_text()), 9)
            except ProcessLookupError:
                pass


def test_forfeit_policy_stops_the_match(tmp_path: Path) -> None:
    played = play(tmp_path, bot("crashes.py", "3"), policy="forfeit", hands=20)
    assert played.result.forfeited == ["bad"]
    assert 0 < len(played.result.hands) < 40
    assert all(sum(r.net.values()) == 0 for r in played.result.hands)
    assert played.faults()[Fault.CRASH] == 1


def test_restart_policy_restarts_a_crashed_bot_which_plays_again(tmp_path: Path) -> None:
    played = play(tmp_path, bot("crashes.py", "3"), honest=CALLER, policy="restart", hands=8, duplicate=False)
    assert_honest_results_stand(played, hands_per_table=8, tables=1)
    logs = sorted(p.name for p in (played.out / "logs").glob("bad*.log"))
    restarts = len(logs) - 1
    assert restarts >= 1, logs
    assert played.faults()[Fault.CRASH] == played.faults()[Fault.DISCONNECT]
    assert played.faults()[Fault.CRASH] >= restarts
    first_crash = int(re.search(r"dying \(exit\) at hand (\d+)", played.log()).group(1))
    later = [int(h) for h in re.findall(r"^decide hand (\d+)", played.log(restart=1), re.M)]
    assert later and min(later) > first_crash  # real decisions after the crash, from the new process
    assert played.result.forfeited == []


# ---------------------------------------------------------------------------- protocol


def test_garbage_is_counted_by_reason(tmp_path: Path) -> None:
    played = play(tmp_path, bot("garbage.py"))
    assert_honest_results_stand(played)
    faults = played.faults()
    assert faults.get(Fault.ILLEGAL) == 2, faults
    assert faults.get(Fault.UNEXPECTED) == 3, faults
    assert faults.get(Fault.PROTOCOL) == 1, faults
    assert Fault.DISCONNECT not in faults, "the dealer cut it off: not also a disconnect"
    assert faults.keys() <= {Fault.ILLEGAL, Fault.UNEXPECTED, Fault.PROTOCOL}, faults
    assert "sending garbage bytes" in played.log()
    assert "stream ended: StatusCode.INVALID_ARGUMENT" in played.log()


def test_flood_of_stray_messages_cuts_the_bot_off(tmp_path: Path) -> None:
    played = play(tmp_path, bot("garbage.py", "flood"))
    assert_honest_results_stand(played)
    faults = played.faults()
    assert faults[Fault.FLOOD] == 1 and faults.keys() <= {Fault.FLOOD, Fault.TIMEOUT}, faults  # no "disconnect"
    assert "stream ended: StatusCode.RESOURCE_EXHAUSTED" in played.log()


# ---------------------------------------------------------------------------- CLI


def test_cli_match_prints_the_failures_column(tmp_path: Path) -> None:
    dealer = Path(sys.executable).with_name("dealer")
    done = subprocess.run(
        [str(dealer), "match", f"python {BOTS / 'crashes.py'} 2", "python sample_bots/python/call_bot.py",
         "--hands", "8", "--seed", "1", "--per-action-ms", "200", "--bank-ms", "300", "--startup-ms", "2000",
         "--out", str(tmp_path / "cli")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if "failures" in line)
    row = next(line for line in done.stdout.splitlines() if " crashes " in line)
    assert header.rstrip().endswith("failures")
    assert "crash 1" in row and "disconnect 1" in row, done.stdout
    call_row = next(line for line in done.stdout.splitlines() if " call_bot " in line)
    assert call_row.rstrip().endswith("-")
