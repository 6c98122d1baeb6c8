"""The pages' and the API's read queries on the ladder: the leaderboard's lines, a team's matches, one match.

Read-only queries over the tables ``dealer.arena.store.schema`` declares (the ladder writes them
through ``dealer.arena.store.ladder``, whose rating history and duplicate groups are used as they
are), each by primary key or an index, and records of plain data the presenters turn into JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select

from dealer.arena.ladder import Standing
from dealer.arena.model import MatchState, Team
from dealer.arena.store.ladder import HOUSE, LadderStore
from dealer.arena.store.schema import (
    active_versions,
    match_versions,
    matches,
    standings,
    teams,
    utc,
    versions,
)
from dealer.arena.store.teams import Repository
from dealer.league.journal import result_from_json


@dataclass(frozen=True, slots=True)
class Line:
    """One team on the leaderboard: its active version's standing (None: not rated yet)."""

    team: str
    version: str | None
    score: float | None = None
    mu: float | None = None
    sigma: float | None = None
    matches: int = 0
    faulty: int = 0  # ranked matches in which it crashed, stopped playing or timed out
    bb100: tuple[float, float, float] | None = None  # mean, 95% low, high
    last_played: datetime | None = None
    paused: bool = False
    display: str = ""  # the team's display name (its name if it has none)
    active_version: int | None = None  # its number
    standing: Standing | None = None  # the active version's standing (None: no active version)


@dataclass(frozen=True, slots=True)
class MatchSeat:
    """A seat of a match: the team, its version and the chips it won over the match."""

    team: str
    team_id: int
    version: str
    net: int | None
    display: str = ""


@dataclass(frozen=True, slots=True)
class MatchLine:
    """A match as lists show it."""

    id: int
    ranked: bool
    state: MatchState
    created_at: datetime
    finished_at: datetime | None
    seats: tuple[MatchSeat, ...]
    hands: int | None

    @property
    def over(self) -> bool:
        """Whether every rotation of its deals has been played (its hands can be shown)."""
        return self.state.over


