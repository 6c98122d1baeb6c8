"""Our dealer beside the ACPC dealer (project_acpc_server, built from source): hands/s and ratios, in one run.

Heads-up no-limit (blinds 50/100, stacks 20,000: the ACPC repository's
``holdem.nolimit.2p.reverse_blinds.game``), three workloads, each played by both dealers,
alternated (ours first on even repeats, ACPC's first on odd ones) so that the machine's load
falls on both alike; medians of ``--repeats``:

* ``same C call bots``: the ACPC always-call player (``example_player.c`` with its fold and raise
  probabilities set to 0) on both seats of both dealers; ours reaches it through our ACPC bridge
  (``dealer.connect.acpc``), sandboxed and sealed as a match launches it (``--sandbox off``: on the
  host's loopback), so only the dealers differ. An ACPC client plays one table: ours plays
  ``--tables`` tables at once, each with its own pair of client instances (as ``dealer match
  --tables`` does), ACPC's dealer one;
* ``Python call bots``: our SDK's ``sample_bots/python/call_bot.py`` (gRPC, ``--py-tables``
  tables over one instance per bot) against the ACPC dealer with the C call player;
* ``random bots``: ``sample_bots/python/random_bot.py`` against the unmodified ``example_player``.

Our match is played as ``dealer match`` plays it: its tables spread over ``--workers`` processes
(``dealer.league.workers``; by default the cores, one per 5,000 hands at most), each with its own
event loop and its own client instances, the C bots' ``--tables`` shared among them. The ACPC
dealer is one process by design: one table, a round trip per decision, leaving cores idle.

Rates count from the moment every bot has connected to the last hand (the ACPC dealer's: from
launching its two players, which connect within a millisecond, to its exit; ours over several
workers: from the first hands a worker reports, while a slower one may still be starting); ours
with start-up is printed too. A ratio is refused when any bot of either run faulted: ours by the match's
faults, ACPC's by its exit status, its players', a ``WARNING``/``ERROR`` on its error output,
a missing ``SCORE`` line or a log that holds fewer hands than asked. The ACPC dealer runs with
its ``-q`` (``--acpc-log quiet``): otherwise it writes every message it sends and receives to its
error output, a write each (26 a heads-up checkdown hand), which our dealer does not do, and which
cost it about 100 us of CPU a hand on a 2-core machine (``--acpc-log messages`` to see it).

The source comes from ``--acpc-src DIR`` (or ``$ACPC_SRC``): a checkout, or a git repository
(bare too) cloned into ``--cache`` (default ``~/.cache/dealer-bench/acpc``); without it, GitHub's
is cloned there. It is built in the cache with its own Makefile (gcc).

    python benchmarks/vs_acpc.py [--acpc-src DIR] [--hands 20000] [--tables 64] [--workers N] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bridges import heads_up, play
from tabulate import tabulate

from dealer.config.league_file import Limits
from dealer.connect.server import DealerServer
from dealer.league.match import MatchBot
from dealer.league.runner import play_match
from dealer.league.workers import default_workers
from dealer.runtime import tune_gc

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = "https://github.com/Liuweiming/project_acpc_server"
GAME = "holdem.nolimit.2p.reverse_blinds.game"
PROBABILITIES = (  # example_player.c's, and the always-call player's
    "  probs[ a_fold ] = 0.06;\n"
    "  probs[ a_call ] = ( 1.0 - probs[ a_fold ] ) * 0.5;\n"
    "  probs[ a_raise ] = ( 1.0 - probs[ a_fold ] ) * 0.5;\n",
    "  probs[ a_fold ] = 0.0;\n  probs[ a_call ] = 1.0;\n  probs[ a_raise ] = 0.0;\n",
)
PYTHON_BOTS = ROOT / "sample_bots" / "python"
ACPC_LOGS = {  # what the ACPC dealer writes to its error output (read here for warnings and errors)
    "quiet": "-q: errors, warnings and the score, as our dealer logs no line per message",
    "messages": "its default: also every message sent and received, one write each",
}


@dataclass(frozen=True)
class Acpc:
    """The built ACPC programs: its dealer, ``example_player`` and the always-call player."""

    folder: Path
    dealer: Path
    example_player: Path
    call_player: Path

    @property
    def game(self) -> Path:
        return self.folder / GAME


@dataclass(frozen=True)
class Run:
    """One run of one dealer: hands/s (from every bot connected; ours also with start-up), or a fault."""

    rate: float
    with_startup: float | None = None
    fault: str | None = None


def source(given: Path | None, cache: Path) -> Path:
    """The ACPC source: ``given`` where it is a checkout, else a clone (made once, in ``cache``) of
    ``given`` (a git repository, bare or not) or of REPOSITORY."""
    if given is not None and (given / "dealer.c").is_file():
        return given
    origin = str(given) if given is not None else REPOSITORY
    clone = cache / f"src-{hashlib.sha256(origin.encode()).hexdigest()[:12]}"
    if not (clone / "dealer.c").is_file():
        shutil.rmtree(clone, ignore_errors=True)
        clone.parent.mkdir(parents=True, exist_ok=True)
        shallow = [] if given is not None else ["--depth", "1"]  # a local repository is cloned by links
        done = subprocess.run(["git", "clone", "--quiet", *shallow, origin, str(clone)], check=False)
        if done.returncode != 0:
            sys.exit(f"error: cannot clone {origin} (no network?): pass --acpc-src DIR (a checkout) or set ACPC_SRC")
    return clone


def build(src: Path, out: Path) -> Acpc:
    """Copy the source into ``out`` and build the dealer, example_player and the always-call player."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(src, out, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["make", "-s", "dealer", "example_player"], cwd=out, check=True)
    player = (out / "example_player.c").read_text()
    if PROBABILITIES[0] not in player:
        sys.exit(f"error: {src}/example_player.c: its action probabilities are not the ones expected")
    (out / "call_player.c").write_text(player.replace(*PROBABILITIES))
    subprocess.run(
        ["gcc", "-O3", "-Wall", "-o", "call_player", "game.c", "rng.c", "call_player.c", "net.c"], cwd=out, check=True
    )
    return Acpc(out, out / "dealer", out / "example_player", out / "call_player")


