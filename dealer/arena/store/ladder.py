"""The ladder's storage: its queries over the tables ``dealer.arena.store.schema`` declares (the schema
and its migrations stay there), each method one transaction, records in and out, never rows.

Every query is by primary key or an index (a match by id, a team's matches by ``team_id``, the
playing versions through the active versions), so its cost does not grow with the matches played.
A result is stored once (a second one for the same match is ignored: a match replayed on another
worker counts once) and applied once, in one transaction with everything it changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from dealer.arena.ladder import Applied, Standing, pairs_of, version_bb100
from dealer.arena.model import (
    MATCH_MOVES,
    WINDOW_S,
    BuildState,
    MatchState,
    Refusal,
    RefusedError,
    Team,
    Version,
    retry_after,
)
from dealer.arena.store.schema import (
    active_versions,
    ladder,
    match_versions,
    matches,
    pairs,
    rating_history,
    standings,
    team_ladder,
    teams,
    utc,
    version_of,
    versions,
)
from dealer.arena.store.teams import Repository
from dealer.league.journal import result_from_json, result_to_json
from dealer.stats.records import MatchResult
from dealer.stats.stats import GroupedSums

HOUSE = "house"  # the house team's name (reserved: model.team_name_problem)
# What a ``Standing`` is read from (``_standing``): a version, its team's name and its rating row.
_STANDING_COLUMNS = (
    versions.c.id.label("version_id"),
    versions.c.team_id,
    teams.c.name,
    standings.c.mu,
    standings.c.sigma,
    standings.c.games,
    standings.c.faulty,
    standings.c.paused,
)
UNAPPLIED = (MatchState.SCHEDULED, MatchState.RUNNING, MatchState.FINISHED)  # a ranked match not yet applied


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a match: the version, its team and the name the match knows it by."""

    version: Version
    team: str

    @property
    def name(self) -> str:
        """The bot's name in the match: ``team-v3``."""
        return f"{self.team}-{self.version.label}"


@dataclass(frozen=True, slots=True)
class Planned:
    """A match the ladder has picked (ranked: ``seq``) or a team asked for (a scrimmage)."""

    id: int
    seq: int | None
    deal: int | None
    seed: str | None
    attempt: int
    state: MatchState
    seats: tuple[Seat, ...]
    result: MatchResult | None = None

    def again(self) -> Planned:
        """The match played again after a stop cut it off: its next attempt, dealt afresh."""
        return replace(self, attempt=self.attempt + 1, state=MatchState.SCHEDULED)


def _standing(row: Any, house: bool) -> Standing:
    """A version's standing from a row joined with standings (none yet: a new version's)."""
    if row.mu is None:
        return Standing(row.version_id, row.team_id, house=house)
    return Standing(row.version_id, row.team_id, row.mu, row.sigma, row.games, row.faulty, row.paused, house)


def _planned(row: Any, seats: Sequence[Seat]) -> Planned:
    """A match from its row and seats."""
    result = None if row.result is None else result_from_json(dict(row.result))
    return Planned(row.id, row.seq, row.deal, row.seed, row.attempt, MatchState(row.state), tuple(seats), result)


async def _move(connection: AsyncConnection, match_id: int, to: MatchState, **values: Any) -> bool:
    """Move a match to state ``to`` if it may go there from where it is (``MATCH_MOVES``), with the
    other ``values`` to keep; False if it may not (it was moved already: nothing is changed)."""
    moved = await connection.execute(
        matches.update()
        .where(matches.c.id == match_id, matches.c.state.in_(MATCH_MOVES[to]))
        .values(state=to, **values)
    )
    return bool(moved.rowcount)


