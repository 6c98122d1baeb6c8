"""The ladder: matches (ranked in order, or scrimmages) with their versions by seat, each version's
standing and rating history, each heads-up pair's duplicate groups, per team its next deal set and
whether it accepts scrimmages, and the ladder's seed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the ladder's tables."""
    op.create_table("ladder", sa.Column("id", sa.Integer, primary_key=True), sa.Column("seed", sa.Text, nullable=False))
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, nullable=True, unique=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("deal", sa.Integer, nullable=True),
        sa.Column("seed", sa.Text, nullable=True),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("requested_by", sa.Integer, sa.ForeignKey("teams.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON, nullable=True),
    )
    op.create_index("ix_matches_state", "matches", ["state"])
    op.create_index("ix_matches_requested_by", "matches", ["requested_by", "created_at"])
    op.create_table(
        "match_versions",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), nullable=False),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), nullable=False),
    )
    op.create_index("ix_match_versions_team", "match_versions", ["team_id", "match_id"])
    op.create_table(
        "standings",
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("faulty", sa.Integer, nullable=False),
        sa.Column("paused", sa.Text, nullable=True),
    )
    op.create_table(
        "rating_history",
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
    op.create_table(
        "pairs",
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
        sa.Column("opponent_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
        sa.Column("groups", sa.JSON, nullable=False),
    )
    op.create_table(
        "team_ladder",
        sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), primary_key=True),
        sa.Column("next_deal", sa.Integer, nullable=False),
        sa.Column("accepts_scrimmages", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    """Drop what 0005 created."""
    for name in ("team_ladder", "pairs", "rating_history", "standings", "match_versions", "matches", "ladder"):
        op.drop_table(name)
