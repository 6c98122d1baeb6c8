"""The arena's layers, read from the source and from what importing loads: the model is pure (the
standard library and dealer.errors alone), and the API, the storage and the archive checks load
neither the match runner, the launcher, the sandbox nor gRPC; only the builder plays."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from test_layers import DEALER, _imports

RUNNER = (
    "dealer.league.runner",
    "dealer.league.match",
    "dealer.connect.server",
    "dealer.isolation.processes",
    "dealer.isolation.sandbox",
    "grpc",
)


def test_the_model_imports_nothing_but_the_standard_library_and_the_errors() -> None:
    imported = {
        name.split(".")[0] if not name.startswith("dealer") else name
        for name in _imports(DEALER / "arena" / "model.py")
    }
    ours = {name for name in imported if name.startswith("dealer")}
    assert ours == {"dealer.errors.DealerError"}, ours
    assert imported - ours <= set(sys.stdlib_module_names) | {"__future__"}, imported - ours


def test_the_api_storage_and_archives_do_not_load_the_runner() -> None:
    code = (
        "import sys, dealer.arena.http, dealer.arena.store.schema, dealer.arena.store.teams, "
        "dealer.arena.store.ladder, "
        "dealer.arena.store.reads, dealer.arena.archive, dealer.arena.client; "
        f"print(sorted(m for m in sys.modules if any(m == r or m.startswith(r + '.') for r in {RUNNER!r})))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded
    # The same check sees the runner where it is loaded: the builder plays smoke matches.
    builder = code.replace("dealer.arena.client;", "dealer.arena.client, dealer.arena.builds;")
    loaded = subprocess.run([sys.executable, "-c", builder], capture_output=True, text=True, check=True).stdout
    assert "dealer.league.runner" in loaded and "dealer.isolation.processes" in loaded


ROUTES = ("http.py", "pages.py", "organiser_pages.py")
STORES = ("dealer.arena.store", "dealer.arena.public", "sqlalchemy")
STORE = DEALER / "arena" / "store"  # the storage: schema, teams, ladder, reads
WIRING = {"make_app", "add_pages", "add_organiser_pages"}  # where the application is put together


def test_no_route_module_reads_a_store_or_decides_access_itself() -> None:
    """Issue 34 (1): the API (/api/v1) and the pages (/data) are two presenters of one use-case
    layer (dealer.arena.services): a route parses the request, calls one use case on the request's
    caller and writes its answer. No route module imports a store's queries or the pages' reads
    (type names and pure formatters aside), touches the repository or a store outside the wiring
    of the application, or compares a caller's team with a match's seats (who may see a match's
    hands or logs is the use case's to say), and no store names an HTTP status."""
    allowed = {
        "dealer.arena.store.teams.Repository",  # the type the application is made with
        "dealer.arena.store.ladder.Planned",  # a scrimmage's record, which the API shows
        "dealer.arena.store.reads.MatchLine",  # a match's record, which the pages show
        "dealer.arena.public.duplicate_groups",  # pure: hands in, chips by duplicate group out
    }
    for name in ROUTES:
        path = DEALER / "arena" / name
        stores = {i for i in _imports(path) if i.startswith(STORES) or i.split(".")[0] == "sqlalchemy"}
        assert stores <= allowed, (name, stores - allowed)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
            if function.name in WIRING:
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Attribute):
                    assert node.attr not in ("repository", "store", "reads", "team_id", "engine"), (
                        f"{name}:{node.lineno}: {function.name} reads .{node.attr}"
                    )
                if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name):
                    assert node.slice.id != "REPOSITORY", f"{name}:{node.lineno}: {function.name} reads the repository"
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "LadderStore":
                    raise AssertionError(f"{name}:{node.lineno}: {function.name} opens the ladder's store")
    for store in [*STORE.glob("*.py"), DEALER / "arena" / "public.py"]:
        text = store.read_text(encoding="utf-8")
        assert "aiohttp" not in text and not re.search(r"status\s*=|\b(40[0-9]|429)\b,", text), store


ABOVE_THE_STORE = ("services", "http", "pages", "organiser_pages", "sessions", "server", "cli", "ladder_loop", "finals")


