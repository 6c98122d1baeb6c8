"""``finals.yaml`` into a validated, frozen ``FinalsConfig`` (``file:line: key.path: problem`` lines,
every problem at once, as for a league). Reference format::

    name: final-2026         # required: the finals' name, also its folder storage/finals/NAME
    jobs: 2                  # optional, 1..1024: matches played at once (default: one per core)
    stages:                  # required, >= 1, played in order; each a sealed duplicate round robin
      - name: groups         #   required, unique, ^[A-Za-z0-9_.-]{1,40}$
        table_size: 2        #   required, 2..10 seats, one entry per team
        hands: 200           #   required, 1..10**9: hands per table and seat rotation
        meetings: 1          #   optional, 1..100: how many times each line-up plays
        top: 4               #   the best this many of the stage go on to the next (required on every
                             #   stage but the last, and not on the last); 2.. fewer than its entrants
      - {name: final, table_size: 2, hands: 1000}

The finals play the arena's ``game:`` and its bots' ``limits:``; their seed is always fresh and
secret (drawn when they start, its SHA-256 published before the first hand), so there is no
``seed:`` key. Whether each stage has enough teams is checked when the finals start, with the
line of the stage that lacks them (``stage_problems``).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import Node, SequenceNode

from dealer.arena.config import read_document
from dealer.config.read import (
    MAX_HANDS,
    MAX_JOBS,
    MAX_MEETINGS,
    MAX_TABLE,
    NAME_PATTERN,
    Ctx,
    integer,
    mapping,
    parse_checked,
    read_key,
    read_text,
    string,
)

__all__ = ["FinalsConfig", "Stage", "load_finals", "parse_finals", "stage_problems"]

_TOP_KEYS = ("name", "jobs", "stages")
_STAGE_KEYS = ("name", "table_size", "hands", "meetings", "top")


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of the finals: a sealed duplicate round robin of its entrants, the best ``top`` of
    which (None: the last stage) play the next."""

    name: str
    table_size: int
    hands: int
    meetings: int = 1
    top: int | None = None
    line: int = 0  # of the stage in the finals file (0: built in code)


@dataclass(frozen=True, slots=True)
class FinalsConfig:
    """The finals: their name, how many matches at once, and their stages in order."""

    name: str
    jobs: int
    stages: tuple[Stage, ...]
    path: Path | None = None


def _name(ctx: Ctx, node: Node, path: str) -> str | None:
    """Read a name: 1..40 of letters, digits, '_', '.', '-'."""
    value = string(ctx, node, path)
    if value is not None and not NAME_PATTERN.fullmatch(value):
        ctx.error(node, path, f"name {value!r} must match ^[A-Za-z0-9_.-]{{1,40}}$")
        return None
    return value


def _stage(ctx: Ctx, node: Node, path: str, last: bool) -> Stage | None:
    """Read one stage; ``last``: it is the final one (no ``top``)."""
    fields = mapping(ctx, node, path, _STAGE_KEYS)
    if fields is None:
        return None
    layer = [(fields, path)]
    for key in ("name", "table_size", "hands") + (() if last else ("top",)):
        if key not in fields:
            ctx.error(node, f"{path}.{key}", "missing (required)" + ("" if key != "top" else ": who goes on?"))
    if last and "top" in fields:
        ctx.error(fields["top"], f"{path}.top", "the last stage has no top: its ranking is the finals'")
    return Stage(
        name=read_key(ctx, layer, "name", _name, ""),
        table_size=read_key(ctx, layer, "table_size", integer(2, MAX_TABLE), 2),
        hands=read_key(ctx, layer, "hands", integer(1, MAX_HANDS), 1),
        meetings=read_key(ctx, layer, "meetings", integer(1, MAX_MEETINGS), 1),
        top=None if last else read_key(ctx, layer, "top", integer(2), 2),
        line=node.start_mark.line + 1,
    )


def _parse_top(ctx: Ctx, root: Node, path: Path | None) -> FinalsConfig | None:
    """Build the FinalsConfig of a document's root node."""
    fields = mapping(ctx, root, "", _TOP_KEYS)
    if fields is None:
        return None
    for key in ("name", "stages"):
        if key not in fields:
            ctx.error(root, key, "missing (required)")
    top = [(fields, "")]
    stages: list[Stage] = []
    node = fields.get("stages")
    if node is not None and (not isinstance(node, SequenceNode) or not node.value):
        ctx.error(node, "stages", "expected a list of at least one stage")
    elif node is not None:
        for index, item in enumerate(node.value):
            stage = _stage(ctx, item, f"stages[{index}]", last=index == len(node.value) - 1)
            if stage is not None and stage.name and any(s.name == stage.name for s in stages):
                ctx.error(item, f"stages[{index}].name", f"duplicate stage name {stage.name!r}")
            elif stage is not None:
                stages.append(stage)
    for index, (before, after) in enumerate(itertools.pairwise(stages)):
        if before.top is not None and after.table_size > before.top:
            ctx.error(
                after.line,
                f"stages[{index + 1}].table_size",
                f"{after.table_size} seats, but only the top {before.top} of {before.name!r} go on",
            )
    return FinalsConfig(
        name=read_key(ctx, top, "name", _name, "finals"),
        jobs=read_key(ctx, top, "jobs", integer(1, most=MAX_JOBS), os.cpu_count() or 1),
        stages=tuple(stages),
        path=path,
    )


def stage_problems(finals: FinalsConfig, entrants: int) -> list[str]:
    """What keeps the finals from being played by ``entrants`` teams, one ``file:line:`` line each."""
    where = str(finals.path) if finals.path is not None else "<finals>"
    problems = []
    for index, stage in enumerate(finals.stages):
        if stage.table_size > entrants:
            problems.append(
                f"{where}:{stage.line}: stages[{index}].table_size: {stage.table_size} seats, "
                f"but only {entrants} teams play this stage"
            )
        if stage.top is not None and stage.top >= entrants:
            problems.append(
                f"{where}:{stage.line}: stages[{index}].top: {stage.top} of {entrants} teams go on: "
                "a cut must leave some out"
            )
        entrants = min(entrants, stage.top) if stage.top is not None else entrants
    return problems


def parse_finals(text: str, filename: str = "<string>") -> FinalsConfig:
    """Parse a finals file's text; raises LeagueConfigError listing every problem."""
    path = None if filename.startswith("<") else Path(filename).resolve()
    ctx, root = read_document(text, filename, path.parent if path is not None else Path.cwd())
    return parse_checked(ctx, lambda: _parse_top(ctx, root, path))


def load_finals(path: str | Path) -> FinalsConfig:
    """Read and parse a finals file; unreadable or non-UTF-8 is one line."""
    return parse_finals(read_text(path), str(path))
