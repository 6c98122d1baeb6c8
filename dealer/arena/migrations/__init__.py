"""The arena's Alembic migrations (run by ``dealer.arena.repository.migrate``, never by hand)."""