class Public:
    """The pages' read queries on one repository."""

    def __init__(self, repository: Repository, k: float) -> None:
        self.repository, self.store = repository, LadderStore(repository)
        self.k = k

    async def leaderboard(self) -> list[Line]:
        """Every team: the rated ones by mu - k sigma, then the others by name. One query, by primary
        keys: the bb/100 and the last match's end are kept as matches end and are applied."""
        query = select(
            teams.c.id,
            teams.c.name,
            teams.c.display_name,
            versions.c.id.label("version_id"),
            versions.c.number,
            versions.c.last_played,
            *(standings.c[name] for name in ("mu", "sigma", "games", "faulty", "paused")),
            *(standings.c[name] for name in ("bb100_mean", "bb100_low", "bb100_high")),
        ).select_from(
            teams.outerjoin(active_versions, active_versions.c.team_id == teams.c.id)
            .outerjoin(versions, versions.c.id == active_versions.c.version_id)
            .outerjoin(standings, standings.c.version_id == versions.c.id)
        )
        async with self.repository.engine.connect() as connection:
            rows = (await connection.execute(query.order_by(teams.c.name))).all()
        lines = [self._line(row) for row in rows]
        lines.sort(key=rank)
        return lines

    def _line(self, row: Any) -> Line:
        """A team's line from a row of the leaderboard's query."""
        label, display = None if row.number is None else f"v{row.number}", row.display_name or row.name
        standing = None
        if row.version_id is not None:
            standing = Standing(row.version_id, row.id, house=row.name == HOUSE)
            if row.mu is not None:
                standing = replace(
                    standing, mu=row.mu, sigma=row.sigma, games=row.games, faulty=row.faulty, paused=row.paused
                )
        if standing is None or standing.games == 0:
            paused = standing is not None and standing.paused is not None
            return Line(row.name, label, paused=paused, display=display, active_version=row.number, standing=standing)
        bb100 = None if row.bb100_mean is None else (row.bb100_mean, row.bb100_low, row.bb100_high)
        return Line(
            row.name,
            label,
            score=standing.score(self.k),
            mu=standing.mu,
            sigma=standing.sigma,
            matches=standing.games,
            faulty=standing.faulty,
            bb100=bb100,
            last_played=None if row.last_played is None else utc(row.last_played),
            paused=standing.paused is not None,
            display=display,
            active_version=row.number,
            standing=standing,
        )

    async def history(self, team: Team) -> list[dict[str, Any]]:
        """The rating after each ranked match of each of the team's versions: {version, points: [[seq, mu, sigma]]}."""
        out = []
        for version in await self.repository.versions(team):
            points = await self.store.history(version.id)
            if points:
                out.append({"version": version.label, "points": [list(p) for p in points]})
        return out

    async def own_standings(self, team: Team) -> list[dict[str, Any]]:
        """Each of the team's versions in the ladder (its team's eyes only: a pause's reason holds the
        end of its bot's log): rating, games, faulty games, and why it is paused."""
        versions_of = await self.repository.versions(team)
        found = await self.store.standings_of([v.id for v in versions_of])
        out = []
        for version in versions_of:
            s = found.get(version.id)
            if s is None:
                continue
            rating = None if s.games == 0 else {"mu": s.mu, "sigma": s.sigma, "score": s.score(self.k)}
            out.append(
                {"version": version.label, "rating": rating, "games": s.games, "faulty": s.faulty, "paused": s.paused}
            )
        return out

    async def paused(self) -> list[tuple[str, str, int, int, str]]:
        """Every paused version: (team, version, games, faulty games, why), by team."""
        query = (
            select(teams.c.name, versions.c.number, standings.c.games, standings.c.faulty, standings.c.paused)
            .select_from(
                standings.join(versions, versions.c.id == standings.c.version_id).join(
                    teams, teams.c.id == versions.c.team_id
                )
            )
            .where(standings.c.paused.is_not(None))
            .order_by(teams.c.name, versions.c.number)
        )
        async with self.repository.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [(row.name, f"v{row.number}", row.games, row.faulty, row.paused) for row in rows]

    async def matches(self, *, team_id: int | None = None, open_only: bool = False, limit: int = 30) -> list[MatchLine]:
        """The newest matches first: a team's, or every match still to play (the queue, oldest first)."""
        query = select(matches).order_by(matches.c.id.desc()).limit(limit)
        if team_id is not None:
            mine = select(match_versions.c.match_id).where(match_versions.c.team_id == team_id)
            query = query.where(matches.c.id.in_(mine))
        if open_only:
            query = (
                query.where(matches.c.state.in_((MatchState.SCHEDULED, MatchState.RUNNING)))
                .order_by(None)
                .order_by(matches.c.id)
            )
        async with self.repository.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return await self._lines(list(rows))

    async def match(self, match_id: int) -> MatchLine | None:
        """One match, or None."""
        async with self.repository.engine.connect() as connection:
            row = (await connection.execute(select(matches).where(matches.c.id == match_id))).first()
        return None if row is None else (await self._lines([row]))[0]

    async def _lines(self, rows: list[Any]) -> list[MatchLine]:
        """Matches with their seats (one query for all the rows' seats)."""
        if not rows:
            return []
        query = (
            select(
                match_versions.c.match_id,
                match_versions.c.team_id,
                teams.c.name,
                teams.c.display_name,
                versions.c.number,
            )
            .select_from(
                match_versions.join(teams, teams.c.id == match_versions.c.team_id).join(
                    versions, versions.c.id == match_versions.c.version_id
                )
            )
            .where(match_versions.c.match_id.in_([row.id for row in rows]))
            .order_by(match_versions.c.match_id, match_versions.c.seat)
        )
        async with self.repository.engine.connect() as connection:
            seats = (await connection.execute(query)).all()
        lines = []
        for row in rows:
            result = result_from_json(dict(row.result)) if row.result is not None else None
            net = result.net() if result is not None else {}
            mine = [s for s in seats if s.match_id == row.id]
            line_seats = tuple(
                MatchSeat(s.name, s.team_id, f"v{s.number}", net.get(f"{s.name}-v{s.number}"), s.display_name or s.name)
                for s in mine
            )
            finished = None if row.finished_at is None else utc(row.finished_at)
            hands = None if result is None else result.hands
            lines.append(
                MatchLine(
                    row.id,
                    row.seq is not None,
                    MatchState(row.state),
                    utc(row.created_at),
                    finished,
                    line_seats,
                    hands,
                )
            )
        return lines


def rank(line: Line) -> tuple[bool, float, str]:
    """The leaderboard's one order (the API's and the pages'): the rated by mu - k sigma, best first,
    then the versions yet to play a ranked match and the teams without one, each by name."""
    return (line.score is None, -(line.score or 0.0), line.team)
