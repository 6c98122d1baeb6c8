"""The arena: teams submit bots, the server stores and builds them, a database keeps it all.

Layered as the rest of the dealer: ``model`` (pure records and rules: names, tokens, versions),
``config`` (``arena.yaml``), ``archive`` (a submission's files, checked before anything is kept),
``repository`` (the database, the only module that speaks SQL, with its Alembic migrations),
``http`` (thin aiohttp routes) and ``cli`` (the ``dealer arena`` commands).
"""
