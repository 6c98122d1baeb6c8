"""Each team's submission attempts, so that the hourly limit counts from the database and holds
across a restart of the server (indexed by team and time: counting an hour is one range scan).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create submission_attempts and its (team_id, at) index."""
    op.create_table(
        "submission_attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_submission_attempts_team_at", "submission_attempts", ["team_id", "at"])


def downgrade() -> None:
    """Drop what 0004 created."""
    op.drop_index("ix_submission_attempts_team_at", "submission_attempts")
    op.drop_table("submission_attempts")
