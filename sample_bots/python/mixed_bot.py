"""Mixed bot: strength_bot playing a mixed strategy, and telling the dealer its probabilities.

Where strength_bot has hard thresholds this bot has ramps: the stronger the hand (Chen score
pre-flop, Monte Carlo equity after the flop, as strength_bot computes them), the likelier a raise;
facing a bet, the further the equity is above the pot odds plus ``call_margin``, the likelier a
call. Each decision is drawn with ``pokerbot.mixed``, which sends the probabilities of every
option with the answer (``ActionReply.strategy``): ``dealer compare`` then removes the luck of
these draws from the comparison (AIVAT with known strategies). The draws and the equity depend
only on the situation and on BOT_SEED (default "0"): replays are exact.
"""

import math
import random

import strength_bot

import pokerbot

CALL_MARGIN = 0.05  # as strength_bot
CALL_SPREAD = 0.05  # equity above (below) the call threshold at which a call is 73% (27%) likely


def _ramp(x: float, low: float, high: float) -> float:
    """0 below ``low``, 1 above ``high``, linear in between."""
    return min(1.0, max(0.0, (x - low) / (high - low)))


def decide(request):
    return decide_with(request)


def decide_with(request, call_margin=CALL_MARGIN):
    """``decide`` with the post-flop calling margin as a parameter (benchmarks/loose_mixed_bot.py)."""
    situation = (
        f"{strength_bot.SEED}|{request.hand}|{request.street}|{request.hole_cards}|{request.board}|"
        f"{list(request.bets)}|{request.pot}"
    )
    draw = random.Random(situation + "|draw")
    hole = [strength_bot.card(c) for c in request.hole_cards]
    board = [strength_bot.card(c) for c in request.board]
    bb = max(request.big_blind, 1)
    top_bet = max(request.bets, default=0)
    call = request.call_amount
    passive = pokerbot.check_call() if call == 0 else pokerbot.fold()
    if request.street == pokerbot.dealer_pb2.STREET_PREFLOP:
        score = strength_bot.chen(hole)
        raise_p = _ramp(score, 8, 12)
        call_p = (1 - raise_p) * (_ramp(score, 4, 8) if call <= 4 * bb else 0.0)
        options = [
            (pokerbot.raise_to(3 * max(top_bet, bb)), raise_p),
            (pokerbot.check_call(), call_p),
            (passive, 1 - raise_p - call_p),
        ]
        return pokerbot.mixed([(d, p) for d, p in options if p > 0], draw)
    opponents = sum(1 for seat, folded in enumerate(request.folded) if seat != request.seat and not folded)
    win = strength_bot.equity(hole, board, max(opponents, 1), random.Random(situation))
    raise_p = _ramp(win, 0.55, 0.8)
    share = 1.0 if win >= 0.9 else 0.75 if win >= 0.8 else 0.5
    if call == 0:
        call_p = 1 - raise_p  # a free check
    else:
        edge = win - (call / (request.pot + call) + call_margin)
        call_p = (1 - raise_p) / (1 + math.exp(-edge / CALL_SPREAD))
    options = [
        (pokerbot.raise_to(top_bet + round(share * (request.pot + call))), raise_p),
        (pokerbot.check_call(), call_p),
        (pokerbot.fold(), 1 - raise_p - call_p),
    ]
    return pokerbot.mixed([(d, p) for d, p in options if p > 0], draw)


if __name__ == "__main__":
    pokerbot.run(decide, name="mixed")
