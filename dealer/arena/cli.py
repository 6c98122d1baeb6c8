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
    from dealer.arena.config import ArenaConfig
    from dealer.arena.store.teams import Repository

T = TypeVar("T")

app = typer.Typer(no_args_is_help=True, help="The arena: teams submit bots, the server builds and plays them.")
team_app = typer.Typer(no_args_is_help=True, help="The arena's teams.")
app.add_typer(team_app, name="team")

ConfigPath = Annotated[Path, typer.Option("--config", "-c", help="The arena's file (see dealer/arena/config.py).")]
DEFAULT_CONFIG = Path("arena.yaml")


def _call(config: Path, work: Callable[[ArenaConfig], Coroutine[Any, Any, T]]) -> T:
    """Run ``work`` on the arena of the file ``config``: a bad file, a refused request or a
    database that cannot be reached is one ``error:`` line each and exit code 2, never a traceback."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import DBAPIError

    from dealer.arena.config import load_arena

    database = None
    try:
        arena = load_arena(config)
        database = arena.database
        return asyncio.run(work(arena))
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

    async def opened(arena: ArenaConfig) -> T:
        from dealer.arena.store.teams import open_repository

        async with open_repository(arena.database) as repository:
            return await work(repository)

    return _call(config, opened)


def _token_note(what: str) -> None:
    """Say on stderr that the token just printed is shown this once."""
    typer.echo(f"{what}: keep it now, the arena keeps only its hash and cannot show it again", err=True)


@app.command("migrate")
def migrate_command(config: ConfigPath = DEFAULT_CONFIG) -> None:
    """Create the arena's database, or bring it to the newest schema (safe to run again)."""

    async def upgrade(arena: ArenaConfig) -> None:
        from dealer.arena.store.schema import migrate

        await migrate(arena.database)

    _call(config, upgrade)
    typer.echo("database ready: its schema is at the newest revision")


@app.command("organiser-token")
def organiser_token_command(config: ConfigPath = DEFAULT_CONFIG) -> None:
    """Print a new organiser token (admin work over the HTTP API); earlier ones keep working."""
    typer.echo(_with_repository(config, lambda repository: repository.add_organiser_token()))
    _token_note("the organiser token above")


@app.command("organiser-tokens")
def organiser_tokens_command(config: ConfigPath = DEFAULT_CONFIG) -> None:
    """List the organiser tokens, one a line: the id that organiser-revoke takes, and the date it was made."""
    for number, created in _with_repository(config, lambda repository: repository.organiser_tokens()):
        typer.echo(f"{number}\t{created:%Y-%m-%d %H:%M} UTC")


@app.command("organiser-revoke")
def organiser_revoke_command(
    which: Annotated[
        str, typer.Argument(help="The token's id (see organiser-tokens), or - to read the token itself from stdin.")
    ],
    config: ConfigPath = DEFAULT_CONFIG,
) -> None:
    """Revoke an organiser token: it stops working at once, and so do the web sessions opened with it."""
    if which == "-":
        given: int | str = typer.get_text_stream("stdin").readline().strip()
    elif which.isdigit() and len(which) <= 18:
        given = int(which)
    else:
        raise typer.BadParameter(f"expected a token's id (see organiser-tokens) or -, not {which!r}")
    revoked = _with_repository(config, lambda repository: repository.revoke_organiser_token(given))
    typer.echo(f"organiser token {revoked} revoked: it and its web sessions no longer work")


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


@app.command("serve")
def serve_command(
    config: Annotated[Path, typer.Argument(help="The arena's file (see dealer/arena/config.py).")] = DEFAULT_CONFIG,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Play the ladder's matches, and run builds and smoke tests, on this Dask scheduler's workers "
            "(tcp://HOST:8786); they must see the arena's storage folder at the same path. Default: in this process."
        ),
    ] = None,
) -> None:
    """Run the arena: its HTTP API on the file's listen address, its builder and its ladder (the file's
    ladder: settings). SIGTERM or Ctrl-C stops it; started again, it takes up where it stopped."""

    async def serve(arena: ArenaConfig) -> None:
        from dealer.arena.server import run_arena

        def ready(url: str) -> None:
            typer.echo(f"arena on {url}/api/v1", err=True)  # the line scripts wait for (README, arena-demo.sh)
            typer.echo(
                f"arena pages on {url}/leaderboard (teams log in at {url}/login, the organiser too); "
                f"the API's OpenAPI document: {url}/api/v1/openapi.yaml",
                err=True,
            )

        await run_arena(arena, ready=ready, scheduler=scheduler)

    kept = (
        "every finished build, match and rating is kept in its database; run the same command again to go "
        "on (a build or match it cut off is played again)"
    )
    try:
        _call(config, serve)
    except KeyboardInterrupt:  # Ctrl-C: one line, as dealer run says it, and the shell's 130
        typer.echo(f"interrupted: the arena stopped: {kept}", err=True)
        raise typer.Exit(130) from None
    typer.echo(f"arena stopped: {kept}", err=True)


