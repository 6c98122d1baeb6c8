"""A scrimmage played is ``finished``, as a ranked match is (model.MatchState): it was ``done``,
a second word for the same state, which the pages' lists did not count as over.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Every scrimmage played becomes ``finished``."""
    op.execute("UPDATE matches SET state = 'finished' WHERE state = 'done'")


def downgrade() -> None:
    """A finished scrimmage (no ``seq``) is ``done`` again."""
    op.execute("UPDATE matches SET state = 'done' WHERE state = 'finished' AND seq IS NULL")