def test_the_store_is_one_package_that_alone_speaks_sql_and_shares_only_public_names() -> None:
    """Issue 34 (3): dealer.arena.store (schema, teams, ladder, reads) is the only place that builds
    queries (elsewhere sqlalchemy is used for database URLs and errors alone, the migrations aside);
    it imports nothing of the arena above it; and no arena module or test imports another module's
    private name (the store's modules share public helpers: ``utc``, ``version_of``, ``TEAMS``)."""
    modules = sorted(p.stem for p in STORE.glob("*.py"))
    assert modules == ["__init__", "ladder", "reads", "schema", "teams"], modules
    arena = DEALER / "arena"
    for path in sorted(arena.rglob("*.py")):
        inside = path.is_relative_to(STORE) or path.is_relative_to(arena / "migrations")
        for name in _imports(path):
            where = f"{path.relative_to(DEALER)} imports {name}"
            if not inside and name.split(".")[0] in ("sqlalchemy", "alembic"):
                assert name.startswith(("sqlalchemy.engine.", "sqlalchemy.exc.")), where
            if path.is_relative_to(STORE):
                assert not name.startswith(tuple(f"dealer.arena.{m}" for m in ABOVE_THE_STORE)), where
            if name.startswith("dealer.arena.") and not path.name.startswith("r0"):
                assert not name.rsplit(".", 1)[1].startswith("_"), where
    for path in [*sorted(arena.rglob("*.py")), *sorted((DEALER.parent / "tests").glob("test_arena_*.py"))]:
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"\b(?:schema|teams|ladder|reads|repository|ladder_store|public|layout)\._[a-z]\w*", text)
        assert found == [], (path.name, found)


# What the arena reads of its own package and of a toolchain's install (not of its storage folder).
PACKAGE_FILES = {"static", "web", "openapi.yaml", "data-openapi.yaml", "migrations", "bin", "rustc"}
FILE_NAMES = {
    "finals.json",
    "results.json",
    "standings.txt",
    "arena.log",
    "arena.db",
    "*.phhs",
}  # the storage's, however used


def _spelled_names(tree: ast.AST) -> list[tuple[int, str]]:
    """The string literals a module joins onto a path (``folder / "x"``, f-strings too) or globs
    with, and the storage's file names wherever they appear."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        operands: list[ast.expr] = []
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("glob", "rglob") and node.args:
            operands = [node.args[0]]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FILE_NAMES:
            found.append((node.lineno, node.value))
        for operand in operands:
            if isinstance(operand, ast.JoinedStr):
                found.append((operand.lineno, ast.unparse(operand)))
            elif (
                isinstance(operand, ast.Constant)
                and isinstance(operand.value, str)
                and operand.value not in PACKAGE_FILES
            ):
                found.append((operand.lineno, operand.value))
    return found


def test_only_the_layout_spells_the_storage_folders_and_file_names() -> None:
    """Issue 34 (3): dealer.arena.layout is the one owner of the storage's folder and file names
    (``hands``, ``*.phhs``, ``logs``, ``matches/``, ``finals.json``, ``results.json``,
    ``standings.txt``, ``incoming/upload-*``): no other arena module joins a literal onto a path,
    globs with one, or spells one of those files."""
    spelled = {}
    for path in sorted((DEALER / "arena").rglob("*.py")):
        if path.name != "layout.py" and "migrations" not in path.parts:
            found = _spelled_names(ast.parse(path.read_text(encoding="utf-8")))
            spelled.update({str(path.relative_to(DEALER)): found} if found else {})
    assert spelled == {}, spelled
    # The check sees a name where one is spelled; the layout spells them all.
    sample = ast.parse('paths = (out / "hands").glob(f"{x}.log"), "finals.json"')
    assert {name for _, name in _spelled_names(sample)} == {"hands", "f'{x}.log'", "finals.json"}
    tree = ast.parse((DEALER / "arena" / "layout.py").read_text(encoding="utf-8"))
    layout = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert {
        "matches",
        "hands",
        "*.phhs",
        "logs",
        "seed",
        "finals.json",
        "results.json",
        "standings.txt",
        "arena.db",
    } <= layout
