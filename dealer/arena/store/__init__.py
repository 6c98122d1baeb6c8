"""The arena's storage, the only package that speaks SQL: ``schema`` (the tables, the engine, the
Alembic migrations, the helpers that turn rows into records), ``teams`` (the ``Repository``: teams,
tokens, versions, the freeze), ``ladder`` (the ladder's matches, results and ratings: ``LadderStore``)
and ``reads`` (the read queries the pages and the API show). Each method is one transaction, records
in and out, never rows; a refusal is a domain error (``model.RefusedError``), never an HTTP status.
"""
