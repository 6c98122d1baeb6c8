"""The size limits the code keeps, checked rather than kept by hand: no function or method in
dealer/ over 60 lines, and no module over 600 lines but the rules engine (one state machine, read
top to bottom). Generated code (poker/) is not ours and is not counted."""

from __future__ import annotations

import ast
from pathlib import Path

DEALER = Path(__file__).resolve().parent.parent / "dealer"
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
LONG_MODULES = {"rules.py"}


def _sources() -> list[Path]:
    return sorted(path for path in DEALER.rglob("*.py") if "migrations" not in path.parts)


def _long_functions(source: str) -> list[tuple[str, int]]:
    """Each function or method of ``source`` over the limit, with its length in lines (from ``def``
    to its last line: signature and docstring included, decorators not)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append((node.name, length))
    return found


def test_the_scan_finds_a_long_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"def short():\n    return 1\n\n\n@decorated\nasync def long():\n{body}\n"
    assert _long_functions(source) == [("long", MAX_FUNCTION_LINES + 1)]


def test_no_function_is_over_sixty_lines() -> None:
    long = [
        f"{path.relative_to(DEALER.parent)}: {name} has {length} lines"
        for path in _sources()
        for name, length in _long_functions(path.read_text(encoding="utf-8"))
    ]
    assert long == [], "\n".join(long)


def test_no_module_is_over_six_hundred_lines_but_the_rules_engine() -> None:
    long = [
        f"{path.relative_to(DEALER.parent)}: {lines} lines"
        for path in _sources()
        if path.name not in LONG_MODULES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert long == [], "\n".join(long)
