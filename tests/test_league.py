"""The league runner: ``build_jobs`` properties, and whole leagues through the ``dealer`` CLI.

The first half checks the jobs a league file turns into (pure, no processes): duplicate groups
seat every bot in every seat once, round-robins bring every pair together, gauntlets always seat
the challenger, freezeouts are freezeouts, and match ids are unique and stable.

The second half runs ``dealer run`` / ``dealer validate`` in subprocesses on small league files
with real bot processes (the Python sample bots and the Node bot): results.json and the output
folders; the same seed gives byte-identical results; a run SIGKILLed in the middle and resumed
with ``--resume`` keeps every finished match, plays the cut-off ones again with new deals, and
leaves no bot behind; broken files are rejected line by line before anything starts; a bot that
dies at start-up is charged with it while the league goes on.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, node_command, processes_under
from dealer.cli.options import log_to
from dealer.config.league_file import load_league, parse_league
from dealer.engine.scheduler import duplicate_rotations
from dealer.league.jobs import MatchJob
from dealer.league.run import build_jobs
from dealer.league.summary import failures_text
from dealer.text import printable

DEALER = Path(sys.executable).parent / "dealer"
PY_BOTS = ROOT / "sample_bots" / "python"
RUN_TIMEOUT_S = 180
# Generous clocks: a loaded two-core test machine must not turn into timeouts of honest bots
# (a timeout would change the results and break the determinism checks).
CLOCK = "{per_action_ms: 3000, bank_ms: 30000, grace_ms: 200, startup_ms: 30000}"


# ------------------------------------------------------------------------------ build_jobs


def _league_text(n_bots: int, table_size: int, *, duplicate: bool, meetings: int, seed: int) -> str:
    """A league of ``n_bots`` bots with a round-robin, a gauntlet (challenger b0) and a freezeout."""
    bots = "\n".join(f"  - {{name: b{i}, command: [{sys.executable}, -c, pass, b{i}]}}" for i in range(n_bots))
    dup = "true" if duplicate else "false"
    return f"""\
name: props
seed: {seed}
bots:
{bots}
events:
  - {{name: rr, format: round-robin, table_size: {table_size}, hands: 7, duplicate: {dup}, meetings: {meetings}}}
  - {{name: gauntlet, format: gauntlet, challenger: b0, table_size: {table_size}, hands: 5, duplicate: {dup}}}
  - {{name: final, format: freezeout, table_size: {table_size}, blind_levels: [[50, 100], [100, 200, 10]],
     hands_per_level: 5, max_hands: 40}}
"""


def _by_event(jobs: list[MatchJob]) -> dict[str, list[MatchJob]]:
    events: dict[str, list[MatchJob]] = collections.defaultdict(list)
    for job in jobs:
        events[job.event].append(job)
    return events


def _job_bots(job: MatchJob) -> set[str]:
    return {name for table in job.plan.tables for name in table.seats}


def _check_group(job: MatchJob, duplicate: bool) -> None:
    """A duplicate group: one table per seat rotation on the group's deals, each bot in each seat once."""
    tables = job.plan.tables
    assert all(t.deal_set == job.plan.match_id for t in tables)
    if not duplicate:
        assert len(tables) == 1 and tables[0].rotation == 0
        return
    n = len(tables[0].seats)
    assert len(tables) == n
    assert [t.rotation for t in tables] == list(range(n))
    assert [t.seats for t in tables] == duplicate_rotations(tables[0].seats)
    bots = _job_bots(job)
    assert len(bots) == n
    for seat in range(n):
        assert sorted(t.seats[seat] for t in tables) == sorted(bots), f"seat {seat} of {job.plan.match_id}"


def _signature(jobs: list[MatchJob]) -> list[tuple[object, ...]]:
    return [(j.event, j.plan, tuple(sorted(j.bots.items())), j.out, j.base) for j in jobs]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_bots=st.integers(2, 7),
    table_data=st.data(),
    duplicate=st.booleans(),
    meetings=st.integers(1, 2),
    seed=st.integers(0, 10_000),
)
def test_build_jobs_properties(
    n_bots: int, table_data: st.DataObject, duplicate: bool, meetings: int, seed: int
) -> None:
    table_size = table_data.draw(st.integers(2, min(n_bots, 6)), label="table_size")
    text = _league_text(n_bots, table_size, duplicate=duplicate, meetings=meetings, seed=seed)
    jobs = build_jobs(parse_league(text))
    bots = [f"b{i}" for i in range(n_bots)]
    events = _by_event(jobs)
    assert list(events) == ["rr", "gauntlet", "final"]

    # Match ids (and output folders) are unique, and a second build of a second parse is identical.
    ids = [j.plan.match_id for j in jobs]
    assert len(set(ids)) == len(ids)
    assert len({j.out for j in jobs}) == len(jobs)
    assert all(i.startswith(f"{j.event}/") for i, j in zip(ids, jobs, strict=True))
    assert _signature(build_jobs(parse_league(text))) == _signature(jobs)
    # Tables are numbered across the league from 1, match after match: a process playing several
    # matches at once never gives two tables one number, and a table's number is the same in every run.
    numbers = [j.plan.first_table + k for j in jobs for k in range(len(j.plan.tables))]
    assert numbers == list(range(1, len(numbers) + 1))

    # Round-robin: every pair meets at least `meetings` times (heads-up: exactly), in duplicate groups.
    meet: collections.Counter[frozenset[str]] = collections.Counter()
    for job in events["rr"]:
        _check_group(job, duplicate)
        assert job.plan.mode == "reset" and job.plan.hands == 7
        assert all(len(t.seats) == table_size for t in job.plan.tables)
        meet.update(frozenset(p) for p in itertools.combinations(sorted(_job_bots(job)), 2))
    for pair in itertools.combinations(bots, 2):
        count = meet[frozenset(pair)]
        assert count == meetings if table_size == 2 else count >= meetings, (pair, count)

    # Gauntlet: the challenger is at every table; every field bot meets it (heads-up: exactly once).
    met_challenger: collections.Counter[str] = collections.Counter()
    for job in events["gauntlet"]:
        _check_group(job, duplicate)
        assert "b0" in _job_bots(job)
        assert all("b0" in t.seats for t in job.plan.tables)
        met_challenger.update(_job_bots(job) - {"b0"})
    assert set(met_challenger) == set(bots[1:])
    if table_size == 2:
        assert all(c == 1 for c in met_challenger.values())

    # Freezeout: never duplicate, one table per match, played as a freezeout up to max_hands.
    seen: set[str] = set()
    for job in events["final"]:
        assert job.plan.mode == "freezeout"
        assert len(job.plan.tables) == 1 and len(job.plan.tables[0].seats) == table_size
        assert job.plan.hands == 40 and job.plan.hands_per_level == 5
        assert job.plan.blind_levels == ((50, 100, 0), (100, 200, 10))
        seen |= _job_bots(job)
    assert seen == set(bots)


