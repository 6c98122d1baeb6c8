"""Random bot: picks uniformly among the legal action kinds (fold, check/call, bet/raise).

A raise is equally likely to be the minimum, the maximum (all-in), or uniform in between. The
choices are a function of the situation (hand, cards, bets, stacks) and of the environment
variable BOT_SEED (default "0"), so a match replayed with the same deal seed is identical.
"""

import os
import random

import pokerbot

SEED = os.environ.get("BOT_SEED", "0")


def decide(request):
    rng = random.Random(
        f"{SEED}|{request.hand}|{request.street}|{request.seat}|{request.hole_cards}|{request.board}|"
        f"{list(request.bets)}|{list(request.stacks)}"
    )
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