ArenaFile = Annotated[Path, typer.Argument(help="The arena's file (see dealer/arena/config.py).")]


@app.command("freeze")
def freeze_command(config: ArenaFile = DEFAULT_CONFIG) -> None:
    """Close submissions and activations for the finals: the versions active now are the ones they play."""

    async def freeze(repository: Repository) -> tuple[Any, bool]:
        return await repository.freeze()

    when, new = _with_repository(config, freeze)
    said = "frozen" if new else "already frozen"
    typer.echo(f"arena {said} at {when:%Y-%m-%d %H:%M:%S} UTC: no new version can be submitted or made active")


@app.command("finals")
def finals_command(
    config: ArenaFile,
    finals: Annotated[Path, typer.Argument(help="The finals' file (see dealer/arena/finals_config.py).")],
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Play the matches on this Dask scheduler's workers (tcp://HOST:8786); they must see the "
            "arena's storage folder at the same path. Default: in this process."
        ),
    ] = None,
) -> None:
    """Play the finals of a frozen arena (one entry per team, its active version) on a fresh secret
    seed, committed to before the first hand; print the standings and where everything is."""

    async def play(arena: ArenaConfig) -> dict[str, Any]:
        from dealer.arena.finals import run_finals
        from dealer.arena.finals_config import load_finals
        from dealer.arena.store.teams import open_repository

        spec = load_finals(finals)
        async with open_repository(arena.database) as repository:
            return await run_finals(
                arena,
                spec,
                repository,
                lambda sha: typer.echo(f"seed commitment (SHA-256): {sha}", err=True),
                dask=None if scheduler is None else (None, scheduler),
            )

    record = _call(config, play)
    from dealer.arena.config import load_arena
    from dealer.arena.layout import finals_folder

    folder = finals_folder(load_arena(config).storage, record["name"])
    for place, line in enumerate(record["standings"], 1):
        typer.echo(f"{place:3}. {line['name']}  ({record['entrants'][line['name']]})")
    typer.echo(f"seed {record['seed']} (SHA-256 {record['seed_sha256']})")
    typer.echo(f"standings, hand histories and the seed in {folder}/; check them with `dealer verify {folder}`")


Server = Annotated[str, typer.Option(help="The arena's address, e.g. http://arena.example:8090.")]
Token = Annotated[str, typer.Option(envvar="DEALER_ARENA_TOKEN", help="Your team's token (or DEALER_ARENA_TOKEN).")]


def _ask(request: Coroutine[Any, Any, T]) -> T:
    """Run a team's request to an arena; its failure is one ``error:`` line and exit code 2."""
    from dealer.arena.client import ClientError

    try:
        return asyncio.run(request)
    except ClientError as error:
        lines = printable_lines(str(error))
    for line in lines:
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(2)


@app.command("submit")
def submit_command(
    path: Annotated[Path, typer.Argument(help="The bot: a folder with bot.yaml at its top, or a tar.gz or zip.")],
    server: Server,
    token: Token,
) -> None:
    """Submit a version of your team's bot and print its number and state."""
    from dealer.arena.client import submit

    version = _ask(submit(server, token, path))
    again = "" if version["new"] else " (the same files as before: nothing new stored)"
    typer.echo(f"{version['label']} {version['state']}, sha256 {version['sha256']}{again}")


@app.command("versions")
def versions_command(server: Server, token: Token) -> None:
    """List your team's versions: number, state, smoke test, date; the active one marked *."""
    from dealer.arena.client import fetch

    team = _ask(fetch(server, token, "team"))
    active = team.get("active_version") if isinstance(team, dict) else None
    versions = _ask(fetch(server, token, "versions"))
    for version in versions if isinstance(versions, list) else []:
        smoke = version.get("smoke") or {}
        figures = f"{smoke['hands']} hands, faults {smoke['faults'] or 'none'}" if smoke else "no smoke test"
        mark = "*" if version["version"] == active else " "
        typer.echo(f"{mark} {version['label']}  {version['state']:8}  {figures}  {version['created_at'][:16]}")


@app.command("activate")
def activate_command(
    version: Annotated[str, typer.Argument(help="The version: 3 or v3 (a ready one).")],
    server: Server,
    token: Token,
) -> None:
    """Make one of your team's ready versions the one the arena plays."""
    from dealer.arena.client import fetch

    number = version.removeprefix("v")
    if not number.isdigit():
        raise typer.BadParameter(f"expected a version such as 3 or v3, not {version!r}")
    chosen = _ask(fetch(server, token, "active", put={"version": int(number)}))
    typer.echo(f"{chosen['label'] if isinstance(chosen, dict) else version} is active")


@app.command("log")
def log_command(
    version: Annotated[str, typer.Argument(help="The version: 3 or v3.")],
    server: Server,
    token: Token,
) -> None:
    """Print the build and smoke-test log of one of your team's versions."""
    from dealer.arena.client import fetch

    build = _ask(fetch(server, token, f"versions/{version}/build"))
    typer.echo(build["log"] if isinstance(build, dict) else "", nl=False)