def test_build_jobs_full_table_and_seed() -> None:
    """A full field is one duplicate group of n rotations; the seed changes no match id."""
    one = build_jobs(parse_league(_league_text(4, 4, duplicate=True, meetings=1, seed=1)))
    two = build_jobs(parse_league(_league_text(4, 4, duplicate=True, meetings=1, seed=2)))
    rr = _by_event(one)["rr"]
    assert len(rr) == 1 and len(rr[0].plan.tables) == 4
    assert [j.plan.match_id for j in one] == [j.plan.match_id for j in two]
    assert {j.plan.seed for j in one} == {"1"}


def test_an_integer_seed_and_its_digits_quoted_are_one_seed() -> None:
    """The seed becomes text in one place (``LeagueConfig.seed_text``): an integer seed and the same
    digits quoted plan the same line-ups and deal the same decks, and results.json commits to that text."""
    number = _league_text(5, 3, duplicate=True, meetings=1, seed=98765432101234567890)
    quoted = number.replace("seed: 98765432101234567890", "seed: '98765432101234567890'")
    configs = parse_league(number), parse_league(quoted)
    assert [c.seed_text for c in configs] == ["98765432101234567890"] * 2 and configs[0].seed != configs[1].seed
    one, two = (build_jobs(c) for c in configs)
    assert [(j.plan.seed, j.plan.tables) for j in one] == [(j.plan.seed, j.plan.tables) for j in two]
    assert {j.plan.seed for j in one} == {"98765432101234567890"}


def test_a_compare_event_is_one_match_per_opponent_with_both_versions_on_its_deals() -> None:
    bots = "\n".join(f"  - {{name: {n}, command: [{sys.executable}, -c, pass, {n}]}}" for n in ("a", "b", "f", "g"))
    events = """\
  - {name: cmp, format: compare, new: a, old: b, field: [f, g], hands: 800}
  - {name: alone, format: compare, new: a, old: b, hands: 300}
"""
    jobs = build_jobs(parse_league(f"name: cmp\nseed: 5\nbots:\n{bots}\nevents:\n{events}"))
    assert [j.plan.match_id for j in jobs] == ["cmp/0000", "cmp/0001", "alone/0000"]
    for job, opponent in zip(jobs, ["f", "g"], strict=False):
        tables = job.plan.tables
        assert [t.seats for t in tables] == [("a", opponent), (opponent, "a"), ("b", opponent), (opponent, "b")]
        assert {t.deal_set for t in tables} == {job.plan.match_id}  # both versions on the opponent's deals
        assert job.plan.hands == 200 and job.plan.luck and job.plan.strategies == ("a", "b")
    alone = jobs[2].plan
    assert [(t.seats, t.rotation) for t in alone.tables] == [(("a", "b"), 0), (("b", "a"), 1)]
    assert alone.hands == 150 and {t.deal_set for t in alone.tables} == {"alone/0000"}


def test_build_jobs_of_the_shipped_league() -> None:
    config = load_league(ROOT / "tournaments.yaml")
    jobs = build_jobs(config)
    assert _signature(jobs) == _signature(build_jobs(load_league(ROOT / "tournaments.yaml")))
    for job in jobs:
        event = next(e for e in config.events if e.name == job.event)
        if event.format == "freezeout":
            assert job.plan.mode == "freezeout" and len(job.plan.tables) == 1
        else:
            _check_group(job, event.duplicate)


# ------------------------------------------------------------------------------ leagues through the CLI


def _py(bot: str) -> str:
    return f"{sys.executable} {PY_BOTS / f'{bot}_bot.py'}"


def league_yaml(folder: Path, out: Path, *, name: str = "league.yaml", jobs: int = 2) -> Path:
    """The test league: 4 bots (one Node), heads-up duplicate, 3-max duplicate and a 4-max freezeout."""
    node = " ".join(node_command())
    path = folder / name
    path.write_text(
        f"""\
name: test league
seed: 4242
jobs: {jobs}
out: {out}
bots:
  - {{name: strength, command: {_py("strength")}}}
  - {{name: random,   command: {_py("random")}}}
  - {{name: caller,   command: {_py("call")}}}
  - {{name: node,     command: {node}}}
game: {{variant: no-limit, blinds: [50, 100], stack: 10000, time: {CLOCK}}}
events:
  - {{name: heads-up, format: round-robin, table_size: 2, hands: 15, duplicate: true}}
  - {{name: three-max, format: round-robin, table_size: 3, hands: 8, duplicate: true}}
  - {{name: final, format: freezeout, table_size: 4, blind_levels: [[50, 100], [200, 400], [1000, 2000, 100]],
     hands_per_level: 8, max_hands: 60}}
""",
        encoding="utf-8",
    )
    return path


