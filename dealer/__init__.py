"""A bot-versus-bot Texas Hold'em tournament harness.

Its folders, from the bottom up, each depending only on those before it: ``engine`` (the pure
rules), ``config`` (the league file read into types), ``stats`` (figures from results), ``isolation``
(a bot's sandboxed process), ``connect`` (talking to a bot), ``league`` (playing matches and
leagues), ``cli``; beside them ``web`` (the live page and report.html) and ``arena`` (the
competition server). ``errors``, ``files``, ``runtime`` and ``text`` are shared by all.
"""

import os

# The dealer spawns bot processes while gRPC's threads run; gRPC's fork handlers are not needed
# (children exec at once) and only print warnings. This must be set before grpc is imported.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

__version__ = "0.2.0"
