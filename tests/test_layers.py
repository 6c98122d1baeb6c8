"""The layering the README promises, read from the source: the generated protobuf classes are
imported only at the wire edge (``dealer/connect/wire.py``, ``wire_json.py``, ``server.py``); every other module
of the dealer speaks the domain's own types. The views (the terminal, the web view) read the
league's report (``dealer/league/report.py``) and import neither the league that runs matches nor the
server nor gRPC, not even through another module. The statistics (compare, stats, paired) start no
process: playing is ``dealer/league/runner.py``'s."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

DEALER = Path(__file__).resolve().parent.parent / "dealer"
PROTOBUF_EDGE = {"connect/wire.py", "connect/wire_json.py", "connect/server.py"}
_IMPORTERS = {"import_module", "__import__"}  # importlib.import_module("poker.v1.dealer_pb2") counts too


def _imports(path: Path, text: str | None = None) -> list[str]:
    """Every module ``path`` (or ``text`` placed there) imports (``from m import x`` counts as
    ``m.x``; relative imports resolved inside the dealer package)."""
    names = []
    package = ["dealer", *path.relative_to(DEALER).parent.parts] if path.is_relative_to(DEALER) else []
    for node in ast.walk(ast.parse(path.read_text() if text is None else text, str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            names += [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in _IMPORTERS and node.args and isinstance(node.args[0], ast.Constant):
                names.append(str(node.args[0].value))
    return names


def _protobuf_imports(path: Path) -> list[str]:
    """The modules of the generated stubs (package ``poker``) or of protobuf itself that ``path`` imports."""
    return [n for n in _imports(path) if n.split(".")[0] == "poker" or n.startswith("google.protobuf")]


VIEWS = ("web/view.py", "cli/terminal.py")
RUNNER = ("dealer.league.run", "dealer.connect.server", "grpc")  # what runs matches, and the stack under it


def _runner_imports(path: Path) -> list[str]:
    """The modules of the league runner, the server or gRPC that ``path`` imports directly."""
    return [n for n in _imports(path) if any(n == r or n.startswith(f"{r}.") for r in RUNNER)]


def test_views_import_the_report_not_the_league_or_the_server() -> None:
    direct = {view: _runner_imports(DEALER / view) for view in VIEWS}
    assert not any(direct.values()), f"views importing the runner (read dealer.league.report instead): {direct}"
    code = (
        "import sys, dealer.web.view, dealer.cli.terminal; "
        f"print(sorted(m for m in sys.modules if any(m == r or m.startswith(r + '.') for r in {RUNNER!r})))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", f"importing the views loads the runner through another module: {loaded}"
    # The scan sees the runner where it is imported (the CLI runs leagues), so a view's import would be seen.
    assert {"dealer.league.run.run_league", "dealer.connect.server.DealerServer"} <= set(
        _runner_imports(DEALER / "cli/league.py")
    )


def test_only_wire_and_server_import_the_generated_protobuf() -> None:
    found = {
        path.relative_to(DEALER).as_posix(): _protobuf_imports(path)
        for path in sorted(DEALER.rglob("*.py"))
        if "node_modules" not in path.parts
    }
    offenders = {name: imports for name, imports in found.items() if imports and name not in PROTOBUF_EDGE}
    assert offenders == {}, f"protobuf outside the wire edge (convert in dealer/connect/wire.py instead): {offenders}"
    # The scan sees the edge's own imports, so an import elsewhere would be seen too.
    assert "poker.v1.dealer_pb2" in found["connect/wire.py"] and "poker.v1.dealer_pb2" in found["connect/server.py"]


def test_the_scan_sees_every_form_of_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import poker.v1.dealer_pb2\n"
        "from poker.v1 import dealer_pb2_grpc as g\n"
        "from google.protobuf.message import DecodeError\n"
        "import importlib\n"
        "importlib.import_module('poker.v1.dealer_pb2')\n"
        "from dealer import wire\n"
        "from .league import run_league\n"
    )
    assert _protobuf_imports(module) == [
        "poker.v1.dealer_pb2",
        "poker.v1.dealer_pb2_grpc",
        "google.protobuf.message.DecodeError",
        "poker.v1.dealer_pb2",
    ]
    assert _runner_imports(module) == []  # outside the dealer package a relative import names no dealer module
    view = DEALER / "web" / "probe.py"  # not written: only its path places the relative imports
    assert _imports(view, "from ..league.run import Progress\nfrom . import server\n") == [
        "dealer.league.run.Progress",
        "dealer.web.server",
    ]


def test_the_fault_reasons_have_one_owner_that_scorers_import_without_the_server() -> None:
    """Fault reasons and the set that voids a result live in ``dealer.stats.faults``: the values are
    those results.json has always written, and a scorer reaches them without loading gRPC."""
    import json
    import subprocess
    import sys

    from dealer.connect.server import Fault as ServerFault
    from dealer.stats.faults import VOIDING, Fault, voided

    assert ServerFault is Fault
    values = ["timeout", "illegal_action", "unexpected_reply", "protocol", "disconnect", "crash", "memory", "cpu_time"]
    values += ["no_connect", "start_failed", "authentication", "flood", "stalled"]
    assert [str(f) for f in Fault] == values
    assert json.dumps({Fault.CRASH: 1, "x": Fault.TIMEOUT}) == '{"crash": 1, "x": "timeout"}'
    assert {"start_failed", "no_connect", "authentication", "crash", "memory", "cpu_time", "disconnect"} == VOIDING
    assert voided({"timeout": 3, "crash": 1}) and not voided({"timeout": 3, "flood": 1}) and not voided({})
    code = "import sys, dealer.stats.faults, dealer.stats.standings, dealer.stats.ratings; print('grpc' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "False"


STATISTICS = ("stats/compare.py", "stats/stats.py", "stats/paired.py")
PLAYERS = (
    "dealer.league.runner",
    "dealer.league.match",
    "dealer.connect.server",
    "dealer.isolation.processes",
    "dealer.isolation.launch",
    "grpc",
)
"""What starts servers, matches and bot processes, and the stack under it."""


def _player_imports(path: Path) -> list[str]:
    """The modules that start processes (``PLAYERS``) that ``path`` imports directly."""
    return [n for n in _imports(path) if any(n == p or n.startswith(f"{p}.") for p in PLAYERS)]


def test_statistics_start_no_process() -> None:
    """The comparison's statistics read finished matches; playing them is ``dealer.league.runner``'s job."""
    direct = {module: _player_imports(DEALER / module) for module in STATISTICS}
    assert not any(direct.values()), f"statistics importing what plays matches (use dealer.league.runner): {direct}"
    code = (
        "import sys, dealer.stats.compare, dealer.stats.stats, dealer.stats.paired; "
        f"print(sorted(m for m in sys.modules if any(m == p or m.startswith(p + '.') for p in {PLAYERS!r})))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", f"importing the statistics loads what plays matches: {loaded}"
    # The scan sees the players where they are imported, so a statistics module's import would be seen.
    assert {"dealer.league.match.Match", "dealer.connect.server.DealerServer"} <= set(
        _player_imports(DEALER / "league/runner.py")
    )


CONNECTION_LAYER = ("connect/session.py", "connect/link.py", "connect/pump.py")
TRANSPORTS = (
    "connect/server.py",
    "connect/stdio.py",
    "connect/acpc.py",
)  # gRPC, stdio and ACPC: connections of the one pump


def _grpc_or_protobuf(path: Path) -> list[str]:
    """The modules of grpc, its health service, the generated stubs or protobuf that ``path`` imports."""
    return [n for n in _imports(path) if n.split(".")[0] in ("grpc", "grpc_health", "poker") or n.startswith("google.")]


def test_the_session_and_the_pump_import_no_grpc_or_protobuf_and_every_transport_uses_the_pump() -> None:
    found = {name: _grpc_or_protobuf(DEALER / name) for name in CONNECTION_LAYER}
    assert not any(found.values()), f"the connection layer knows a transport (keep it in a Connection): {found}"
    assert "grpc" in _grpc_or_protobuf(DEALER / "connect/server.py")  # the scan sees a transport's own imports
    users = {name: "dealer.connect.pump.pump" in _imports(DEALER / name) for name in TRANSPORTS}
    assert all(users.values()), f"a transport with a read/write loop of its own (use dealer.connect.pump): {users}"


LAUNCHERS = (
    "dealer.isolation.processes",
    "dealer.connect.acpc",
    "dealer.connect.stdio",
    "dealer.isolation.sandbox",
    "dealer.league.roster",
    "dealer.connect.server",
)


def test_a_table_plays_hands_and_launches_no_process() -> None:
    """The table (deal, ask, apply, settle) reaches its seats through the roster it is handed: it
    imports nothing that starts a process or serves a connection, not even through another module."""
    direct = [
        n for n in _imports(DEALER / "league/table.py") if any(n == m or n.startswith(f"{m}.") for m in LAUNCHERS)
    ]
    assert direct == ["dealer.league.roster.Roster", "dealer.league.roster.Seat"]  # for types only (TYPE_CHECKING)
    code = f"import sys, dealer.league.table; print(sorted(m for m in sys.modules if m in {LAUNCHERS!r}))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", f"importing the table loads a launcher: {loaded}"
    assert "dealer.isolation.processes.BotProcess" in _imports(
        DEALER / "league/roster.py"
    )  # the roster is what launches


FOLDERS = ("engine", "config", "stats", "isolation", "connect", "league", "web", "arena", "cli")
"""The dealer's folders, from the bottom up: each imports only itself and the folders before it."""
SHARED = ("errors", "files", "runtime", "text")  # at the top of dealer/: imported by any folder, importing none


