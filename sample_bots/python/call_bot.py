"""Call bot: always checks or calls, never folds or raises."""

import pokerbot


def decide(request):
    return pokerbot.check_call()


if __name__ == "__main__":
    pokerbot.run(decide, name="call")
