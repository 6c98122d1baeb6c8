"""The arena's freeze: once its one row exists, submissions and activations are closed (the finals
play the versions active then).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the freeze table (at most one row, id 1: when submissions closed)."""
    op.create_table(
        "freeze",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("frozen_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("id = 1", name="ck_freeze_one_row"),
    )


def downgrade() -> None:
    """Drop the freeze table (submissions open again)."""
    op.drop_table("freeze")
