"""A league night: schedule -> executor -> journal -> standings.

``build_jobs`` turns the events of a ``LeagueConfig`` into self-contained ``MatchJob`` records
(the scheduler picks who sits where; a duplicate group becomes one match with one table per
seat rotation, so its hands are paired). An ``Executor`` runs whole jobs: ``LocalExecutor``
plays them in this process on one shared dealer server, up to ``jobs`` at once; a cluster
executor only needs ``run_job`` (self-contained: its own server and bots) on each worker.
Every finished match is committed to the journal (SQLite in the output folder) in one
transaction, so a killed run loses only the matches in flight and ``--resume`` skips the rest.
A match the kill cut off is not replayed as it was (its bots may remember the hands they saw):
``--resume`` moves its folder, scratch folders included, to ``interrupted/<match>/attempt-<a>``
(mode 0700, out of the bots' reach) and plays it again from its start with new deals, attempt
``a + 1`` (``dealer.league.seeds.deal_key``), counted in the journal and said in results.json.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import errno
import hashlib
import json
import logging
import os
import re
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from enum import StrEnum
from pathlib import Path

from dealer.config.choices import Estimator
from dealer.config.events import AnyEvent, Compare, CompareSettings, Freezeout, Gauntlet, RoundRobin
from dealer.config.league_file import LeagueBot, LeagueConfig
from dealer.engine.scheduler import Seating
from dealer.errors import RunError
from dealer.files import PRIVATE, write_atomically
from dealer.isolation import sandbox
from dealer.isolation.processes import isolation
from dealer.league.jobs import Executor, MatchJob, PlayLostError
from dealer.league.journal import Journal
from dealer.league.match import MatchBot, MatchPlan, instance_label
from dealer.league.report import LeagueReport, Progress, Share
from dealer.league.seeds import INTERRUPTED, commitment, guessable
from dealer.league.summary import summary_text
from dealer.stats.compare import compare_results, look_every
from dealer.stats.paired import Pairing
from dealer.stats.records import MatchResult
from dealer.text import counted

LOGGER = logging.getLogger(__name__)


def _entry(bot: LeagueBot) -> MatchBot:
    return MatchBot(bot.name, bot.command, None, bot.limits, protocol=bot.protocol)


def _plan(event: AnyEvent, match_id: str, tables: tuple[Seating, ...], config: LeagueConfig, first: int) -> MatchPlan:
    """The plan of one match of ``event``: its tables, the hands each plays, and the event's kind of play."""
    levels = event if isinstance(event, Freezeout) else None
    return MatchPlan(
        match_id=match_id,
        tables=tables,
        game=event.game,
        hands=event.hands_per_table(len(tables)),
        seed=config.seed_text,
        mode=event.mode,
        blind_levels=levels.blind_levels if levels else (),
        hands_per_level=levels.hands_per_level if levels else 0,
        fault_policy=config.fault_policy,
        sealed=config.sealed,
        luck=isinstance(event, Compare),
        strategies=event.strategies,
        features=isinstance(event, Compare) and event.settings.estimator == Estimator.LEARNED,
        first_table=first,
    )


def build_jobs(config: LeagueConfig) -> list[MatchJob]:
    """Every match of the league, in a deterministic order; one job per duplicate group."""
    entries = {bot.name: _entry(bot) for bot in config.bots}
    base = config.path.parent if config.path else Path.cwd()
    jobs = []
    first_table = 1  # tables are numbered across the league, match after match (``MatchPlan.first_table``)
    for event in config.events:
        matches: dict[str, list[Seating]] = collections.defaultdict(list)  # a match per deal set
        for table in event.tables(config.seed_text):
            matches[table.deal_set].append(table)
        pairing = None
        if isinstance(event, Compare):  # one deal set per match: the groups of a hand number are the matches
            pairing = Pairing.looking(event.new, event.old, event.settings.estimator, look_every(), len(matches))
        for match_id, group in matches.items():  # in the scheduler's order: <event>/0000, /0001, ...
            tables = tuple(group)
            plan = _plan(event, match_id, tables, config, first_table)
            first_table += len(tables)
            bots = {name: entries[name] for t in tables for name in t.seats}
            jobs.append(MatchJob(event.name, plan, bots, config.out / "matches" / match_id, base, pairing))
    return jobs


