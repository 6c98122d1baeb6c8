"""Random bot: picks uniformly among the legal action kinds (fold, check/call, bet/raise).

A raise is equally likely to be the minimum, the maximum (all-in), or uniform in between. The
choices are reproducible when the environment variable BOT_SEED is set.
"""

import os
import random

import pokerbot

rng = random.Random(os.environ.get("BOT_SEED"))  # None: seeded from the system


def decide(request):
    kinds = [pokerbot.check_call]
    if request.can_fold:
        kinds.append(pokerbot.fold)
    if request.min_raise_to > 0:
        kinds.append(pokerbot.raise_to)
    kind = rng.choice(kinds)
    if kind is not pokerbot.raise_to:
        return kind()
    low, high = request.min_raise_to, request.max_raise_to
    size = rng.choice(("min", "max", "between"))
    amount = low if size == "min" else high if size == "max" else rng.randint(low, high)
    return pokerbot.raise_to(amount)


if __name__ == "__main__":
    pokerbot.run(decide, name="random")
