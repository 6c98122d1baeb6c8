"""One match on every core (``dealer.league.workers``): a match's deal sets spread over worker processes give,
for the same seed, the results.json and the histories of one process, byte for byte."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from dealer.config.league_file import game_config
from dealer.engine.scheduler import compare_tables, plan_tables
from dealer.league import workers
from dealer.league.plan import MatchPlan
from dealer.league.workers import Looks, merged, split
from dealer.stats.paired import PairedSums, PairedTally, Pairing, sample_of
from dealer.stats.records import HandRecord, result_of

DEALER = Path(sys.executable).with_name("dealer")
BOTS = ["python sample_bots/python/random_bot.py", "python sample_bots/python/strength_bot.py"]


def _match(out: Path, workers: int, *options: str) -> subprocess.CompletedProcess[str]:
    command = [str(DEALER), "match", *BOTS, "--hands", "64", "--tables", "4", "--workers", str(workers)]
    command += ["--variant", "pot-limit", "--out", str(out), *options]
    env = {**os.environ, "DEALER_SEED": "workers-1"}
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, check=False)


def _files(out: Path, results: str = "results.json") -> dict[str, bytes]:
    """The results (``results``) and every history, by name."""
    files = {p.name: p.read_bytes() for p in sorted((out / "hands").glob("*.phhs"))}
    return {results: (out / results).read_bytes(), **files}


@pytest.mark.parametrize("sealed", ["--sealed", "--no-sealed"])
def test_one_worker_and_four_give_byte_identical_results_and_histories(tmp_path: Path, sealed: str) -> None:
    one, four = (_match(tmp_path / f"w{n}", n, sealed) for n in (1, 4))
    assert one.returncode == 0, one.stderr
    assert four.returncode == 0, four.stderr
    alone, spread = _files(tmp_path / "w1"), _files(tmp_path / "w4")
    assert len(alone) == 1 + 8  # 4 deal sets in 2 seat rotations: 8 tables, a history each
    assert spread == alone
    results = json.loads(alone["results.json"])
    assert results["hands"] == 64 and results["sealed"] == (sealed == "--sealed")
    assert all(s["faults"] == {} for s in results["standings"])
    # Four parts of their own bots: each instance its own log (sealed: 2 per bot and part; else 1).
    logs = {p.name for p in (tmp_path / "w4" / "logs").glob("*.log")}
    per_part = 2 if sealed == "--sealed" else 1
    assert logs == {f"{bot}.{k}.log" for bot in ("random_bot", "strength_bot") for k in range(4 * per_part)}


def test_a_plan_splits_into_runs_of_whole_deal_sets_numbered_as_one() -> None:
    plan = MatchPlan("m", plan_tables(["a", "b", "c"], duplicate=True, tables=5), game_config(), 10, seed="s")
    parts = split(plan, 4)
    assert [len(p.tables) for p in parts] == [3, 3, 3, 6]  # 5 deal sets of 3 rotations, as even as they go
    assert [t for p in parts for t in p.tables] == list(plan.tables)
    assert [p.first_table for p in parts] == [1, 4, 7, 10]
    deal_sets = [{t.deal_set for t in p.tables} for p in parts]
    assert sum(len(s) for s in deal_sets) == 5  # every table of a deal set in one part
    labels = [{label for row in p.instance_labels() for label in row} for p in parts]
    assert sum(len(s) for s in labels) == len(set().union(*labels))  # no instance in two parts
    assert sum(p.game.time.bank_ms for p in parts) <= plan.game.time.bank_ms  # the bank, shared by tables
    assert split(plan, 1) == [plan] and split(plan, 9)[-1].tables == plan.tables[-3:]
    one_set = MatchPlan("c", compare_tables("n", "o", ["f"], 1), game_config(), 10, seed="s")
    assert split(one_set, 4) == [one_set]


def test_merged_parts_give_the_one_process_result() -> None:
    records = [
        HandRecord(t, f"m/{t // 2}", h, 100, {"a": 7 * h - 30 * t, "b": 30 * t - 7 * h})
        for t in range(4)
        for h in range(3)
    ]
    whole = result_of("m", ("a", "b"), records)
    halves = [result_of("m", ("a", "b"), records[:6]), result_of("m", ("a", "b"), records[6:])]
    halves[1].faults = {"a": {"timeout": 2}}
    halves[0].faults = {"a": {"timeout": 1}, "b": {}}
    together = merged(halves)
    assert json.dumps(together.tally.as_json()) == json.dumps(whole.tally.as_json())
    assert together.faults == {"a": {"timeout": 3}, "b": {}}


def test_a_forfeit_in_one_part_stops_every_part(tmp_path: Path) -> None:
    """Under ``forfeit`` a failed bot stops the match after the hands in play: the whole match, not
    only the part whose instance failed (the others hear of it through the event they share)."""
    out = tmp_path / "out"
    doomed = f"python {ROOT / 'tests' / 'bots' / 'crashes_in_one_part.py'} 2"  # instance 2: the second part's
    command = [str(DEALER), "match", doomed, f"python {ROOT / 'sample_bots' / 'python' / 'call_bot.py'}"]
    command += ["--hands", "8000", "--tables", "4", "--workers", "2", "--fault-policy", "forfeit", "--out", str(out)]
    command += ["--sandbox", "off"]
    env = {**os.environ, "DEALER_SEED": "workers-forfeit"}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["forfeited"] == ["crashes_in_one_part"]
    standing = {s["name"]: s for s in results["standings"]}["crashes_in_one_part"]
    assert standing["faults"] == {"crash": 1}  # the one instance that died, in the second part
    assert results["hands"] < 4000  # the first part (4,000 hands, no crash of its own) stopped too


def _compare(out: Path, workers: int, *options: str) -> dict[str, object]:
    strength, random = (f"python sample_bots/python/{name}_bot.py" for name in ("strength", "random"))
    command = [str(DEALER), "compare", strength, random, "--tables", "4", "--workers", str(workers)]
    command += ["--out", str(out), "--json", *options]
    env = {**os.environ, "DEALER_SEED": "workers-compare"}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr  # 0: better
    data: dict[str, object] = json.loads((out / "compare.json").read_text())
    return data


def test_a_comparison_on_four_workers_gives_one_workers_figures_and_histories(tmp_path: Path) -> None:
    one, four = (_compare(tmp_path / f"w{n}", n, "--hands", "160") for n in (1, 4))
    assert one == four and one["hands_played"] == 160 and one["verdict"] == "better"
    assert _files(tmp_path / "w1", "compare.json") == _files(tmp_path / "w4", "compare.json")


def test_a_sequential_comparison_on_four_workers_looks_where_one_worker_looks(tmp_path: Path) -> None:
    """The test looks at the same stretches of paired deals and stops at the same one: the same verdict
    and figures. Only the hands played after the verdict, before every table heard of it, differ (as
    they do from run to run with one worker)."""
    options = ("--until-significant", "--hands", "4000", "--batch", "20")
    one, four = (_compare(tmp_path / f"w{n}", n, *options) for n in (1, 4))
    assert one["verdict"] == "better" and one["deals"] < 1000  # decided early, at a look
    played = [data.pop("hands_played") for data in (one, four)]
    assert one == four
    assert all(isinstance(n, int) and n >= int(str(one["hands"])) for n in played)


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _mapped(pid: int) -> str:
    """The files process ``pid`` has mapped: its compiled extension modules among them."""
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


def test_the_workers_die_with_a_killed_dealer(tmp_path: Path) -> None:
    """A dealer killed outright (SIGKILL: no clean-up of its own) takes its worker processes with it,
    and so their bots: no part of the match plays on unseen. The workers, which run the ``dealer``
    script again as they start, import no more of the command line than its light entry point."""
    command = [str(DEALER), "match", *BOTS, "--hands", "400000", "--tables", "2", "--workers", "2"]
    env = {**os.environ, "DEALER_SEED": "workers-kill"}
    dealer = subprocess.Popen([*command, "--out", str(tmp_path / "out")], cwd=ROOT, env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list((tmp_path / "out" / "logs").glob("*.log")) and time.monotonic() < deadline:
            time.sleep(0.2)  # the workers started their bots
        workers = _children(dealer.pid)
        assert len(workers) >= 2
        assert "aiohttp" in _mapped(dealer.pid)  # the dealer command has its web server ...
        assert not any("aiohttp" in _mapped(pid) for pid in workers)  # not its workers
    finally:
        dealer.kill()
        dealer.wait()
    deadline = time.monotonic() + 20
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(map(_alive, workers))


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, dead but not yet reaped by init, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _league(folder: Path, jobs: int) -> Path:
    """Three bots in a heads-up duplicate round robin: three matches, ``jobs`` at once."""
    path = folder / "league.yaml"
    bots = ROOT / "sample_bots" / "python"
    path.write_text(
        f"""\
