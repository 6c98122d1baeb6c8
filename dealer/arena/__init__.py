"""The arena: teams submit bots, the server stores and builds them, a database keeps it all.

Layered as the rest of the dealer: ``model`` (pure records and rules: names, tokens, versions),
``config`` (``arena.yaml``), ``archive`` (a submission's files, checked before anything is kept),
``store`` (the database, the only package that speaks SQL: ``schema``, ``teams``, ``ladder``, ``reads``;
the Alembic migrations in ``migrations``),
``services`` (the use cases: who may see or do what, decided once for a ``Caller``), ``http``
(the API) and ``pages`` (the pages' data): two thin presenters of the same use cases, and ``cli``
(the ``dealer arena`` commands). The ladder: ``ladder``
(pure: matchmaking, deal sets, ratings, pauses), ``store.ladder`` (its queries) and ``ladder_loop``
(the loop ``serve`` runs, on the league's executors).
"""
