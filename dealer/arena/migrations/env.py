"""Alembic's entry: migrate on the connection ``dealer.arena.store.schema.migrate`` hands over."""

from __future__ import annotations

from alembic import context

from dealer.arena.store.schema import metadata


def run() -> None:
    """Run the pending migrations on the caller's connection (batch mode: SQLite cannot ALTER much)."""
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("the arena's migrations run through dealer.arena.store.schema.migrate, on its connection")
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run()