def instance_counts(jobs: Iterable[MatchJob]) -> dict[str, int]:
    """How many instances of each bot the busiest of its matches runs (a remote bot needs a token each)."""
    counts: dict[str, int] = {}
    for job in jobs:
        for spec, instances in zip(job.plan.tables, job.plan.instances(), strict=True):
            for name, k in zip(spec.seats, instances, strict=True):
                counts[name] = max(counts.get(name, 0), k + 1)
    return counts


def sealing(config: LeagueConfig) -> dict[str, object]:
    """What results.json says about sealed rotations: launched bots are sealed (unless switched
    off); remote bots never can be, whatever their tokens; and, by bot, how its instances are kept apart."""
    remote = sorted(b.name for b in config.bots if b.remote)
    note = (
        "rotations of launched bots are sealed: one process per rotation"
        if config.sealed
        else "not sealed (sealed: false): one process of each bot plays every rotation of a deal"
    )
    if remote:
        note += (
            f"; remote bots ({', '.join(remote)}) cannot be sealed: each rotation has its own token, "
            "but the other side may play them all in one process"
        )
    bots = {b.name: isolation(b.protocol, b.limits, remote=b.remote, sealed=config.sealed) for b in config.bots}
    return {"sealed": config.sealed, "remote_not_sealed": remote, "note": note, "bots": bots}


_ASKED = ("until_significant", "test", "alpha", "beta", "worse_than", "better_than")  # a compare event's keys


def _flat(event: AnyEvent) -> dict[str, object]:
    """An event as the flat record every event was before events were types (the keys of every
    format, unset ones at their defaults), so that a journal begun before still matches its league."""
    unset = CompareSettings()
    flat: dict[str, object] = {
        "name": event.name,
        "format": event.format,
        "table_size": event.table_size,
        "hands": None,
        "duplicate": False,
        "bots": event.bots,
        "game": event.game,
        "challenger": None,
        "blind_levels": (),
        "hands_per_level": None,
        "max_hands": None,
        "points": (),
        "new": None,
        "old": None,
        "field": (),
        **{key: getattr(unset, key) for key in _ASKED},
        "meetings": 1,
    }
    if isinstance(event, (RoundRobin, Gauntlet)):
        flat.update(hands=event.hands, duplicate=event.duplicate, meetings=event.meetings)
    if isinstance(event, Gauntlet):
        flat.update(challenger=event.challenger)
    if isinstance(event, Freezeout):
        flat.update(blind_levels=event.blind_levels, hands_per_level=event.hands_per_level, max_hands=event.max_hands)
        flat.update(points=event.points)
    if isinstance(event, Compare):
        flat.update(hands=event.hands, duplicate=True, new=event.new, old=event.old, field=event.field)
        flat.update({key: getattr(event.settings, key) for key in _ASKED})
    return flat


