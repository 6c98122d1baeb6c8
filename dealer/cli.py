"""The ``dealer`` command: thin typer commands that parse, call the library and print."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Annotated

import typer

from dealer.config import game_config
from dealer.errors import ConfigError
from dealer.match import BotEntry, Match, MatchPlan, plan_tables
from dealer.results import standings, standings_table
from dealer.server import DealerServer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Bot-versus-bot Texas Hold'em dealer.")

VARIANTS = ("no-limit", "pot-limit", "fixed-limit", "mixed")


@app.callback()
def main() -> None:
    """Deal Texas Hold'em to bots over gRPC: single matches, leagues, regression comparisons."""


def _bot_names(commands: list[list[str]]) -> list[str]:
    """Readable unique names from command lines: the script's stem, numbered when repeated."""
    names: list[str] = []
    for argv in commands:
        script = next((a for a in reversed(argv) if "." in Path(a).name and not a.startswith("-")), argv[0])
        stem = Path(script).stem or "bot"
        name, k = stem, 2
        while name in names:
            name, k = f"{stem}-{k}", k + 1
        names.append(name)
    return names


def _blinds(text: str) -> tuple[int, int]:
    try:
        small, big = (int(x) for x in text.replace(",", "/").split("/"))
    except ValueError:
        raise typer.BadParameter(f"blinds must look like 50/100, not {text!r}") from None
    return small, big


@app.command()
def match(
    bots: Annotated[list[str], typer.Argument(help="Bot command lines, one per seat (quote each).")],
    variant: Annotated[str, typer.Option(help="no-limit, pot-limit, fixed-limit or mixed.")] = "no-limit",
    blinds: Annotated[str, typer.Option(help="Small/big blind, e.g. 50/100.")] = "50/100",
    ante: Annotated[int, typer.Option(help="Ante per player.")] = 0,
    stack: Annotated[int, typer.Option(help="Starting stack, reset every hand.")] = 20000,
    hands: Annotated[int, typer.Option(help="Total hands (rounded down to whole duplicate rotations).")] = 1000,
    seed: Annotated[str | None, typer.Option(help="Deal seed: same seed, same cards. Default: fresh random.")] = None,
    duplicate: Annotated[bool, typer.Option(help="Replay every deal with the seats rotated.")] = True,
    tables: Annotated[int, typer.Option(help="Tables played at once over the same bot processes.")] = 1,
    per_action_ms: Annotated[int, typer.Option(help="Time per action (ms).")] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Time bank per match and seat (ms).")] = 30000,
    grace_ms: Annotated[int, typer.Option(help="Transport margin not charged to bots (ms).")] = 50,
    startup_ms: Annotated[int, typer.Option(help="Time for a bot to start and connect (ms).")] = 10000,
    fault_policy: Annotated[str, typer.Option(help="fold, forfeit or restart.")] = "fold",
    listen: Annotated[str, typer.Option(help="Address the dealer listens on.")] = "127.0.0.1:0",
    out: Annotated[Path, typer.Option(help="Output folder: hand histories, bot logs, results.json.")] = Path("out/match"),
) -> None:
    """Play one match between bot command lines and print the results."""
    commands = [shlex.split(b) for b in bots]
    if not 2 <= len(commands) <= 10:
        raise typer.BadParameter(f"a match needs 2 to 10 bots, got {len(commands)}")
    if variant not in VARIANTS:
        raise typer.BadParameter(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    if fault_policy not in ("fold", "forfeit", "restart"):
        raise typer.BadParameter(f"fault policy must be fold, forfeit or restart, not {fault_policy!r}")
    try:
        game = game_config(variant=variant, blinds=_blinds(blinds), ante=ante, stack=stack,
                           time={"per_action_ms": per_action_ms, "bank_ms": bank_ms, "grace_ms": grace_ms,
                                 "startup_ms": startup_ms})
    except ConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    names = _bot_names(commands)
    rotations = len(names) if duplicate else 1
    per_table = max(1, hands // (tables * rotations))
    plan = MatchPlan(
        match_id="match", tables=plan_tables(names, duplicate=duplicate, tables=tables), game=game, hands=per_table,
        seed=seed, fault_policy=fault_policy,
    )
    entries = {name: BotEntry(name, tuple(argv)) for name, argv in zip(names, commands)}
    result = asyncio.run(_run_match(plan, entries, listen, out))
    lines = standings([result])
    typer.echo(standings_table(lines))
    out.mkdir(parents=True, exist_ok=True)
    summary = {"match": plan.match_id, "hands": len(result.hands), "seed": seed, "variant": variant,
               "duplicate": duplicate, "standings": [s.as_json() for s in lines], "forfeited": result.forfeited,
               "log_tails": result.log_tails}
    (out / "results.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    typer.echo(f"{len(result.hands)} hands; histories, logs and results.json in {out}/")


async def _run_match(plan: MatchPlan, entries: dict[str, BotEntry], listen: str, out: Path):  # noqa: ANN202
    server = DealerServer(listen)
    await server.start()
    try:
        return await Match(plan, server, entries, out=out, base=Path.cwd()).run()
    finally:
        await server.stop()
