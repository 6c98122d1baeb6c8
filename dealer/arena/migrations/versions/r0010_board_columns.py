"""The leaderboard in one query: a version's bb/100 (with its 95% interval) kept in its standing
when a match is applied, and the end of its last match kept on the version when a match ends,
instead of both worked out again for every team on every view. Existing rows are filled in.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from dealer.arena.ladder import version_bb100
from dealer.stats.stats import GroupedSums

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BB100 = ("bb100_mean", "bb100_low", "bb100_high")


def upgrade() -> None:
    """Add the columns, then fill them from the pairs' groups and the matches' ends."""
    for column in BB100:
        op.add_column("standings", sa.Column(column, sa.Float, nullable=True))
    op.add_column("versions", sa.Column("last_played", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE versions SET last_played = (SELECT max(matches.finished_at) FROM match_versions "
        "JOIN matches ON matches.id = match_versions.match_id WHERE match_versions.version_id = versions.id)"
    )
    pairs = sa.table("pairs", sa.column("version_id", sa.Integer), sa.column("groups", sa.JSON))
    standings = sa.table("standings", sa.column("version_id", sa.Integer), *(sa.column(c, sa.Float) for c in BB100))
    bind = op.get_bind()
    by_version: dict[int, list[tuple[str, int, GroupedSums]]] = {}
    for row in bind.execute(sa.select(pairs.c.version_id, pairs.c.groups)).all():
        by_version.setdefault(row.version_id, []).append(("", 0, GroupedSums.from_json(row.groups)))
    for version_id, groups in by_version.items():
        figure = version_bb100(groups)
        if figure is not None:
            values = dict(zip(BB100, figure, strict=True))
            bind.execute(standings.update().where(standings.c.version_id == version_id).values(**values))


def downgrade() -> None:
    """Drop the kept figures (plain ALTER TABLE DROP COLUMN, SQLite 3.35 or later: a batch copy of
    ``versions`` would break the foreign keys that point at it)."""
    op.drop_column("versions", "last_played")
    for column in BB100:
        op.drop_column("standings", column)
