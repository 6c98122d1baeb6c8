"""Random bot: picks uniformly among the legal action kinds (fold, check/call, bet/raise).

A raise is equally likely to be the minimum, the maximum (all-in), or uniform in between. The bot
keeps one generator, seeded once from the environment variable BOT_SEED (default "0"), and draws
each decision from it reseeded by the dealer's ``decision_seed`` (``pokerbot.seeded``): the same at
the same decision point of a deal, so a match replayed with the same deal seed is identical, and two
versions of this bot compared on the same deals draw alike where they stand alike. A dealer that
sends no seed leaves the generator running on.
"""

import os
import random

import pokerbot

SEED = os.environ.get("BOT_SEED", "0")


RNG = random.Random(SEED)  # one generator for the bot's life, reseeded at each decision


def decide(request):
    rng = pokerbot.seeded(RNG, request, SEED)
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
