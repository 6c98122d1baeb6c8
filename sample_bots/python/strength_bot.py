"""Strength bot: plays by hand strength.

Pre-flop it scores the two hole cards with the Chen formula (high cards, pairs, suited,
connectors): it raises premium hands, calls good ones when the price is moderate, limps playable
ones cheaply and folds the rest. After the flop it estimates the chance of winning against the
active opponents with 150 Monte Carlo run-outs (using the project's 7-card evaluator), bets or
raises a share of the pot with strong hands, calls when the pot odds justify it and otherwise
checks or folds. Decisions depend only on the situation and on BOT_SEED (default "0"): replays are exact.
"""

import math
import os
import random

import pokerbot
from dealer.engine.evaluator import evaluate

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SAMPLES = 150
SEED = os.environ.get("BOT_SEED", "0")
CHEN_HIGH = {12: 10, 11: 8, 10: 7, 9: 6}  # A, K, Q, J; lower ranks score (rank + 2) / 2


def card(text):
    return RANKS.index(text[0]) * 4 + SUITS.index(text[1])


def chen(hole):
    """The Chen score of two hole cards: from -1 (72o) to 20 (AA)."""
    (r1, s1), (r2, s2) = sorted(((c >> 2, c & 3) for c in hole), reverse=True)
    score = CHEN_HIGH.get(r1, (r1 + 2) / 2)
    if r1 == r2:
        return max(5, math.ceil(score * 2))
    if s1 == s2:
        score += 2
    gap = r1 - r2 - 1
    score -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and r1 < 10:  # both below a queen
        score += 1
    return math.ceil(score)


def equity(hole, board, opponents, rng):
    """Estimate the share of the pot won at showdown against random opponent hands."""
    deck = [c for c in range(52) if c not in hole and c not in board]
    missing = 5 - len(board)
    won = 0.0
    for _ in range(SAMPLES):
        drawn = rng.sample(deck, missing + 2 * opponents)
        full_board = board + drawn[:missing]
        mine = evaluate(hole + full_board)
        best, ties = 0, 0
        for i in range(missing, missing + 2 * opponents, 2):
            value = evaluate(drawn[i : i + 2] + full_board)
            if value > best:
                best, ties = value, 1
            elif value == best:
                ties += 1
        if mine > best:
            won += 1
        elif mine == best:
            won += 1 / (ties + 1)
    return won / SAMPLES


def decide(request):
    return decide_with(request)


def decide_with(request, call_margin=0.05):
    """``decide`` with its post-flop calling margin as a parameter: it calls a bet when the
    estimated equity is at least the pot odds plus ``call_margin`` (leaky_bot uses a negative one)."""
    hole = [card(c) for c in request.hole_cards]
    board = [card(c) for c in request.board]
    bb = max(request.big_blind, 1)
    top_bet = max(request.bets, default=0)
    call = request.call_amount
    opponents = sum(1 for seat, folded in enumerate(request.folded) if seat != request.seat and not folded)
    if request.street == pokerbot.dealer_pb2.STREET_PREFLOP:
        score = chen(hole)
        if score >= 10:
            return pokerbot.raise_to(3 * max(top_bet, bb))
        if score >= 8 and call <= 4 * bb:
            return pokerbot.raise_to(3 * bb) if top_bet <= bb else pokerbot.check_call()
        if score >= 6 and call <= bb:
            return pokerbot.check_call()
        return pokerbot.check_call() if call == 0 else pokerbot.fold()

    rng = random.Random(
        f"{SEED}|{request.hand}|{request.street}|{request.hole_cards}|{request.board}|"
        f"{list(request.bets)}|{request.pot}"
    )
    win = equity(hole, board, max(opponents, 1), rng)
    if win >= 0.7:
        share = 1.0 if win >= 0.9 else 0.75 if win >= 0.8 else 0.5
        return pokerbot.raise_to(top_bet + round(share * (request.pot + call)))
    if call == 0:
        if win >= 0.55:
            return pokerbot.raise_to(top_bet + round(0.5 * request.pot))
        return pokerbot.check_call()
    if win >= call / (request.pot + call) + call_margin:
        return pokerbot.check_call()
    return pokerbot.fold()


if __name__ == "__main__":
    pokerbot.run(decide, name="strength")
