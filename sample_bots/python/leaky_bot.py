"""Leaky bot: strength_bot with a deliberate leak, a weaker "version 1" of it for ``dealer compare``.

It plays exactly like strength_bot (same pre-flop Chen thresholds, same seeded Monte Carlo equity,
same bets and raises) except for one thing: after the flop it calls too often. strength_bot calls
a bet when its estimated equity is at least the pot odds plus 5 points
(``win >= call / (pot + call) + 0.05``); leaky_bot calls down to 20 points below the pot odds
(``CALL_MARGIN = -0.20``), so it pays off bets with hands that lose in the long run. Everywhere
else the two bots make identical decisions (about 95% of deals are played identically), which is
what two close versions of one bot look like to a regression test. Against strength_bot the leak
is worth about +35 bb/100 of the difference new - old (benchmarks/compare_hands.py: +35 +- 8 over
32,000 duplicate hands). Decisions depend only on the situation and on BOT_SEED (default "0"):
replays are exact.
"""

import strength_bot

import pokerbot

CALL_MARGIN = -0.20  # strength_bot: +0.05


def decide(request):
    return strength_bot.decide_with(request, call_margin=CALL_MARGIN)


if __name__ == "__main__":
    pokerbot.run(decide, name="leaky")