name: workers league
seed: 5151
jobs: {jobs}
out: {folder / "out"}
bots:
  - {{name: random, command: python {bots / "random_bot.py"}}}
  - {{name: strength, command: python {bots / "strength_bot.py"}}}
  - {{name: pid, command: python {ROOT / "tests" / "bots" / "dealer_pid.py"}, limits: {{sandbox: off}}}}
game: {{variant: no-limit, blinds: [50, 100], stack: 10000}}
events:
  - {{name: heads-up, format: round-robin, table_size: 2, hands: 24, duplicate: true}}
""",
        encoding="utf-8",
    )
    return path


def test_a_leagues_jobs_play_in_worker_processes_with_the_results_of_one(tmp_path: Path) -> None:
    """A league's matches are whole (one deal set each): its jobs share the machine as worker
    processes, one match at a time in each, and give what this process alone gives, byte for byte."""
    runs = {}
    for count in (1, 3):
        folder = tmp_path / f"w{count}"
        folder.mkdir()
        command = [str(DEALER), "run", str(_league(folder, 3)), "--workers", str(count)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        out = folder / "out"
        files = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.glob("matches/*/*/hands/*.phhs"))}
        runs[count] = {"results.json": (out / "results.json").read_bytes(), **files}
        logs = "".join(p.read_text() for p in out.glob("matches/*/*/logs/pid.*.log"))
        runs[count, "dealers"] = set(re.findall(r"dealer pid (\d+)", logs))
        runs[count, "marked"] = set(re.findall(r"\[worker (\d+)\] dealer\.", (out / "dealer.log").read_text()))
    assert len(runs[1]) == 1 + 3 * 2  # three matches of two seat rotations
    assert runs[3] == runs[1]
    assert len(runs[1, "dealers"]) == 1 and len(runs[3, "dealers"]) >= 2  # the pid bot's two matches
    assert runs[1, "marked"] == set() and runs[3, "dealers"] <= runs[3, "marked"]  # whose log line is whose


def test_a_fixed_listen_address_plays_in_one_process_unless_workers_are_asked_for(tmp_path: Path) -> None:
    """Each worker has a server of its own: a match on a fixed --listen port is not spread by default
    (it plays as before workers), and asking for workers there is a one-line usage error."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{free.getsockname()[1]}"
    asked = _match(tmp_path / "asked", 2, "--listen", address)
    assert asked.returncode == 2
    assert asked.stderr.strip().splitlines()[-1] == (
        f"error: a match spread over worker processes listens on port 0, not {address}: give --workers 1"
    )
    command = [str(DEALER), "match", *BOTS, "--hands", "16", "--tables", "4", "--listen", address]
    command += ["--out", str(tmp_path / "fixed")]
    env = {**os.environ, "DEALER_SEED": "workers-listen"}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr
    logs = {p.name for p in (tmp_path / "fixed" / "logs").glob("*.log")}
    assert logs == {f"{bot}.{k}.log" for bot in ("random_bot", "strength_bot") for k in range(2)}  # one process