def fingerprint(config: LeagueConfig) -> str:
    """A hash of everything that decides the league's matches (not of line numbers or comments)."""

    def canonical(value: object) -> object:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {k: canonical(v) for k, v in dataclasses.asdict(value).items() if k != "line"}
        if isinstance(value, dict):
            return {k: canonical(v) for k, v in value.items() if k != "line"}
        if isinstance(value, (list, tuple)):
            return [canonical(v) for v in value]
        return str(value) if isinstance(value, StrEnum) else value  # its text, as before it was a StrEnum

    events = [_flat(event) for event in config.events]
    text = repr(canonical((config.seed, config.bots, events, config.fault_policy)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- report


def compare_summary(event: AnyEvent, results: Sequence[MatchResult]) -> dict[str, object]:
    """A compare event's answer (dealer.stats.compare): new - old in bb/100 by estimator, and the verdict
    (with ``until_significant``, the sequential test looking where ``dealer compare`` would have: its
    matches' paired sums merged look by look)."""
    assert isinstance(event, Compare)  # the report asks only of compare events
    try:
        return compare_results(results, event.new, event.old, event.settings, event.field).as_json()
    except ValueError as error:  # e.g. sequential bounds that do not surround 0
        return {"error": str(error)}


def league_report(config: LeagueConfig, results: Iterable[MatchResult], total_jobs: int) -> LeagueReport:
    """The report of these finished matches (a compare event's verdict by ``compare_summary``)."""
    report = LeagueReport(config, total_jobs, compare_summary, sealing=sealing(config), cpu=sandbox.cpu_confinement())
    report.extend(results)
    return report


class Outputs:
    """results.json and standings.txt, rewritten from the report as matches finish: after every
    match while that is cheap, else as ``Share`` allows (at most a tenth of the coordinator's time:
    a league whose failures' log tails grow the files, or whose events finish out of name order,
    see ``dealer.league.report``), and always at the start and the end; the journal is the durable record."""

    def __init__(self, config: LeagueConfig, report: LeagueReport) -> None:
        self.config = config
        self.report = report
        self.written = -1  # the report's matches when last written
        self.share = Share()

    def write(self, *, now: bool = False) -> None:
        """Write both files if anything changed and, unless ``now``, a write is due."""
        began = time.monotonic()
        if len(self.report.finished) == self.written or not (now or self.share.due(began)):
            return
        data = self.report.data()
        self.config.out.mkdir(parents=True, exist_ok=True)
        # readable by the dealer's user only: results reveal the seed at the end
        write_atomically(self.config.out / "results.json", json.dumps(data, indent=2) + "\n", mode=PRIVATE)
        write_atomically(self.config.out / "standings.txt", summary_text(data), mode=PRIVATE)
        self.written = len(self.report.finished)
        if not now:  # a forced write (the start's folds every journal row in) says nothing of the next
            self.share.took(began, time.monotonic())


# --------------------------------------------------------------------------- the output folder

RESULT_NAMES = ("journal.sqlite", "results.json", "compare.json", "standings.txt", "hands", "matches")
"""What in an output folder is an earlier event's record (a folder holding none of them is free to use)."""


def claim_output(out: Path, *, resume: bool = False, fresh: bool = False, resumable: bool = True) -> Path | None:
    """Make sure an event never writes over what an earlier one recorded in ``out``: a folder that
    holds results is refused (``RunError``, one line) unless ``resume`` (the event goes on from
    them) or ``fresh`` (the folder is moved aside to a dated sibling, never deleted; returned)."""
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: the output folder is a file; choose another one")
    held = [name for name in RESULT_NAMES if (out / name).exists()] if out.is_dir() else []
    if not held or resume:
        return None
    if fresh:
        return move_aside(out)
    go_on = "--resume to go on from them, " if resumable else ""
    raise RunError(
        f"{out} already holds results ({', '.join(held)}): pass {go_on}--fresh to move them aside to a dated "
        "folder, or choose another output folder"
    )


def move_aside(out: Path) -> Path:
    """Rename ``out`` to ``<out>.<date>-<time>`` beside it (numbered if taken); return the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target, k = out.with_name(f"{out.name}.{stamp}"), 2
    while target.exists():
        target, k = out.with_name(f"{out.name}.{stamp}-{k}"), k + 1
    out.rename(target)
    return target


# --------------------------------------------------------------------------- the run


def disk_full(error: BaseException) -> bool:
    """Whether an error says the output filesystem is full: ENOSPC, a quota, SQLite's "disk is full"."""
    if isinstance(error, OSError):
        return error.errno in (errno.ENOSPC, errno.EDQUOT)
    return isinstance(error, sqlite3.OperationalError) and "disk is full" in str(error)


def full_disk(config: LeagueConfig, error: BaseException, kept: str) -> RunError:
    """The one line for a full output filesystem: the error, what the journal keeps, what to do."""
    return RunError(
        f"the output filesystem is full ({error}): the event stopped, {kept} in {config.out / 'journal.sqlite'}; "
        "free space, then run it again with --resume"
    )


class BotStartError(RunError):
    """A bot could not start in its first match: its command is broken, the league is stopped."""


def start_failure(
    result: MatchResult, out: Path, seen: Collection[str] = (), *, where: str | None = None
) -> BotStartError | None:
    """The error for the first bot of ``result`` that never started and had not played before
    (``seen``): its name, its faults, its log's last line and the log's path under ``out``, in one
    line; ``where`` says in what it failed (default: " in its first match <id>"; "" for a single match)."""
    for name in result.unstarted:
        if name not in seen:
            reasons = ", ".join(sorted(result.faults.get(name, {}))) or "no start"
            labels = re.compile(rf"\[{re.escape(name)}\.\d+\]")  # the tails' own lines, one per instance
            tail = [
                line
                for line in result.log_tails.get(name, "").split("\n")  # a CR is data
                if line.strip() and not labels.fullmatch(line)
            ]
            last = f": {tail[-1].strip()[:200]}" if tail else ""
            if name in result.start_hints:
                ends = f"its log ends: {tail[-1].strip()[:200]}" if tail else "its log is empty"
                last = f": {result.start_hints[name]} ({ends})"
            log = out / "logs" / f"{instance_label(name, 0)}.log"
            place = f" in its first match {result.match_id}" if where is None else where
            return BotStartError(
                f"bot {name!r} could not start{place} ({reasons}){last}; log {log}; "
                "fix its command or pass --keep-going"
            )
    return None


def _fresh_attempts(out: Path, journal: Journal, todo: list[MatchJob]) -> list[MatchJob]:
    """The matches left to play, each at its attempt: a match whose folder a cut-off run left
    behind has it moved to ``interrupted/`` and is played again with new deals and scratch folders."""
    attempts = journal.attempts()
    jobs = []
    for job in todo:
        match_id = job.plan.match_id
        attempt = attempts.get(match_id, 0)
        if job.out.exists():  # it started before: its bots saw its deals, and may have kept notes
            kept = out / INTERRUPTED
            kept.mkdir(mode=0o700, exist_ok=True)
            os.chmod(kept, 0o700)
            target = kept / match_id / f"attempt-{attempt}"
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            attempt += 1
            journal.cut_off(match_id, attempt)  # counted first: a kill before the move never replays a deal
            os.replace(job.out, target)
            LOGGER.info(
                "match %s was cut off: its folder is now %s; it is played again as attempt %d",
                match_id,
                target,
                attempt,
            )
        jobs.append(
            job if attempt == 0 else dataclasses.replace(job, plan=dataclasses.replace(job.plan, attempt=attempt))
        )
    return jobs


async def run_league(
    config: LeagueConfig,
    executor: Executor,
    *,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    keep_going: bool = True,
    on_seed: Callable[[str, str | None], None] | None = None,
    on_jobs: Callable[[Sequence[MatchJob]], None] | None = None,
) -> list[MatchResult]:
    """Run every match not yet in the journal; commit each as it finishes; return all results.

    Without ``resume``, an output folder that holds results is refused (``claim_output``). Without
    ``keep_going``, a bot that cannot start in its first match stops the league with a
    ``BotStartError`` (that match is not committed, so a fixed league can ``--resume``). A full
    output filesystem, also before the first match (the journal, a resume's bookkeeping), stops it
    with a RunError that says how many matches are kept for ``--resume``. Without a seed in the
    configuration one is drawn (and kept in the journal for ``--resume``); ``on_seed`` gets its
    SHA-256 commitment and the warning for a guessable seed, if any; ``on_jobs`` every job of the
    league, seated with that seed, before the first match starts (what a page lists: a schedule
    built before the seed is drawn seats other bots)."""
    try:
        return await _run_league(
            config,
            executor,
            resume=resume,
            on_progress=on_progress,
            keep_going=keep_going,
            on_seed=on_seed,
            on_jobs=on_jobs,
        )
    except (OSError, sqlite3.OperationalError) as error:
        if not disk_full(error):
            raise
        raise full_disk(config, error, "the journal keeps every finished match") from None


def _jobs_left(
    config: LeagueConfig, journal: Journal, resume: bool
) -> tuple[list[MatchJob], list[MatchResult], list[MatchJob]]:
    """Every job of the league, the results the journal already has, and the jobs left to play
    (with ``resume``, those a kill cut off moved aside and played again as their next attempt)."""
    jobs = build_jobs(config)
    done = journal.done()
    results = [done[j.plan.match_id] for j in jobs if j.plan.match_id in done]
    todo = [j for j in jobs if j.plan.match_id not in done]
    if resume:
        todo = _fresh_attempts(config.out, journal, todo)
    return jobs, results, todo


class _Pace:
    """How fast a run goes: the hands it played since it started, beside the journal's from before."""

    def __init__(self, total: int, journaled: Sequence[MatchResult]) -> None:
        self.total = total
        self.journaled = len(journaled)
        self.before = sum(r.hands for r in journaled)  # hands the journal had: the count goes on from them
        self.started = time.monotonic()
        self.played = 0

    def progress(self, done: int, report: LeagueReport, result: MatchResult, event_done: str | None) -> Progress:
        """The progress after ``done`` matches, the last ``result``; the time left from this run's pace."""
        elapsed = max(time.monotonic() - self.started, 1e-9)
        finished_now = done - self.journaled
        eta = elapsed / max(finished_now, 1) * (self.total - done)
        hands = self.before + self.played
        return Progress(done, self.total, hands, self.played / elapsed, eta, report, result, event_done)


def _seeded(config: LeagueConfig, journal: Journal, on_seed: Callable[[str, str | None], None] | None) -> LeagueConfig:
    """The league with its seed: the configured one, else the one the journal drew (kept for
    ``--resume``); ``on_seed`` gets its commitment and the warning for a guessable seed, if any."""
    if config.seed is None:
        config = dataclasses.replace(config, seed=journal.seed())
    if on_seed is not None and (seed := config.seed_text) is not None:
        on_seed(commitment(seed), guessable(seed))
    return config


def _stopped_early(config: LeagueConfig, error: BaseException, kept: str) -> RunError | None:
    """The one line for a league stopped before its end by ``error``, saying what is ``kept`` and
    what to do: a full output filesystem, or matches an executor lost (a worker process died);
    None for any other error, which stays itself."""
    if isinstance(error, PlayLostError):
        return RunError(
            f"{error}; {kept} in {config.out / 'journal.sqlite'}: run the same command with --resume to play the others"
        )
    return full_disk(config, error, kept) if disk_full(error) else None


def _kept(results: Sequence[MatchResult], jobs: Sequence[MatchJob]) -> str:
    """What the journal keeps of a league stopped early: ``N of M matches finished and kept``."""
    return f"{len(results)} of {counted(len(jobs), 'match', 'matches')} finished and kept"


async def _played(executor: Executor, job: MatchJob) -> tuple[MatchJob, MatchResult]:
    """Play one job on the executor; the job comes back with its result (matches finish in any order)."""
    return job, await executor.run(job)


async def _run_league(
    config: LeagueConfig,
    executor: Executor,
    *,
    resume: bool,
    on_progress: Callable[[Progress], None] | None,
    keep_going: bool,
    on_seed: Callable[[str, str | None], None] | None,
    on_jobs: Callable[[Sequence[MatchJob]], None] | None = None,
) -> list[MatchResult]:
    """``run_league`` but for a full output filesystem before the first match (``run_league`` says
    that one); a full one later says how many matches are finished and kept."""
    claim_output(config.out, resume=resume)  # never over an earlier run's results
    journal = Journal(config.out / "journal.sqlite", fingerprint(config))
    try:
        config = _seeded(config, journal, on_seed)
        jobs, results, todo = _jobs_left(config, journal, resume)
        if on_jobs is not None:
            on_jobs(jobs)
        left = collections.Counter(j.event for j in todo)
        seen = {name for r in results for name in r.bots}
        pace = _Pace(len(jobs), results)
        report = league_report(config, results, len(jobs))
        outputs = Outputs(config, report)

        tasks: list[asyncio.Future[tuple[MatchJob, MatchResult]]] = []
        try:
            outputs.write(now=True)
            tasks = [asyncio.ensure_future(_played(executor, job)) for job in todo]
            for future in asyncio.as_completed(tasks):
                job, result = await future
                failure = None if keep_going else start_failure(result, job.out, seen)
                if failure is not None:
                    raise failure
                seen.update(result.bots)
                journal.commit(job.event, result)
                results.append(result)
                report.add(result)
                left[job.event] -= 1
                pace.played += result.hands
                outputs.write(now=len(results) == len(jobs))
                if on_progress is not None:
                    event_done = job.event if left[job.event] == 0 else None
                    on_progress(pace.progress(len(results), report, result, event_done))
        except (OSError, sqlite3.OperationalError, PlayLostError) as error:
            stopped = _stopped_early(config, error, _kept(results, jobs))
            if stopped is None:
                raise
            raise stopped from None
        finally:
            with contextlib.suppress(OSError, sqlite3.OperationalError):  # the error in flight says more
                outputs.write(now=True)  # what a skipped write left out (the journal has it anyway)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return sorted(results, key=lambda r: r.match_id)
    finally:
        journal.close()
