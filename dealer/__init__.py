"""A bot-versus-bot Texas Hold'em tournament harness.

Layers, from the bottom up: ``cards`` and ``evaluator`` (pure), ``rules`` (the pure hand state
machine), ``history`` (PHH), then the gRPC dealer, matches, and the league runner.
"""

__version__ = "0.1.0"
