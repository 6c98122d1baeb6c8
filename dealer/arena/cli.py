"""``dealer arena``: the arena's thin commands (they parse, call the library, print).

The organiser runs them on the arena's machine, next to its ``arena.yaml``; a token is printed once
on stdout (its note on stderr, so that a script can capture the token alone) and never again.
SQLAlchemy and Alembic are imported when an arena command runs, not when ``dealer`` starts (they
cost about 0.6 s of start-up, which every other command would pay).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from dealer.errors import DealerError
from dealer.text import printable_lines

if TYPE_CHECKING:
    from dealer.arena.repository import Repository

T = TypeVar("T")

app = typer.Typer(no_args_is_help=True, help="The arena: teams submit bots, the server builds and plays them.")
team_app = typer.Typer(no_args_is_help=True, help="The arena's teams.")
app.add_typer(team_app, name="team")

ConfigPath = Annotated[Path, typer.Option("--config", "-c", help="The arena's file (see dealer/arena/config.py).")]
DEFAULT_CONFIG = Path("arena.yaml")


def _call(config: Path, work: Callable[[str], Coroutine[Any, Any, T]]) -> T:
    """Run ``work`` on the database of the arena file ``config``: a bad file, a refused request or a
    database that cannot be reached is one ``error:`` line each and exit code 2, never a traceback."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import DBAPIError

    from dealer.arena.config import load_arena

    database = None
    try:
        database = load_arena(config).database
        return asyncio.run(work(database))
    except DealerError as error:
        lines = printable_lines(str(error).strip())
    except (DBAPIError, OSError) as error:  # the server is down, the file cannot be opened, ...
        where = make_url(database).render_as_string(hide_password=True) if database else str(config)
        reason = str(getattr(error, "orig", None) or error).strip().splitlines() or [type(error).__name__]
        lines = printable_lines(f"database {where}: {reason[0]}")
    for line in lines:
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(2)


def _with_repository(config: Path, work: Callable[[Repository], Coroutine[Any, Any, T]]) -> T:
    """Run ``work`` on the repository of the arena file ``config`` (as ``_call`` does)."""

    async def opened(database: str) -> T:
        from dealer.arena.repository import open_repository

        async with open_repository(database) as repository:
            return await work(repository)

    return _call(config, opened)


def _token_note(what: str) -> None:
    """Say on stderr that the token just printed is shown this once."""
    typer.echo(f"{what}: keep it now, the arena keeps only its hash and cannot show it again", err=True)


@app.command("migrate")
def migrate_command(config: ConfigPath = DEFAULT_CONFIG) -> None:
    """Create the arena's database, or bring it to the newest schema (safe to run again)."""

    async def upgrade(database: str) -> None:
        from dealer.arena.repository import migrate

        await migrate(database)

    _call(config, upgrade)
    typer.echo("database ready: its schema is at the newest revision")


@app.command("organiser-token")
def organiser_token_command(config: ConfigPath = DEFAULT_CONFIG) -> None:
    """Print a new organiser token (admin work over the HTTP API); earlier ones keep working."""
    typer.echo(_with_repository(config, lambda repository: repository.add_organiser_token()))
    _token_note("the organiser token above")


@team_app.command("add")
def team_add_command(
    name: Annotated[str, typer.Argument(help="The team's name: 1 to 40 of letters, digits, '_', '.', '-'.")],
    config: ConfigPath = DEFAULT_CONFIG,
) -> None:
    """Register a team and print its token, once."""

    async def add(repository: Repository) -> str:
        _, token = await repository.add_team(name)
        return token

    typer.echo(_with_repository(config, add))
    _token_note(f"team {name}'s token above")


@team_app.command("token")
def team_token_command(
    name: Annotated[str, typer.Argument(help="The team whose token is replaced.")],
    config: ConfigPath = DEFAULT_CONFIG,
) -> None:
    """Replace a team's token (a lost or leaked one stops working) and print the new one, once."""
    typer.echo(_with_repository(config, lambda repository: repository.new_team_token(name)))
    _token_note(f"team {name}'s new token above")


@team_app.command("list")
def team_list_command(config: ConfigPath = DEFAULT_CONFIG) -> None:
    """List the teams, one a line, with the date each was added."""
    for team in _with_repository(config, lambda repository: repository.teams()):
        typer.echo(f"{team.name}\t{team.created_at:%Y-%m-%d %H:%M} UTC")