def dealer(*args: str | Path, timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DEALER), *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def results_of(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


class LeagueRun:
    def __init__(self, yaml: Path, out: Path, proc: subprocess.CompletedProcess[str]) -> None:
        self.yaml, self.out, self.proc = yaml, out, proc
        self.config = load_league(yaml)
        self.jobs = build_jobs(self.config)


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> LeagueRun:
    """One uninterrupted league run, shared by the checks below."""
    folder = tmp_path_factory.mktemp("league")
    out = folder / "out"
    yaml = league_yaml(folder, out)
    proc = dealer("run", yaml)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return LeagueRun(yaml, out, proc)


def _check_freezeout_figures(folder: Path, lines: list[dict]) -> None:
    """A freezeout's chips and bb/100, computed again from its hand histories (read as TOML): its
    stacks carry over, so every hand counts in the first level's big blind (100 here), and a bot
    that lost chips never shows a positive bb/100 (a stack lost at 2,000 a big blind is lost whole)."""
    chips, hands, blinds = collections.Counter[str](), collections.Counter[str](), set()
    for path in folder.glob("*/hands/*.phhs"):
        for hand in tomllib.loads(path.read_text(encoding="utf-8")).values():
            blinds.add(max(hand["blinds_or_straddles"]))
            for name, before, after in zip(
                hand["players"], hand["starting_stacks"], hand["finishing_stacks"], strict=True
            ):
                chips[name] += after - before
                hands[name] += 1
    assert len(blinds) > 1, blinds  # the blinds rose while it played
    for line in lines:
        name = line["name"]
        assert (line["chips"], line["hands"]) == (chips[name], hands[name]), line
        assert line["bb_per_100"] == pytest.approx(100 * chips[name] / 100 / hands[name], abs=1e-3), line


def test_league_run_results(league: LeagueRun) -> None:
    data = results_of(league.out)
    names = {"strength", "random", "caller", "node"}
    total = len(league.jobs)
    assert data["league"] == "test league" and data["seed"] == 4242
    assert data["matches"] == {"finished": total, "total": total}

    # Overall standings: every bot, hands played, chips conserved (no rake), honest bots fault-free.
    standings = data["standings"]
    assert {s["name"] for s in standings} == names
    assert all(s["hands"] > 0 and s["samples"] > 0 for s in standings)
    assert sum(s["chips"] for s in standings) == 0
    assert all(s["faults"] == {} for s in standings), data["log_tails"]
    assert data["forfeits"] == [] and data["log_tails"] == {}
    assert [s["bb_per_100"] for s in standings] == sorted((s["bb_per_100"] for s in standings), reverse=True)

    # Per event: every bot of every event, chips conserved in each event.
    assert list(data["events"]) == ["heads-up", "three-max", "final"]
    for event, lines in data["events"].items():
        assert {s["name"] for s in lines} == names, event
        assert sum(s["chips"] for s in lines) == 0, event
        assert all(s["hands"] > 0 for s in lines), event
    # Overall: bb/100 over the cash events only (freezeout chips do not compare), and it says so.
    assert data["ranking"].startswith("ranked by bb/100 over the cash events (heads-up, three-max)")
    by_name = {s["name"]: s for s in standings}
    for name in names:
        cash = ("heads-up", "three-max")
        assert (
            sum(next(s for s in data["events"][e] if s["name"] == name)["hands"] for e in cash)
            == by_name[name]["hands"]
        )
        assert by_name[name]["points"] == 0 and by_name[name]["rating"]["matches"] > 0
    # Multi-way and freezeout events are ranked by OpenSkill rating (after points for the freezeout).
    three = data["events"]["three-max"]
    assert [s["rating"]["mu"] for s in three] == sorted((s["rating"]["mu"] for s in three), reverse=True)
    assert all(s["rating"]["ci95"][0] < s["rating"]["mu"] < s["rating"]["ci95"][1] for s in three)
    assert data["events"]["heads-up"][0]["rating"] is None and "OpenSkill" in data["event_rankings"]["three-max"]
    # Heads-up duplicate: each bot meets 3 opponents on 2 tables of 15 hands.
    assert all(s["hands"] == 3 * 2 * 15 for s in data["events"]["heads-up"])
    # The freezeout is ranked by points: 3, 2, 1, 0 for the four places.
    final = data["events"]["final"]
    assert sorted(s["points"] for s in final) == [0, 1, 2, 3]
    assert [s["points"] for s in final] == [3, 2, 1, 0]
    _check_freezeout_figures(league.out / "matches" / "final", final)

    # Head to head: every ordered pair of the heads-up event, zero-sum.
    h2h = data["head_to_head"]
    assert set(h2h) == names
    for a, b in itertools.permutations(names, 2):
        assert h2h[a][b] == pytest.approx(-h2h[b][a], abs=1e-6)

    # standings.txt: overall and per event standings, head to head, failures; the terminal shows
    # each event's standings once, when it ends, and one plain line per match (not a terminal).
    text = (league.out / "standings.txt").read_text(encoding="utf-8")
    sections = [
        "Overall standings: ranked by bb/100",
        "Event heads-up: ranked by bb/100",
        "Event three-max: ranked by OpenSkill",
        "Event final: ranked by freezeout points",
        "Head to head (heads-up matches",
        "Failures: none.",
    ]
    assert [text.index(s) for s in sections] == sorted(text.index(s) for s in sections)
    h2h_lines = text[text.index("Head to head") :].splitlines()
    assert all(any(line.startswith(name) for line in h2h_lines) for name in names)
    err = league.proc.stderr
    for event in ("heads-up", "three-max", "final"):
        assert err.count(f"Event {event}: ranked") == 1, err
    assert len(re.findall(r"^\[\d+/\d+\] \S+ done; ", err, re.M)) == total
    assert "test league" in league.proc.stdout and "Overall standings" in league.proc.stdout


def test_league_run_folders(league: LeagueRun) -> None:
    """Each match has its folder with one hand history per table and one log per bot instance
    (sealed rotations: one instance of each bot per rotation)."""
    folders = {p for p in (league.out / "matches").glob("*/*") if p.is_dir()}
    assert folders == {job.out for job in league.jobs}
    for job in league.jobs:
        histories = sorted((job.out / "hands").glob("*.phhs"))
        assert len(histories) == len(job.plan.tables), job.plan.match_id
        assert all(h.stat().st_size > 0 for h in histories)
        first = histories[0].read_text(encoding="utf-8")
        assert first.startswith("[1]\n") and f'_match = "{job.plan.match_id}"' in first
        logs = {p.stem for p in (job.out / "logs").glob("*.log")}
        assert logs == {label for labels in job.plan.instance_labels() for label in labels}, job.plan.match_id
        assert {label.rsplit(".", 1)[0] for label in logs} == set(job.bots)
    assert (league.out / "journal.sqlite").is_file()
    db = sqlite3.connect(league.out / "journal.sqlite")
    try:
        rows = {r[0] for r in db.execute("SELECT match_id FROM matches")}
    finally:
        db.close()
    assert rows == {job.plan.match_id for job in league.jobs}


@pytest.mark.slow  # fast: test_cluster's local_cluster test (a second run's results.json and standings.txt
# byte for byte), test_killed_run_resumes... (untouched matches row for row), test_e2e's same-seed histories
def test_same_seed_same_results(league: LeagueRun, tmp_path: Path) -> None:
    """A second run of the same league (another output folder) writes a byte-identical results.json."""
    out = tmp_path / "again"
    yaml = league_yaml(tmp_path, out)
    proc = dealer("run", yaml)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (out / "results.json").read_bytes() == (league.out / "results.json").read_bytes()
    assert (out / "standings.txt").read_bytes() == (league.out / "standings.txt").read_bytes()


def _journal_rows(path: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.2)
        try:
            return db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def test_ctrl_c_says_how_many_matches_are_kept_and_how_to_go_on(league: LeagueRun, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) on dealer run: the matches in play stop, and one line says how many finished
    matches the journal keeps and that --resume plays the others; exit code 130."""
    out = tmp_path / "interrupted"
    yaml = league_yaml(tmp_path, out)
    total = len(league.jobs)
    proc = subprocess.Popen([str(DEALER), "run", str(yaml)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            if re.match(r"\[1/\d+\] ", line):  # a match finished: interrupt the next ones
                break
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-3000:]
    rows = _journal_rows(out / "journal.sqlite")
    assert 1 <= rows < total
    assert err.strip().splitlines()[-1] == (
        f"interrupted: {rows} of {total} matches finished and kept in {out}; "
        "run the same command with --resume to play the others"
    )


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("match", "the match stopped before its end: the histories of its finished hands are in {out}/hands, "
         "no results.json; run it again with --fresh to play it whole"),
        ("compare", "the comparison stopped before its verdict: nothing in {out} to go on from; "
         "run it again with --fresh to start over"),
    ],
)  # fmt: skip
def test_ctrl_c_on_a_match_or_a_comparison_says_so_in_one_line(tmp_path: Path, command: str, said: str) -> None:
    out = tmp_path / command
    args = [str(DEALER), command, _py("call"), _py("random"), "--hands", "1000000", "--out", str(out)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "launched bot" not in ((out / "dealer.log").read_text() if (out / "dealer.log").exists() else ""):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        stdout, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-3000:]
    assert err.strip().splitlines()[-1] == "interrupted: " + said.format(out=out) and stdout == ""


def test_compare_with_progress_prints_hands_pace_and_the_running_estimate_into_a_pipe(tmp_path: Path) -> None:
    """``--progress``: a plain line every 5 s on stderr though it is a pipe (hands, hands/s, time
    left, new - old so far); without it a pipe gets no progress line (``dealer match`` below)."""
    out = tmp_path / "compare"
    args = [str(DEALER), "compare", _py("call"), _py("random"), "--hands", "1000000", "--out", str(out), "--progress"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line, shown = "", 0
        for line in proc.stderr:  # type: ignore[union-attr]
            shown += "hands/s" in line  # the first lines may come before two paired deals are in (worker start-ups)
            if "new - old" in line or shown == 6:
                break
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    pattern = (
        r"[\d,]+/1,000,000 hands, [\d,]+ hands/s, about [\d,]+ s left; "
        r"new - old [+-][\d.]+ bb/100 \[[+-][\d.]+, [+-][\d.]+\] over [\d,]+ paired deals\n"
    )
    assert re.fullmatch(pattern, line), line
    quiet = dealer("match", _py("call"), _py("random"), "--hands", "40", "--out", tmp_path / "match")
    assert quiet.returncode == 0 and "hands/s" not in quiet.stderr and "\r" not in quiet.stderr, quiet.stderr


def test_killed_run_resumes_and_plays_the_cut_off_matches_again(league: LeagueRun, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    yaml = league_yaml(tmp_path, out)
    total = len(league.jobs)
    journal = out / "journal.sqlite"
    proc = subprocess.Popen(
        [str(DEALER), "run", str(yaml)],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while (rows := _journal_rows(journal)) < 1:
            assert proc.poll() is None, f"the league ended (code {proc.returncode}) before it could be killed"
            assert time.monotonic() < deadline, "no match finished in time"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    rows = _journal_rows(journal)
    assert 1 <= rows < total, f"{rows} of {total} matches in the journal at the kill"
    partial = results_of(out)
    # results.json is rewritten just after each journal row: a kill between the two leaves it one
    # match behind the journal (which is what --resume reads).
    assert rows - 1 <= partial["matches"]["finished"] <= rows < total, (partial["matches"], rows)

    # The bots notice that the dealer is gone (their streams break) and exit on their own.
    deadline = time.monotonic() + 8
    while (left := processes_under(out)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid, _ in left:  # do not leak them into the rest of the session
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert left == [], f"bot processes outlived the SIGKILLed dealer by 8 s: {left}"

    before = _journal(journal)
    resumed = dealer("run", "--resume", yaml)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    # Only the unfinished matches were played again: the first progress line counts the journal's.
    progress = re.findall(r"^\[(\d+)/(\d+)\] ", resumed.stderr, re.M)
    assert progress and int(progress[0][0]) == rows + 1 and progress[-1] == (str(total), str(total))
    # ... and its hands count goes on from the journal's: the first line adds its match's hands to them.
    first = re.search(r"^\[\d+/\d+\] (\S+) done; ([\d,]+) hands", resumed.stderr, re.M)
    assert first is not None, resumed.stderr
    after = _journal(journal)
    hands = sum(json.loads(before[m])["tally"]["hands"] for m in before)
    assert int(first[2].replace(",", "")) == hands + json.loads(after[first[1]])["tally"]["hands"]
    data = results_of(out)
    assert data["matches"] == {"finished": total, "total": total}
    # The matches cut off by the kill were played again with new deals (their bots had seen the
    # old ones); every other match is the one the uninterrupted run played, row for row.
    assert set(data["replayed"].values()) <= {1}
    assert (out / "interrupted").is_dir() == bool(data["replayed"])
    committed, whole = _journal(journal), _journal(league.out / "journal.sqlite")
    assert committed.keys() == whole.keys()
    assert all(committed[m] == whole[m] for m in committed if m not in data["replayed"])
    assert all(json.loads(committed[m])["attempt"] == 1 for m in data["replayed"])
    # The replayed matches are re-dealt from the seed and their attempt; the cut-off files are not read.
    verified = dealer("verify", out)
    assert verified.returncode == 0 and verified.stdout.rstrip().endswith(": ok"), verified.stdout + verified.stderr


def _journal(path: Path) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT match_id, result FROM matches").fetchall())


def _deals(match: Path) -> dict[tuple[str, str], tuple[str, ...]]:
    """Each hand's deal (hole cards and board) in a match folder's histories, by file and hand."""
    return {
        (path.name, index): tuple(a for a in hand["actions"] if a.startswith("d "))
        for path in sorted(match.rglob("*.phhs"))
        for index, hand in tomllib.loads(path.read_text(encoding="utf-8")).items()
    }


def _cut_off_and_resume(folder: Path) -> tuple[Path, dict[tuple[str, str], tuple[str, ...]]]:
    """A small league played whole, then put back as a kill in the middle of hu/0001 leaves it
    (no journal row, its folder and a bot's notes left behind), then resumed; the first deals."""
    folder.mkdir()
    out = folder / "out"
    yaml, _ = _ghost_league(folder, _py("strength"))
    assert (played := dealer("run", yaml)).returncode == 0, played.stderr[-3000:]
    with contextlib.closing(sqlite3.connect(out / "journal.sqlite")) as db, db:
        db.execute("DELETE FROM matches WHERE match_id = 'hu/0001'")
    match = out / "matches" / "hu" / "0001"
    first = _deals(match)
    notes = match / "scratch" / "ghost.0" / "notes.txt"
    notes.parent.mkdir(parents=True, exist_ok=True)
    notes.write_text("the hands I saw", encoding="utf-8")
    resumed = dealer("run", "--resume", yaml)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "played again from the start with new deals, as the kill had cut them off: hu/0001;" in resumed.stdout
    return out, first


def test_a_cut_off_match_is_played_again_with_new_deals_and_fresh_scratch_folders(tmp_path: Path) -> None:
    """A bot that remembers learns nothing from a resume: the cut-off match is dealt afresh
    (attempt 1, recorded in each hand and results.json, so ``dealer verify`` re-deals it), in new
    scratch folders; the old folder is kept, out of reach; the same seed and cut give the same output."""
    out, first = _cut_off_and_resume(tmp_path / "a")
    match = out / "matches" / "hu" / "0001"
    again = _deals(match)
    assert again.keys() == first.keys() and len(first) == 2 * 10
    assert all(again[k] != first[k] for k in first), "a hand was dealt again as the bots saw it"
    assert not (match / "scratch" / "ghost.0" / "notes.txt").exists() and (match / "scratch").is_dir()
    kept = out / "interrupted" / "hu" / "0001" / "attempt-0"
    assert (kept / "scratch" / "ghost.0" / "notes.txt").read_text(encoding="utf-8") == "the hands I saw"
    assert _deals(kept) == first and (out / "interrupted").stat().st_mode & 0o777 == 0o700
    for path in (match / "hands").glob("*.phhs"):
        assert all(hand["_attempt"] == 1 for hand in tomllib.loads(path.read_text(encoding="utf-8")).values())
    data = results_of(out)
    assert data["replayed"] == {"hu/0001": 1} and data["matches"]["finished"] == 3
    verified = dealer("verify", out)
    assert verified.returncode == 0 and verified.stdout.rstrip().endswith(": ok"), verified.stdout + verified.stderr
    other, _ = _cut_off_and_resume(tmp_path / "b")
    assert (other / "results.json").read_bytes() == (out / "results.json").read_bytes()
    assert _deals(other / "matches" / "hu" / "0001") == again


def test_resume_refuses_a_journal_row_of_an_unknown_format(league: LeagueRun, tmp_path: Path) -> None:
    """A journal row this dealer cannot read (a later format) stops --resume with one line naming it."""
    out = tmp_path / "out"
    out.mkdir()
    db = sqlite3.connect(league.out / "journal.sqlite")
    try:
        db.execute(f"VACUUM INTO '{out / 'journal.sqlite'}'")  # a consistent copy, WAL included
    finally:
        db.close()
    copy = sqlite3.connect(out / "journal.sqlite")
    with copy:
        match_id, text = copy.execute("SELECT match_id, result FROM matches ORDER BY match_id").fetchone()
        copy.execute(
            "UPDATE matches SET result = ? WHERE match_id = ?",
            (json.dumps({**json.loads(text), "format": 4}), match_id),
        )
    copy.close()
    proc = dealer("run", "--resume", league_yaml(tmp_path, out))
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = proc.stderr.strip().splitlines()[-1]
    assert f"{out / 'journal.sqlite'}: match {match_id}: journal row format 4 is not one this dealer reads" in line


def test_resume_refuses_another_league(league: LeagueRun, tmp_path: Path) -> None:
    """--resume against a journal of a different configuration stops with exit code 2."""
    text = league.yaml.read_text(encoding="utf-8").replace("seed: 4242", "seed: 4243")
    other = tmp_path / "other.yaml"
    other.write_text(text, encoding="utf-8")
    before = (league.out / "results.json").read_bytes()
    proc = dealer("run", "--resume", other)
    assert proc.returncode == 2
    assert "different league configuration" in proc.stderr
    assert (league.out / "results.json").read_bytes() == before


# ------------------------------------------------------------------------------ broken files


BROKEN = """\
name: broken
out: {out}
colour: blue
bots:
  - {{name: a, command: {python} a.py}}
  - {{name: b}}
  - {{name: c, command: /nonexistent/folder/prog}}
  - {{name: d, command: no-such-program-xyz --flag}}
events:
  - {{name: e, format: round-robin, table_size: 6, hands: 10}}
  - {{name: f, format: round-robin, table_size: 2, hands: 10, colour: red}}
"""
EXPECTED = [  # (line, key path, words of the message), in line order
    (3, "colour", "unknown key"),
    (5, "bots[0].command", "script 'a.py' not found"),
    (6, "bots[1].command", "missing command"),
    (7, "bots[2].command", "'/nonexistent/folder/prog' not found"),
    (8, "bots[3].command", "'no-such-program-xyz' not found"),
    (10, "events[0].table_size", "larger than the 4 bots"),
    (11, "events[1].colour", "unknown key"),
]
ERROR_LINE = re.compile(r"^(?:error: )?(?P<file>.+?):(?P<line>\d+): (?:(?P<key>[\w.\[\]-]+): )?(?P<message>.+)$")


def _errors(stderr: str, path: Path) -> list[tuple[int, str | None, str]]:
    found = []
    for text in stderr.strip().splitlines():
        m = ERROR_LINE.match(text)
        assert m is not None, f"not a `file:line: key: message` line: {text!r}"
        assert m["file"] == str(path)
        found.append((int(m["line"]), m["key"], m["message"]))
    return found


@pytest.mark.parametrize("command", ["validate", "run"])
def test_broken_league_file(tmp_path: Path, command: str) -> None:
    out = tmp_path / "never"
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN.format(out=out, python=sys.executable), encoding="utf-8")
    proc = dealer(command, path, timeout=30)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    found = _errors(proc.stderr, path)
    assert len(found) == len(EXPECTED), proc.stderr
    for (line, key, message), (want_line, want_key, want) in zip(found, EXPECTED, strict=True):
        assert (line, key) == (want_line, want_key) and want in message, (line, key, message)
    assert proc.stdout == ""
    assert not out.exists()


@pytest.mark.parametrize("command", ["validate", "run"])
def test_yaml_syntax_error(tmp_path: Path, command: str) -> None:
    out = tmp_path / "never"
    path = tmp_path / "syntax.yaml"
    path.write_text(f"name: x\nout: {out}\nbots: [\n  - a\nevents: []\n", encoding="utf-8")
    proc = dealer(command, path, timeout=30)
    assert proc.returncode == 2
    found = _errors(proc.stderr, path)
    assert len(found) == 1 and found[0][0] == 4 and "YAML syntax error" in found[0][2], proc.stderr
    assert not out.exists()


def test_validate_ok(tmp_path: Path) -> None:
    yaml = league_yaml(tmp_path, tmp_path / "never")
    proc = dealer("validate", yaml, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r": ok: 4 bots, 3 events, \d+ matches, up to \d+ hands", proc.stdout)
    assert not (tmp_path / "never").exists()


# ------------------------------------------------------------------------------ a bot that dies at start


def _ghost_league(tmp_path: Path, ghost: str, protocol: str = "grpc") -> tuple[Path, Path]:
    out = tmp_path / "out"
    yaml = tmp_path / "ghost.yaml"
    yaml.write_text(
        f"""\
name: ghost league
seed: 3
jobs: 2
out: {out}
bots:
  - {{name: random, command: {_py("random")}}}
  - {{name: caller, command: {_py("call")}}}
  - {{name: ghost,  command: {ghost}, protocol: {protocol}}}
game: {{time: {CLOCK}}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 10}}
""",
        encoding="utf-8",
    )
    return yaml, out


GHOST = f"[{sys.executable}, -c, 'import sys; sys.exit(\"ghost: no such model file\")']"


def test_validate_finds_a_missing_script(tmp_path: Path) -> None:
    yaml, out = _ghost_league(tmp_path, f"{sys.executable} does_not_exist.py")
    for command in ("validate", "run"):
        proc = dealer(command, yaml, timeout=30)
        assert proc.returncode == 2
        assert proc.stderr == f"error: {yaml}:8: bots[2].command: bot 'ghost': script 'does_not_exist.py' not found\n"
    assert not out.exists()


@pytest.mark.parametrize("protocol", ["grpc", "stdio"])
def test_bot_failing_at_start_stops_the_league(tmp_path: Path, protocol: str) -> None:
    yaml, out = _ghost_league(tmp_path, GHOST, protocol)
    proc = dealer("run", yaml)
    assert proc.returncode == 2, proc.stderr[-3000:]
    error = proc.stderr.strip().splitlines()[-1]
    # The league stops at the first instance's crash; the second instance may die by itself before
    # the dealer stops it (a crash) or be stopped first (its lost stream a disconnect): timing.
    expected = (
        r"error: bot 'ghost' could not start in its first match hu/\d{4} \(crash(, disconnect)?\): "
        r"ghost: no such model file; log .*ghost\.0\.log; fix its command or pass --keep-going"
    )
    assert re.fullmatch(expected, error), error
    assert results_of(out)["matches"]["finished"] <= 1  # at most the match without the ghost


FORGERY = "\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07ghost died\r\x1b[2Kall bots started fine\x9b1A"


def test_a_bots_log_line_in_the_start_error_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """A bot's last log line is quoted by the start error: its ESC, OSC, BEL, CR and C1 bytes are
    printed as escapes, so it can neither retitle the window, write the clipboard nor forge a line."""
    script = tmp_path / "forger.py"
    script.write_text(f"import sys\nsys.stderr.write({FORGERY!r} + '\\n')\nsys.exit(1)\n", encoding="utf-8")
    yaml, _ = _ghost_league(tmp_path, f"[{sys.executable}, {script}]")
    proc = dealer("run", yaml)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert not any(c in proc.stderr for c in "\x1b\x07\r\x9b"), repr(proc.stderr[-500:])
    error = proc.stderr.strip().splitlines()[-1]
    assert (
        "(crash): \\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07ghost died\\x0d\\x1b[2Kall bots started fine" in error
    ), error


def test_log_tails_in_the_standings_text_are_escaped() -> None:
    data = {"failures": {"ghost": {"crash": 1}}, "forfeits": [], "log_tails": {"hu/0000": {"ghost": FORGERY + "\nbye"}}}
    text = failures_text(data)
    assert not any(c in text for c in "\x1b\x07\r\x9b") and text.endswith("started fine\\x9b1A\n    bye")


def test_the_consoles_log_lines_escape_a_bots_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The dealer's errors also go to stderr: a bot's text in one (say, an exception's message) is escaped there."""
    log_to(tmp_path, "info")
    logger = logging.getLogger("dealer")
    try:
        logging.getLogger("dealer.league.match").error("bot said %s", FORGERY)
    finally:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
    err = capsys.readouterr().err
    assert err == "dealer: bot said " + printable(FORGERY) + "\n" and "\\x1b]52;c;" in err
    assert FORGERY.encode() in (tmp_path / "dealer.log").read_bytes()  # the log file keeps what was said


def test_bot_failing_at_start_is_charged_and_the_league_goes_on(tmp_path: Path) -> None:
    yaml, out = _ghost_league(tmp_path, GHOST)
    proc = dealer("run", yaml, "--keep-going")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = results_of(out)
    assert data["matches"] == {"finished": 3, "total": 3}
    lines = {s["name"]: s for s in data["standings"]}
    assert set(lines) == {"random", "caller", "ghost"}
    assert sum(s["chips"] for s in lines.values()) == 0
    ghost = lines["ghost"]["faults"]
    # two matches, each with two instances of the ghost (one per rotation): four failures
    assert set(ghost) <= {"start_failed", "crash", "no_connect"} and sum(ghost.values()) == 4, ghost
    assert lines["random"]["faults"] == {} and lines["caller"]["faults"] == {}
    # Every match was played to the end: the ghost's seat folded or checked for it.
    assert all(s["hands"] == 2 * 2 * 10 for s in lines.values())
    tails = data["log_tails"]
    assert len(tails) == 2 and all("no such model file" in t["ghost"] for t in tails.values())
    assert "ghost" in (out / "standings.txt").read_text(encoding="utf-8")


GHOST_LINE = f"{sys.executable} -c 'import sys; sys.exit(\"ghost: no such model file\")'"
START_ERROR = (
    r"error: bot '{name}' could not start \((crash|no_connect|start_failed)\): ghost: no such model file; "
    r"log {log}; fix its command or pass --keep-going"
)


def test_a_ghost_in_its_first_match_ranks_below_every_bot_that_played() -> None:
    """--keep-going: the ghost's seat folds or checks for it, and may even win chips that way, but a
    bot that never started is never ranked above one that played."""
    from dealer.stats.records import HandRecord, result_of
    from dealer.stats.standings import standings

    records = [HandRecord(t, "d", h, 100, {"ghost": 50, "a": -20, "b": -30}) for t in range(3) for h in range(5)]
    result = result_of("m", ("a", "b", "ghost"), records, unstarted=["ghost"])
    assert [s.name for s in standings([result])] == ["a", "b", "ghost"]
    started = result_of("m", ("a", "b", "ghost"), records)  # the same chips, every bot played: by bb/100
    assert [s.name for s in standings([started])] == ["ghost", "a", "b"]


GHOSTS = {  # one rule for every protocol: a bot that dies before its first answer never started
    "grpc": GHOST_LINE,
    "stdio": f"stdio:{GHOST_LINE}",  # its pipes are its connection: it is "connected" as it starts
    "acpc": f"acpc:{GHOST_LINE}",
    "grpc-connected": f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashes.py'} 0 exit",  # dies at its first request
    "acpc-connected": f"acpc:{sys.executable} {ROOT / 'tests' / 'bots' / 'dies_after_hello.py'} {{host}} {{port}}",
}


@pytest.mark.parametrize("ghost", list(GHOSTS))
def test_dealer_match_stops_at_a_bot_that_cannot_start_unless_keep_going(tmp_path: Path, ghost: str) -> None:
    command = GHOSTS[ghost]
    out = tmp_path / "stopped"
    proc = dealer("match", command, _py("call"), "--name", "ghost", "--name", "caller", "--hands", "400", "--out", out)
    assert proc.returncode == 2, proc.stderr[-3000:]
    log = re.escape(str(out / "logs" / "ghost.0.log"))
    error = START_ERROR.format(name="ghost", log=log).replace("ghost: no such model file", "(ghost|dying).*")
    assert re.fullmatch(error, proc.stderr.strip().splitlines()[-1]), proc.stderr
    stopped = results_of(out)  # what was played is kept
    assert stopped["hands"] < 400 and {s["name"] for s in stopped["standings"]} == {"ghost", "caller"}
    if ghost not in ("grpc", "stdio"):
        return  # --keep-going is the match's, whatever the bot's protocol: two protocols show it

    out = tmp_path / "kept-going"
    proc = dealer(
        "match", command, _py("call"), "--name", "ghost", "--name", "caller", "--hands", "40", "--keep-going",
        "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    played = results_of(out)
    assert played["hands"] == 40 and [s["name"] for s in played["standings"]] == ["caller", "ghost"]


@pytest.mark.parametrize(
    ("command", "log"),
    [
        (f"{sys.executable} {PY_BOTS / 'stdio_bot.py'}", "its log is empty"),  # it waits for a line, reads none
        (f"""{sys.executable} -c 'print("{{\\"hello\\": 1}}")'""", 'its log ends: {"hello": 1}'),
    ],
)
def test_a_stdio_bot_given_as_a_grpc_one_is_told_to_start_with_stdio(tmp_path: Path, command: str, log: str) -> None:
    """A stdio bot's command without ``stdio:`` never dials the dealer: the error says so, and no
    "+nan" stands in the table for the bots that played no hand."""
    out = tmp_path / "match"
    proc = dealer("match", command, _py("call"), "--name", "mine", "--name", "call", "--hands", "20", "--out", out)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        "error: bot 'mine' could not start (no_connect): it never connected over gRPC; a stdio bot's command "
        f"starts with `stdio:` ({log}); log {out / 'logs' / 'mine.0.log'}; fix its command or pass --keep-going"
    )
    rows = [line.split() for line in proc.stdout.splitlines() if line.split()[1:2] in (["mine"], ["call"])]
    assert [row[2:6] for row in rows] == [["0", "0", "-", "-"]] * 2 and "nan" not in proc.stdout


def test_dealer_compare_stops_at_a_bot_that_cannot_start(tmp_path: Path) -> None:
    out = tmp_path / "compare"
    proc = dealer("compare", GHOST_LINE, _py("call"), "--hands", "4000", "--tables", "1", "--out", out)
    assert proc.returncode == 13, proc.stderr[-3000:]
    log = re.escape(str(out / "logs" / "new.0.log"))
    assert re.fullmatch(START_ERROR.format(name="new", log=log), proc.stderr.strip().splitlines()[-1]), proc.stderr
    assert json.loads((out / "compare.json").read_text(encoding="utf-8"))["hands_played"] < 4000
    assert proc.stdout == ""


def test_run_refuses_an_output_folder_holding_results_and_fresh_moves_them_aside(tmp_path: Path) -> None:
    yaml, out = _ghost_league(tmp_path, _py("call"))
    (out / "hands").mkdir(parents=True)
    (out / "hands" / "earlier.phhs").write_text("kept\n", encoding="utf-8")
    (out / "results.json").write_text("earlier\n", encoding="utf-8")
    proc = dealer("run", yaml, timeout=30)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr.splitlines() == [
        f"error: {out} already holds results (results.json, hands): pass --resume to go on from them, --fresh to "
        "move them aside to a dated folder, or choose another output folder"
    ]
    assert (out / "results.json").read_text(encoding="utf-8") == "earlier\n" and not (out / "dealer.log").exists()

    proc = dealer("run", "--fresh", yaml)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (moved,) = [p for p in tmp_path.iterdir() if p.name.startswith("out.")]
    assert f"the earlier results in {out} were moved to {moved}" in proc.stderr
    assert (moved / "results.json").read_text(encoding="utf-8") == "earlier\n"
    assert (moved / "hands" / "earlier.phhs").read_text(encoding="utf-8") == "kept\n"
    assert results_of(out)["matches"] == {"finished": 3, "total": 3}


def test_export_walks_a_folder_of_folders(league: LeagueRun) -> None:
    event = league.out / "matches" / "heads-up"  # one folder per match, each with its hands/
    files = sorted(event.rglob("*.phhs"))
    assert len(files) > 1
    whole = dealer("export", "--acpc", event, timeout=60)
    one_by_one = dealer("export", "--acpc", *files, timeout=60)
    assert whole.returncode == 0 and one_by_one.returncode == 0, whole.stderr + one_by_one.stderr
    assert whole.stdout == one_by_one.stdout and whole.stdout.count("STATE:") > len(files)


def test_a_bot_that_crashes_in_every_match_ranks_below_a_calling_station(tmp_path: Path) -> None:
    """Issue 33 (7): after a crash its seat folds or checks for it, which loses fewer chips than
    calling a stronger bot down; the standings rank by the matches a bot stopped playing in first,
    so crashing never pays, and say so beside its faults."""
    out = tmp_path / "out"
    yaml = tmp_path / "crash.yaml"
    crasher = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crashes.py'} 4 exit"
    yaml.write_text(
        f"""\
name: crash league
seed: 33
jobs: 2
out: {out}
bots:
  - {{name: strength, command: {_py("strength")}}}
  - {{name: caller, command: {_py("call")}}}
  - {{name: crasher, command: {crasher}}}
game: {{time: {CLOCK}}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 40}}
""",
        encoding="utf-8",
    )
    proc = dealer("run", yaml)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = {s["name"]: s for s in results_of(out)["standings"]}
    assert lines["crasher"]["bb_per_100"] > lines["caller"]["bb_per_100"], "folding after a crash lost less"
    assert [s["name"] for s in results_of(out)["standings"]][-1] == "crasher"
    assert lines["crasher"]["stopped"] == 2 and lines["caller"]["stopped"] == 0
    assert "stopped in 2 matches: crash " in (out / "standings.txt").read_text(encoding="utf-8")


def test_the_matches_a_bot_stopped_playing_in_rank_it_before_its_chips() -> None:
    from dealer.stats.records import HandRecord, result_of
    from dealer.stats.standings import standings, standings_table

    records = [
        HandRecord(t, "d", h, 100, {"crasher": -10, "caller": -30, "strong": 40}) for t in range(3) for h in range(5)
    ]
    crashed = result_of("m", ("caller", "crasher", "strong"), records, faults={"crasher": {"crash": 1, "timeout": 2}})
    lines = standings([crashed])
    assert [s.name for s in lines] == ["strong", "caller", "crasher"] and lines[2].stopped == 1
    assert "stopped in 1 match: crash 1, timeout 2" in standings_table(lines)
    slow = result_of("m", ("caller", "crasher", "strong"), records, faults={"crasher": {"timeout": 2}})
    assert [s.name for s in standings([slow])] == ["strong", "crasher", "caller"], "a timeout alone stops nothing"
