"""Loose mixed bot: sample_bots/python/mixed_bot.py with loose_bot's leak (it calls down to 35
points of equity below the pot odds), reporting its probabilities as mixed_bot does: the older
version of the mixed pair in benchmarks/compare_verdicts.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sample_bots" / "python"))

import mixed_bot

import pokerbot

CALL_MARGIN = -0.35


def decide(request):
    return mixed_bot.decide_with(request, call_margin=CALL_MARGIN)


if __name__ == "__main__":
    pokerbot.run(decide, name="loose-mixed")
