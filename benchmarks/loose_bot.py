"""Loose bot: strength_bot with leaky_bot's leak made much worse, for benchmarks/compare_verdicts.py.

After the flop it calls a bet down to 35 points of equity below the pot odds (strength_bot: 5
above; leaky_bot: 20 below), so it pays off far more often: against strength_bot a larger edge
than leaky_bot's (the benchmark prints it). Everything else as strength_bot; replays are exact.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sample_bots" / "python"))

import strength_bot

import pokerbot

CALL_MARGIN = -0.35


def decide(request):
    return strength_bot.decide_with(request, call_margin=CALL_MARGIN)


if __name__ == "__main__":
    pokerbot.run(decide, name="loose")
