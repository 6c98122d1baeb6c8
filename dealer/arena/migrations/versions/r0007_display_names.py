"""Teams' display names: what the web pages call a team (any text, shown as text), beside the name
that stays its identifier in URLs, bot names and files.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add teams.display_name (none: the pages show the team's name)."""
    op.add_column("teams", sa.Column("display_name", sa.String(60), nullable=True))


def downgrade() -> None:
    """Drop teams.display_name."""
    with op.batch_alter_table("teams") as batch:
        batch.drop_column("display_name")