class LadderStore:
    """The ladder's records in the arena's database."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.engine = repository.engine

    async def seed(self, given: str | None, drawn: str) -> str:
        """The ladder's seed: ``given`` (the arena file's) or the one kept, else ``drawn``, kept now."""
        async with self.engine.begin() as connection:
            kept = (await connection.execute(select(ladder.c.seed).where(ladder.c.id == 1))).scalar()
            seed = given or kept or drawn
            if kept is None:
                await connection.execute(ladder.insert().values(id=1, seed=seed))
            elif kept != seed:
                await connection.execute(ladder.update().where(ladder.c.id == 1).values(seed=seed))
        return seed

    async def ping(self) -> None:
        """One query: raises if the database cannot be reached."""
        async with self.engine.connect() as connection:
            await connection.execute(select(ladder.c.id).limit(1))

    async def playing(self) -> list[Standing]:
        """The versions the ladder plays: every team's active version (ready, not paused)."""
        query = (
            select(*_STANDING_COLUMNS)
            .select_from(
                active_versions.join(versions, versions.c.id == active_versions.c.version_id)
                .join(teams, teams.c.id == versions.c.team_id)
                .outerjoin(standings, standings.c.version_id == versions.c.id)
            )
            .where(versions.c.state == BuildState.READY.value)
            .order_by(versions.c.id)
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        found = [_standing(row, row.name == HOUSE) for row in rows]
        return [s for s in found if s.paused is None]

    async def standings_of(self, version_ids: Sequence[int]) -> dict[int, Standing]:
        """The standings of these versions (a version that never played gets a new one)."""
        query = (
            select(*_STANDING_COLUMNS)
            .select_from(
                versions.join(teams, teams.c.id == versions.c.team_id).outerjoin(
                    standings, standings.c.version_id == versions.c.id
                )
            )
            .where(versions.c.id.in_(list(version_ids)))
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return {row.version_id: _standing(row, row.name == HOUSE) for row in rows}

    async def next_deals(self) -> dict[int, int]:
        """Each team's next deal set (a team that never played a ranked match has none: 0)."""
        async with self.engine.connect() as connection:
            rows = (await connection.execute(select(team_ladder.c.team_id, team_ladder.c.next_deal))).all()
        return {row.team_id: row.next_deal for row in rows}

    async def applied_count(self) -> int:
        """How many ranked matches were applied (the next to apply is this ``seq``)."""
        query = select(func.min(matches.c.seq)).where(matches.c.seq.is_not(None), matches.c.state.in_(UNAPPLIED))
        async with self.engine.connect() as connection:
            first_open = (await connection.execute(query)).scalar()
            if first_open is not None:
                return int(first_open)
            last = (await connection.execute(select(func.max(matches.c.seq)))).scalar()
        return 0 if last is None else int(last) + 1

    async def next_seq(self) -> int:
        """The ``seq`` of the next ranked match to pick."""
        async with self.engine.connect() as connection:
            last = (await connection.execute(select(func.max(matches.c.seq)))).scalar()
        return 0 if last is None else int(last) + 1

    async def _seats(self, connection: AsyncConnection, match_ids: Sequence[int]) -> dict[int, list[Seat]]:
        """The seats of these matches, by match id, in seat order."""
        query = (
            select(match_versions.c.match_id, teams.c.name, versions)
            .select_from(
                match_versions.join(versions, versions.c.id == match_versions.c.version_id).join(
                    teams, teams.c.id == match_versions.c.team_id
                )
            )
            .where(match_versions.c.match_id.in_(list(match_ids)))
            .order_by(match_versions.c.match_id, match_versions.c.seat)
        )
        seats: dict[int, list[Seat]] = {}
        for row in (await connection.execute(query)).all():
            seats.setdefault(row.match_id, []).append(Seat(version_of(row), row.name))
        return seats

    async def open_matches(self) -> list[Planned]:
        """Every match not yet over (ranked: not applied; scrimmages: not finished), by id."""
        playing = matches.c.state.in_((MatchState.SCHEDULED, MatchState.RUNNING))
        unapplied = and_(matches.c.state == MatchState.FINISHED, matches.c.seq.is_not(None))
        query = select(matches).where(or_(playing, unapplied)).order_by(matches.c.id)
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
            seats = await self._seats(connection, [row.id for row in rows])
        return [_planned(row, seats.get(row.id, [])) for row in rows]

    async def schedule(self, seq: int, picked: Sequence[Standing], deal: int) -> Planned:
        """Record ranked match ``seq`` of these versions (first seat first) on deal set ``deal``, and
        move its teams' next deal set past it."""
        now = datetime.now(UTC)
        async with self.engine.begin() as connection:
            insert = matches.insert().values(seq=seq, state=MatchState.SCHEDULED, deal=deal, attempt=0, created_at=now)
            match_id = (await connection.execute(insert.returning(matches.c.id))).scalar_one()
            await connection.execute(
                match_versions.insert(),
                [
                    {"match_id": match_id, "seat": k, "version_id": s.version_id, "team_id": s.team_id}
                    for k, s in enumerate(picked)
                ],
            )
            for s in picked:
                moved = await connection.execute(
                    team_ladder.update().where(team_ladder.c.team_id == s.team_id).values(next_deal=deal + 1)
                )
                if moved.rowcount == 0:
                    await connection.execute(
                        team_ladder.insert().values(team_id=s.team_id, next_deal=deal + 1, accepts_scrimmages=True)
                    )
            seats = await self._seats(connection, [match_id])
        return Planned(int(match_id), seq, deal, None, 0, MatchState.SCHEDULED, tuple(seats[match_id]))

    async def started(self, match_id: int, attempt: int) -> None:
        """A match is being played (its ``attempt``: how many times a stopped server cut it off)."""
        async with self.engine.begin() as connection:
            await _move(connection, match_id, MatchState.RUNNING, attempt=attempt)

    async def finished(self, match_id: int, result: MatchResult) -> bool:
        """Keep a match's result (a ranked one then waits to be applied; a scrimmage is over); False
        if it already had one (it is then not kept again)."""
        now = datetime.now(UTC)
        async with self.engine.begin() as connection:
            if not await _move(
                connection, match_id, MatchState.FINISHED, result=result_to_json(result), finished_at=now
            ):
                return False
            played = select(match_versions.c.version_id).where(match_versions.c.match_id == match_id)
            await connection.execute(versions.update().where(versions.c.id.in_(played)).values(last_played=now))
        return True

    async def apply(self, match_id: int, seq: int, applied: Applied) -> bool:
        """Apply a finished ranked match's changes, all in one transaction with the match marked
        applied (or void); False if it was not waiting to be applied (nothing is changed then)."""
        async with self.engine.begin() as connection:
            if not await _move(connection, match_id, MatchState.VOID if applied.void else MatchState.APPLIED):
                await connection.rollback()
                return False
            for s in applied.standings:
                values = {"mu": s.mu, "sigma": s.sigma, "games": s.games, "faulty": s.faulty, "paused": s.paused}
                updated = await connection.execute(
                    standings.update().where(standings.c.version_id == s.version_id).values(**values)
                )
                if updated.rowcount == 0:
                    await connection.execute(standings.insert().values(version_id=s.version_id, **values))
            if applied.standings:
                await connection.execute(
                    rating_history.insert(),
                    [{"version_id": s.version_id, "seq": seq, "mu": s.mu, "sigma": s.sigma} for s in applied.standings],
                )
            for (mine, theirs), groups in applied.pair_groups.items():
                await self._merge_pair(connection, mine, theirs, groups)
            for version_id in {mine for mine, _ in applied.pair_groups} | {s.version_id for s in applied.standings}:
                await self._keep_bb100(connection, version_id)
        return True

    async def _keep_bb100(self, connection: AsyncConnection, version_id: int) -> None:
        """Keep a version's bb/100 over all its pairs' groups in its standing (the leaderboard's figure)."""
        rows = (await connection.execute(select(pairs.c.groups).where(pairs.c.version_id == version_id))).all()
        figure = version_bb100([("", 0, GroupedSums.from_json(row.groups)) for row in rows])
        mean, low, high = (None, None, None) if figure is None else figure
        await connection.execute(
            standings.update()
            .where(standings.c.version_id == version_id)
            .values(bb100_mean=mean, bb100_low=low, bb100_high=high)
        )

    async def _merge_pair(self, connection: AsyncConnection, mine: int, theirs: int, groups: GroupedSums) -> None:
        """Add a match's duplicate groups of ``mine`` against ``theirs`` to the pair's."""
        key = (pairs.c.version_id == mine) & (pairs.c.opponent_id == theirs)
        row = (await connection.execute(select(pairs.c.groups).where(key))).first()
        if row is None:
            merged = GroupedSums()
            merged.merge(groups)
            await connection.execute(
                pairs.insert().values(version_id=mine, opponent_id=theirs, groups=merged.as_json())
            )
            return
        merged = GroupedSums.from_json(row.groups)
        merged.merge(groups)
        await connection.execute(pairs.update().where(key).values(groups=merged.as_json()))

    async def meetings(self) -> dict[tuple[int, int], int]:
        """How many ranked matches have been picked for each pair of versions (``ladder.Met``): read
        once when the ladder starts (one row per seat of every ranked match), then kept by the ladder."""
        query = (
            select(match_versions.c.match_id, match_versions.c.version_id)
            .select_from(match_versions.join(matches, matches.c.id == match_versions.c.match_id))
            .where(matches.c.seq.is_not(None))
            .order_by(match_versions.c.match_id, match_versions.c.seat)
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        seats: dict[int, list[int]] = {}
        for row in rows:
            seats.setdefault(row.match_id, []).append(row.version_id)
        met: dict[tuple[int, int], int] = {}
        for versions_of in seats.values():
            for pair in pairs_of(versions_of):
                met[pair] = met.get(pair, 0) + 1
        return met

    async def frozen(self) -> bool:
        """Whether the arena is frozen for its finals (the ladder then picks no more ranked matches)."""
        return await self.repository.frozen_at() is not None

    async def history(self, version_id: int) -> list[tuple[int, float, float]]:
        """A version's rating after each of its ranked matches: (seq, mu, sigma), in order."""
        query = (
            select(rating_history.c.seq, rating_history.c.mu, rating_history.c.sigma)
            .where(rating_history.c.version_id == version_id)
            .order_by(rating_history.c.seq)
        )
        async with self.engine.connect() as connection:
            return [(row.seq, row.mu, row.sigma) for row in (await connection.execute(query)).all()]

    async def pair_groups(self, version_id: int) -> list[tuple[str, int, GroupedSums]]:
        """A version's duplicate groups against each opponent version: (team, number, groups)."""
        query = (
            select(teams.c.name, versions.c.number, pairs.c.groups)
            .select_from(
                pairs.join(versions, versions.c.id == pairs.c.opponent_id).join(teams, teams.c.id == versions.c.team_id)
            )
            .where(pairs.c.version_id == version_id)
            .order_by(teams.c.name, versions.c.number)
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [(row.name, row.number, GroupedSums.from_json(row.groups)) for row in rows]

    async def leaderboard(self) -> list[tuple[Team, Standing]]:
        """Every team with an active version, with that version's standing."""
        found = {t.id: t for t in await self.repository.teams() if t.active_version is not None}
        query = (
            select(active_versions.c.team_id, active_versions.c.version_id)
            .where(active_versions.c.team_id.in_(list(found)))
            .order_by(active_versions.c.team_id)
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        standing = await self.standings_of([row.version_id for row in rows])
        return [(found[row.team_id], standing[row.version_id]) for row in rows]

    async def ensure_house(self, run: tuple[str, ...]) -> None:
        """The house team with one ready, active version running ``run`` (created once)."""
        async with self.engine.connect() as connection:
            row = (await connection.execute(select(teams.c.id).where(teams.c.name == HOUSE))).first()
        if row is None:
            team, _ = await self.repository.add_team(HOUSE, reserved=True)
        else:
            team = Team(id=row.id, name=HOUSE, created_at=datetime.now(UTC))
        digest = "house-" + "-".join(run)[-58:]
        version, _ = await self.repository.add_version(
            team, digest=digest[:64], files=0, size=0, protocol="grpc", run=run, build=None, house=True
        )
        if version.state is not BuildState.READY:
            version = await self.repository.set_state(version, BuildState.READY)
        await self.repository.activate(team, version.number, house=True)

    async def request_scrimmage(self, team: Team, opponent: str, per_hour: int, seed: str) -> Planned:
        """Record a scrimmage ``team`` asks for against team ``opponent`` (their active versions,
        dealt from its own ``seed``); ``RefusedError`` with the reason when it cannot be."""
        if opponent == team.name:
            raise RefusedError(Refusal.CONFLICT, "a scrimmage is against another team")
        now = datetime.now(UTC)
        async with self.engine.begin() as connection:
            since = now - timedelta(seconds=WINDOW_S)
            asked = (
                select(matches.c.created_at)
                .where(matches.c.requested_by == team.id, matches.c.created_at > since)
                .order_by(matches.c.created_at)
            )
            recent = [utc(row.created_at) for row in (await connection.execute(asked)).all()]
            wait = retry_after(recent, per_hour, now) if per_hour else WINDOW_S
            if wait > 0:
                raise RefusedError(
                    Refusal.TOO_MANY, f"at most {per_hour} scrimmages an hour: try again in {wait:.0f} s", wait
                )
            other = (await connection.execute(select(teams.c.id).where(teams.c.name == opponent))).first()
            if other is None:
                raise RefusedError(Refusal.NOT_FOUND, f"no team {opponent!r}")
            accepts = (
                await connection.execute(
                    select(team_ladder.c.accepts_scrimmages).where(team_ladder.c.team_id == other.id)
                )
            ).scalar()
            if accepts is False:
                raise RefusedError(Refusal.CONFLICT, f"team {opponent!r} does not accept scrimmages")
            picked: list[dict[str, int]] = []
            for team_id, name in ((team.id, "your team"), (other.id, f"team {opponent!r}")):
                active = (
                    await connection.execute(
                        select(active_versions.c.version_id).where(active_versions.c.team_id == team_id)
                    )
                ).scalar()
                if active is None:
                    raise RefusedError(Refusal.CONFLICT, f"{name} has no active version")
                picked.append({"seat": len(picked), "version_id": active, "team_id": team_id})
            insert = matches.insert().values(
                state=MatchState.SCHEDULED, seed=seed, attempt=0, requested_by=team.id, created_at=now
            )
            match_id = (await connection.execute(insert.returning(matches.c.id))).scalar_one()
            await connection.execute(match_versions.insert(), [{**seat, "match_id": match_id} for seat in picked])
            seats = await self._seats(connection, [match_id])
        return Planned(int(match_id), None, None, seed, 0, MatchState.SCHEDULED, tuple(seats[match_id]))

    async def scrimmages(self, team: Team, match_id: int | None = None, limit: int = 100) -> list[Planned]:
        """The newest scrimmages ``team`` played in or asked for, newest first (``match_id``: that
        one alone, if the team played in it: another team's are never found)."""
        query = (
            select(matches)
            .select_from(matches.join(match_versions, match_versions.c.match_id == matches.c.id))
            .where(match_versions.c.team_id == team.id, matches.c.seq.is_(None))
            .order_by(matches.c.id.desc())
            .limit(limit)
        )
        if match_id is not None:
            query = query.where(matches.c.id == match_id)
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
            seats = await self._seats(connection, [row.id for row in rows])
        return [_planned(row, seats[row.id]) for row in rows]

    async def set_scrimmages(self, team: Team, accept: bool) -> None:
        """Whether ``team`` accepts the scrimmages other teams ask for (it does until it says not)."""
        async with self.engine.begin() as connection:
            updated = await connection.execute(
                team_ladder.update().where(team_ladder.c.team_id == team.id).values(accepts_scrimmages=accept)
            )
            if updated.rowcount == 0:
                await connection.execute(
                    team_ladder.insert().values(team_id=team.id, next_deal=0, accepts_scrimmages=accept)
                )

    async def accepts_scrimmages(self, team: Team) -> bool:
        """Whether ``team`` accepts scrimmages."""
        query = select(team_ladder.c.accepts_scrimmages).where(team_ladder.c.team_id == team.id)
        async with self.engine.connect() as connection:
            return (await connection.execute(query)).scalar() is not False
