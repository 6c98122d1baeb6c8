"""A bot-versus-bot Texas Hold'em tournament harness.

Layers, from the bottom up: ``cards`` and ``evaluator`` (pure), ``rules`` (the pure hand state
machine), ``history`` (PHH), then the gRPC dealer, matches, and the league runner.
"""

import os

# The dealer spawns bot processes while gRPC's threads run; gRPC's fork handlers are not needed
# (children exec at once) and only print warnings. This must be set before grpc is imported.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

__version__ = "0.2.0"
