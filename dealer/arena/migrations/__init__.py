"""The arena's Alembic migrations (run by ``dealer.arena.store.schema.migrate``, never by hand)."""
