"""One name, one meaning, read from the source: ``Protocol`` is ``typing.Protocol`` (the bots'
protocols are ``choices.BotProtocol``), and ``HOUSE`` is the house team's name (its program is
``builds.HOUSE_PROGRAM``)."""

from __future__ import annotations

import ast
from pathlib import Path

from dealer.arena.builds import HOUSE_PROGRAM
from dealer.arena.store.ladder import HOUSE
from dealer.config.choices import BotProtocol

DEALER = Path(__file__).resolve().parent.parent / "dealer"


def _trees() -> dict[str, ast.Module]:
    return {p.relative_to(DEALER).as_posix(): ast.parse(p.read_text(), str(p)) for p in sorted(DEALER.rglob("*.py"))}


def _bindings(tree: ast.Module, name: str) -> list[str]:
    """How ``tree`` binds ``name``: ``from M import X [as name]`` as ``M.X``, a class or an assignment as ``here``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [f"{node.module}.{a.name}" for a in node.names if (a.asname or a.name) == name]
        targets = node.targets if isinstance(node, ast.Assign) else []
        defined = isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name
        if defined or any(isinstance(t, ast.Name) and t.id == name for t in targets):
            found.append("here")  # a class, a function or an assignment
    return found


def test_protocol_always_means_typing_protocol() -> None:
    bound = {name: _bindings(tree, "Protocol") for name, tree in _trees().items()}
    odd = {name: b for name, b in bound.items() if set(b) - {"typing.Protocol"}}
    assert odd == {}, "the bots' protocols are dealer.config.choices.BotProtocol"
    # The scan sees typing's Protocol where it is imported, so another binding would be seen too.
    assert bound["connect/pump.py"] == ["typing.Protocol"] and bound["league/jobs.py"] == ["typing.Protocol"]
    assert [str(p) for p in BotProtocol] == ["grpc", "stdio", "acpc"]


def test_house_is_the_house_teams_name_and_only_that() -> None:
    bound = {name: _bindings(tree, "HOUSE") for name, tree in _trees().items()}
    owners = [name for name, b in bound.items() if "here" in b]
    assert owners == ["arena/store/ladder.py"], owners
    imported = {b for found in bound.values() for b in found if b != "here"}
    assert imported <= {"dealer.arena.store.ladder.HOUSE"}, "import the house team's name from its one owner"
    assert HOUSE == "house" and HOUSE_PROGRAM.name == "call_bot.py" and HOUSE_PROGRAM.is_file()