def test_each_folder_imports_only_the_folders_below_it() -> None:
    """The pure engine at the bottom, the command line on top: a module never imports a folder after its
    own in ``FOLDERS``, so each folder can be read, tested and replaced with only those below it."""
    upward: dict[str, list[str]] = {}
    for rank, folder in enumerate(FOLDERS):
        for path in sorted((DEALER / folder).rglob("*.py")):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "dealer" and len(parts) > 1 and parts[1] in FOLDERS[rank + 1 :]:
                    upward.setdefault(path.relative_to(DEALER).as_posix(), []).append(name)
    assert upward == {}, f"a folder importing one above it (move the code down, or the import up): {upward}"
    shared = {name: [n for n in _imports(DEALER / f"{name}.py") if n.startswith("dealer.")] for name in SHARED}
    assert not any(shared.values()), f"a shared module importing the dealer's folders: {shared}"
    # Every module lives in a folder that says what it owns, or is one of the shared few.
    assert sorted(p.stem for p in DEALER.glob("*.py") if p.stem != "__init__") == sorted(SHARED)
    packages = sorted(p.name for p in DEALER.iterdir() if (p / "__init__.py").is_file())
    assert packages == sorted(FOLDERS)
    undocumented = [f for f in FOLDERS if not ast.get_docstring(ast.parse((DEALER / f / "__init__.py").read_text()))]
    assert undocumented == [], f"a folder whose __init__.py does not say what it owns: {undocumented}"
    # The scan sees imports across folders (the CLI runs leagues), so an upward one would be seen too.
    assert "dealer.league.run.run_league" in _imports(DEALER / "cli" / "league.py")


def test_the_league_and_the_ladder_share_one_job_and_one_executor() -> None:
    """``MatchJob`` and ``Executor`` live in ``dealer.league.jobs``: the arena's ladder plays jobs
    without importing the league runner, and neither defines an executor of its own."""
    ladder = _imports(DEALER / "arena" / "ladder_loop.py")
    assert {"dealer.league.jobs.MatchJob", "dealer.league.jobs.Executor"} <= set(ladder)
    assert [n for n in ladder if n.startswith(("dealer.league.run.", "dealer.league.runner."))] == []
    defined = {
        path.relative_to(DEALER).as_posix()
        for path in DEALER.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and node.name in ("Executor", "MatchJob")
    }
    assert defined == {"league/jobs.py"}
