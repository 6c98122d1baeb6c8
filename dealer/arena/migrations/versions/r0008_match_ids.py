"""Match ids (and the ladder's order, ``seq``) are 64-bit on PostgreSQL: a ladder that plays for
months passes 2**31 matches' ids; SQLite's integers are 64-bit already.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

COLUMNS = (("matches", "id"), ("matches", "seq"), ("match_versions", "match_id"), ("rating_history", "seq"))


def upgrade() -> None:
    """Widen the match ids, their sequence and the columns that hold them to BIGINT (PostgreSQL)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.alter_column(table, column, type_=sa.BigInteger, existing_type=sa.Integer)
    op.execute("ALTER SEQUENCE matches_id_seq AS bigint")


def downgrade() -> None:
    """Back to 32-bit (fails if an id no longer fits)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER SEQUENCE matches_id_seq AS integer")
    for table, column in COLUMNS:
        op.alter_column(table, column, type_=sa.Integer, existing_type=sa.BigInteger)