def test_a_comparisons_looks_keep_only_the_stretches_not_yet_closed() -> None:
    """The parent closes the whole's stretch ``k`` once every part sent its own, and keeps nothing of
    it after: a comparison's memory does not grow with its length, spread or not."""
    pairing = Pairing("new", "old", "raw", 1)
    looks = Looks(PairedTally(pairing, {}), 2)

    def stretch(hand: int, deal_set: str) -> PairedSums:
        records = [HandRecord(t, deal_set, hand, 100, {"new": 10 * hand + t, "old": -10 * hand - t}) for t in (0, 1)]
        sample = sample_of(("compare", deal_set, hand), records, "new", "old")
        assert sample is not None
        return PairedSums.of([sample], "raw")

    for hand in range(3):
        looks.add(0, stretch(hand, "c/0"))
    assert looks.tally.sums.deals == 0 and len(looks.stretches[0]) == 3  # the other part has closed none yet
    for hand in range(3):
        looks.add(1, stretch(hand, "c/1"))
    assert looks.tally.sums.deals == 6 and not any(looks.stretches)
    looks.add(0, stretch(3, "c/0"))
    looks.leave([result_of("compare", ("new", "old"), []), result_of("compare", ("new", "old"), [])])
    assert looks.tally.rest.deals == 1 and not any(looks.stretches)


