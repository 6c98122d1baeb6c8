"""A version's smoke-test figures (hands, faults, chips against the house bot), kept with it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add versions.smoke (JSON, null until the version has played its smoke test)."""
    with op.batch_alter_table("versions") as batch:
        batch.add_column(sa.Column("smoke", sa.JSON, nullable=True))


def downgrade() -> None:
    """Drop versions.smoke."""
    with op.batch_alter_table("versions") as batch:
        batch.drop_column("smoke")
