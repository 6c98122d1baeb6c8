"""The ``dealer`` command line: ``main`` (its commands), ``options`` (shared options and helpers),
``league`` (run and serve), ``play`` (play) and ``terminal`` (the league's progress on a terminal)."""