def test_a_worker_looks_at_the_shared_stop_now_and_then_not_after_every_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """A match asks whether to stop after every hand: the shared event's lock is looked at once every
    STOP_LOOK_S at most, and a stop is still heard within that."""

    class Event:
        looks = 0
        flag = False

        def is_set(self) -> bool:
            self.looks += 1
            return self.flag

    event = Event()
    monkeypatch.setitem(workers._shared, "stop", event)
    stopped = workers.Stopped()
    assert not any(stopped() for _ in range(10000)) and event.looks <= 2
    event.flag = True
    time.sleep(workers.STOP_LOOK_S)
    assert stopped() and stopped() and event.looks <= 3


def test_a_short_match_plays_in_one_process_unless_workers_are_asked_for(tmp_path: Path) -> None:
    """By default a match spreads over one more worker per HANDS_PER_WORKER hands only, up to the cores:
    a worker's start costs about what a dealer deals in a second, so a short match stays in one."""
    assert workers.default_workers(workers.HANDS_PER_WORKER - 1) == 1
    assert workers.default_workers(10**9) == workers.cores()
    command = [str(DEALER), "match", *BOTS, "--hands", "64", "--tables", "4", "--out", str(tmp_path / "out")]
    env = {**os.environ, "DEALER_SEED": "workers-short"}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr
    logs = {p.name for p in (tmp_path / "out" / "logs").glob("*.log")}
    assert logs == {f"{bot}.{k}.log" for bot in ("random_bot", "strength_bot") for k in range(2)}  # one process


def test_a_worker_that_dies_is_one_line_charged_to_no_bot_and_the_league_resumes(tmp_path: Path) -> None:
    """A worker process killed outright (here by a bot run without its sandbox, standing for the
    out-of-memory killer) stops the league with one line that blames no bot and says what is kept;
    ``--resume`` then plays the rest, and no bot has a fault for it."""
    path = _league(tmp_path, 2)
    killer = f"python {ROOT / 'tests' / 'bots' / 'kills_its_dealer.py'} {tmp_path / 'killed-once'}"
    text = path.read_text(encoding="utf-8").replace(f"python {ROOT / 'tests' / 'bots' / 'dealer_pid.py'}", killer)
    path.write_text(text, encoding="utf-8")
    command = [str(DEALER), "run", str(path), "--workers", "2"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert re.fullmatch(
        r"error: a worker process died abruptly \(killed from outside, or out of memory\) while playing match "
        r"heads-up/\d+: a dealer failure, charged to no bot; [0-2] of 3 matches finished and kept in "
        rf"{re.escape(str(tmp_path / 'out' / 'journal.sqlite'))}: "
        r"run the same command with --resume to play the others",
        lines[0],
    ), lines[0]
    assert "died abruptly" in (tmp_path / "out" / "dealer.log").read_text(encoding="utf-8")
    again = subprocess.run([*command, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["matches"] == {"finished": 3, "total": 3}
    assert results["failures"] == {} and results["forfeits"] == []
    lost = re.search(r"while playing match (\S+):", lines[0])
    assert lost is not None and lost[1] in results["replayed"]  # played again from its start
    assert all(bot["faults"] == {} and bot["stopped"] == 0 for bot in results["events"]["heads-up"])


def test_a_match_part_whose_worker_dies_is_one_line_naming_the_part(tmp_path: Path) -> None:
    """``dealer match`` spread over workers: a part's worker killed outright is one line naming the
    part, exit code 2, no traceback."""
    killer = f"python {ROOT / 'tests' / 'bots' / 'kills_its_dealer.py'} {tmp_path / 'killed-once'}"
    command = [str(DEALER), "match", killer, BOTS[1], "--hands", "400", "--tables", "4", "--workers", "2"]
    command += ["--sandbox", "off", "--out", str(tmp_path / "out")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr[-3000:]
    assert re.search(
        r"^error: a worker process died abruptly .* while playing part [12] of 2 of the match: ", done.stderr, re.M
    )
    assert "Traceback" not in done.stderr
