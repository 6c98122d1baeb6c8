"""The ``dealer`` command line: ``main`` (its commands), ``options`` (shared options and helpers),
``league`` (run and serve), ``play`` (play) and ``terminal`` (the league's progress on a terminal).

``entry`` is the ``dealer`` program's entry point, kept here, light: a worker process the dealer
spawns (``dealer.league.workers``) runs the parent's script again, and with it imports only this
package, not the commands, the web server and aiohttp (about 0.25 s of CPU per worker)."""


def entry() -> None:
    """The ``dealer`` program (``dealer.cli.main.entry``), imported only when it runs."""
    from dealer.cli.main import entry as run

    run()