def run_acpc(acpc: Acpc, player: Path, hands: int, seed: int, out: Path, quiet: bool = True) -> Run:
    """Play ``hands`` hands on the ACPC dealer between two copies of ``player``; its rate, or its fault.
    ``quiet``: its ``-q`` (errors, warnings and the score only), else it also writes every message it
    sends and receives to its error output, one write each, as ours does not."""
    out.mkdir(parents=True, exist_ok=True)
    dealer = subprocess.Popen(
        [str(acpc.dealer), "match", str(acpc.game), str(hands), str(seed), "a", "b", "--start_timeout", "20000"]
        + (["-q"] if quiet else []),
        cwd=out,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert dealer.stdout is not None
    ports = dealer.stdout.readline().split()
    started = time.perf_counter()
    players = [
        subprocess.Popen(
            [str(player), str(acpc.game), "127.0.0.1", port], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        for port in ports
    ]
    try:
        output, errors = dealer.communicate(timeout=60 + hands / 100)
    except subprocess.TimeoutExpired:
        for process in (dealer, *players):
            process.kill()
        return Run(0.0, fault=f"ACPC: no end within {60 + hands / 100:.0f} s")
    elapsed = time.perf_counter() - started
    codes = [dealer.returncode] + [p.wait() for p in players]
    states = sum(line.startswith("STATE:") for line in (out / "match.log").read_text().splitlines())
    problems = [line for line in errors.splitlines() if "WARNING" in line or "ERROR" in line]
    if any(codes) or problems or "SCORE" not in output or states != hands:
        return Run(0.0, fault=f"ACPC: exit {codes}, {states} hands of {hands}, {problems[:2]}")
    return Run(hands / elapsed)


async def run_ours(
    server: DealerServer, out: Path, kind: tuple[tuple[str, ...], str], hands: int, tables: int, limits: Limits
) -> Run:
    """Play ``hands`` hands over ``tables`` tables on our dealer between two bots of ``kind``."""
    started = time.perf_counter()
    try:
        seconds, played, _ = await play(server, out, kind, hands, tables, limits)
    except RuntimeError as error:  # a bot faulted
        return Run(0.0, fault=f"ours: {str(error)[:300]}")
    total = time.perf_counter() - started
    if played != hands:
        return Run(0.0, fault=f"ours: {played} hands of {hands}")
    return Run(played / seconds, played / total)


async def run_workers(
    out: Path, kind: tuple[tuple[str, ...], str], hands: int, tables: int, limits: Limits, workers: int
) -> Run:
    """As ``run_ours``, the match's tables spread over ``workers`` processes (``dealer.league.workers``),
    as ``dealer match`` plays it. The workers' bots connect in processes of their own, so the rate
    counts from the first hands a worker reports (``PROGRESS_EVERY_S`` after its first hand at
    most; a slower worker's start-up may still run then) to the end, over the hands not reported
    by then; with start-up, from the call to the end."""
    command, protocol = kind
    bots = {name: MatchBot(name, command, limits=limits, protocol=protocol) for name in ("a", "b")}
    first: list[tuple[float, int]] = []  # when the first hands were reported, and how many

    def reported(finished: int) -> None:
        if not first:
            first.append((time.perf_counter(), finished))

    started = time.perf_counter()
    plan = heads_up(hands, tables)
    result = await play_match(plan, bots, "127.0.0.1:0", out, stop_unstarted=True, on_hands=reported, workers=workers)
    ended = time.perf_counter()
    if any(result.faults.values()) or result.hands != hands:
        return Run(0.0, fault=f"ours: {result.hands} hands of {hands}, faults {result.faults}")
    clock, before = first[0] if first and first[0][1] < hands else (started, 0)  # else too short to tell
    return Run((hands - before) / (ended - clock), hands / (ended - started))


def workloads(acpc: Acpc, tables: int, py_tables: int) -> list[tuple[str, tuple[tuple[str, ...], str], int, Path]]:
    """Each workload: its name, our bots' (command, protocol), our table count, ACPC's player."""
    python = sys.executable
    return [
        ("same C call bots", ((str(acpc.call_player), "{game}", "{host}", "{port}"), "acpc"), tables, acpc.call_player),
        (
            "Python call bots / C call bots",
            ((python, str(PYTHON_BOTS / "call_bot.py")), "grpc"),
            py_tables,
            acpc.call_player,
        ),
        ("random bots", ((python, str(PYTHON_BOTS / "random_bot.py")), "grpc"), py_tables, acpc.example_player),
    ]


async def measure(acpc: Acpc, out: Path, args: argparse.Namespace) -> dict[str, tuple[list[Run], list[Run]]]:
    """Every workload ``args.repeats`` times on both dealers, ours once per ``--workers`` count, alternated:
    {row: (our runs, ACPC's runs)}, a row per workload and worker count (its ACPC runs shared)."""
    runs: dict[str, tuple[list[Run], list[Run]]] = {}
    limits = Limits(sandbox=args.sandbox)
    async with DealerServer("127.0.0.1:0") as server:
        for r in range(args.repeats):
            for name, kind, tables, player in workloads(acpc, args.tables, args.py_tables)[: args.workloads]:
                hands = args.hands // tables * tables
                theirs: list[Run] = []
                rows = {w: runs.setdefault(row(name, w, args.workers), ([], theirs))[0] for w in args.workers}
                theirs = runs[row(name, args.workers[0], args.workers)][1]
                where = out / f"{r}-{name.replace(' ', '-').replace('/', '')}"
                sides = [*args.workers, 0]  # 0: the ACPC dealer
                for side in sides if r % 2 == 0 else sides[::-1]:
                    if side == 0:
                        theirs.append(run_acpc(acpc, player, hands, r + 1, where / "acpc", args.acpc_log == "quiet"))
                    elif side > 1:
                        rows[side].append(await run_workers(where / f"ours-{side}", kind, hands, tables, limits, side))
                    else:
                        rows[side].append(await run_ours(server, where / "ours-1", kind, hands, tables, limits))
    return runs


def row(name: str, workers: int, counts: list[int]) -> str:
    """A row's name: the workload's, with its worker count where more than one count is measured."""
    return name if len(counts) == 1 else f"{name}, {workers} worker{'s' if workers > 1 else ''}"


def report(runs: dict[str, tuple[list[Run], list[Run]]], args: argparse.Namespace, loads: list[str]) -> None:
    """One row per workload: medians, the ratio (refused where any bot faulted), and every fault."""
    med = statistics.median
    rows, faults = [], []
    for name, (ours, theirs) in runs.items():
        failed = [run.fault for run in ours + theirs if run.fault]
        faults += [f"{name}: {fault}" for fault in failed]
        rate, startup, acpc = (
            med(r.rate for r in ours),
            med(r.with_startup or 0 for r in ours),
            med(r.rate for r in theirs),
        )
        ratio = "refused: a bot faulted" if failed else f"{rate / acpc:.2f}x"
        rows.append([name, f"{rate:,.0f}", f"{startup:,.0f}", f"{acpc:,.0f}", ratio])
    print(
        tabulate(
            rows,
            headers=[
                f"heads-up no-limit, medians of {args.repeats}",
                "ours hands/s",
                "ours with start-up",
                "ACPC hands/s",
                "ours / ACPC",
            ],
            disable_numparse=True,
        )
    )
    print(
        f"method: {args.hands:,} hands a run; ours: C bots over {args.tables} tables (a client pair each, sandbox "
        f"{args.sandbox}), Python bots over {args.py_tables} tables (one instance each); ACPC's dealer: one table "
        f"(one client each), {ACPC_LOGS[args.acpc_log]}; dealers alternated; clocks from every bot connected"
        f"{' (ours over workers: from the first hands a worker reported)' if max(args.workers) > 1 else ''}; "
        f"ours over {'/'.join(map(str, args.workers))} worker process{'es' if args.workers != [1] else ''}; "
        f"{os.cpu_count()} cores"
    )
    print(f"load (1, 5, 15 min) before: {loads[0]}, after: {loads[1]}")
    for fault in faults:
        print(f"FAULT {fault}")


def counts(text: str) -> list[int]:
    """``--workers``: one worker count or several, comma-separated, each at least 1."""
    try:
        numbers = [int(word) for word in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a worker count or a list of them: {text!r}") from None
    if not numbers or min(numbers) < 1:
        raise argparse.ArgumentTypeError(f"worker counts are at least 1: {text!r}")
    return list(dict.fromkeys(numbers))


def load() -> str:
    """The machine's load averages, as os.getloadavg gives them."""
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--acpc-src",
        type=Path,
        default=os.environ.get("ACPC_SRC") or None,
        help="a checkout of project_acpc_server (default: $ACPC_SRC, else cloned)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "dealer-bench" / "acpc",
        help="where the clone and the build go",
    )
    parser.add_argument(
        "--hands", type=int, default=20000, help="hands per run (rounded down to a multiple of the tables)"
    )
    parser.add_argument(
        "--tables", type=int, default=64, help="our tables for the C bots (a pair of client instances each)"
    )
    parser.add_argument(
        "--py-tables", type=int, default=256, help="our tables for the Python bots (one instance per bot)"
    )
    parser.add_argument(
        "--sandbox", choices=("on", "off"), default="on", help="our bots' sandbox (on: sealed, as a match runs them)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--workers",
        type=counts,
        help="our match's worker processes, or several counts (1,2: a row each, alternated with ACPC's runs); "
        "default: as `dealer match`, the cores, one per 5,000 hands at most",
    )
    parser.add_argument("--workloads", type=int, choices=(1, 2, 3), default=3, help="the first N workloads only")
    parser.add_argument(
        "--acpc-log",
        choices=tuple(ACPC_LOGS),
        default="quiet",
        help="the ACPC dealer's -q (quiet: as our dealer, no line per message) or its default (messages)",
    )
    args = parser.parse_args()
    args.workers = args.workers or [default_workers(args.hands)]
    acpc = build(source(args.acpc_src, args.cache), args.cache / "build")
    tune_gc()  # as the ``dealer`` command does
    loads = [load()]
    with tempfile.TemporaryDirectory() as tmp:
        runs = asyncio.run(measure(acpc, Path(tmp), args))
    loads.append(load())
    report(runs, args, loads)


if __name__ == "__main__":
    main()
