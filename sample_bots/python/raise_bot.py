"""Raise bot: raises the minimum whenever a bet or raise is allowed, else checks or calls."""

import pokerbot


def decide(request):
    if request.min_raise_to > 0:
        return pokerbot.raise_to(request.min_raise_to)
    return pokerbot.check_call()


if __name__ == "__main__":
    pokerbot.run(decide, name="raise")
