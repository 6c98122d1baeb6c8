"""Common random numbers (issue 35): every ActionRequest carries a decision seed, the same at the same
decision point of a deal whoever sits there, derived by HMAC from the event's secret and that public
point only; two instances of a bot drawing through ``pokerbot.seeded`` then play a duplicate deal
alike in both seatings, however differently their own generators were seeded."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import sys

from conftest import PY_BOTS
from dealer.league.seeds import DecisionSeeds, decision_key, decision_seed
from dealer.stats.paired import paired_samples
from test_strategies import _play

sys.path.insert(0, str(PY_BOTS))
import random_bot

import pokerbot


def test_decision_seed_is_an_hmac_of_the_public_decision_point_under_a_key_of_the_secret():
    key = decision_key("event-secret-0123456789")
    assert key == hmac.new(b"event-secret-0123456789", b"dealer decision seeds v1", hashlib.sha256).digest()
    seed = decision_seed(key, "/0/7", 1, "0c100,1c0")
    digest = hmac.new(key, b"/0/7|1|0c100,1c0", hashlib.sha256).digest()
    assert seed == int.from_bytes(digest[:8], "big") >> 11 and 0 < seed < 2**53
    others = {
        decision_seed(decision_key("another-secret-0123456789"), "/0/7", 1, "0c100,1c0"),  # another event
        decision_seed(key, "/0/8", 1, "0c100,1c0"),  # another deal
        decision_seed(key, "/0/7", 0, "0c100,1c0"),  # another seat
        decision_seed(key, "/0/7", 1, "0c100"),  # another point of the hand
    }
    assert seed not in others and len(others) == 4


def test_decision_seeds_of_one_key_are_the_hmac_of_every_point_for_keys_of_any_length():
    # A table asks DecisionSeeds, its padded key blocks hashed once: the same seed as hmac.new, for the
    # event keys decision_key makes (32 bytes) and for keys as long as a block and longer (hashed first).
    rng = random.Random(7)
    for length in (0, 1, 32, 63, 64, 65, 200):
        key = rng.randbytes(length)
        seeds = DecisionSeeds(key)
        for _ in range(20):
            deal, seat = f"/{rng.randrange(9)}/{rng.randrange(10**6)}", rng.randrange(10)
            actions = ",".join(
                f"{rng.randrange(10)}{rng.choice('fcbr')}{rng.randrange(10**5)}" for _ in range(rng.randrange(12))
            )
            digest = hmac.new(key, f"{deal}|{seat}|{actions}".encode(), hashlib.sha256).digest()
            expected = int.from_bytes(digest[:8], "big") >> 11 or 1
            assert seeds.seed(deal, seat, actions) == decision_seed(key, deal, seat, actions) == expected


def _instance(name: str, log: list):
    """The sample random bot's decisions, from a generator of this instance's own (seeded by its name),
    reseeded by every request's decision seed through the SDK; the seeds it was sent logged."""
    rng = random.Random(name)

    def decide(request):
        log.append(request.decision_seed)
        return _random_decision(pokerbot.seeded(rng, request, "0"), request)

    return decide


def _random_decision(rng: random.Random, request):
    """random_bot.decide's choice with ``rng``."""
    saved = random_bot.RNG
    random_bot.RNG = rng
    try:
        return random_bot.decide(request)
    finally:
        random_bot.RNG = saved


def test_two_instances_drawing_through_the_sdk_play_every_duplicate_deal_alike(tmp_path):
    logs: dict[str, list] = {"new": [], "old": []}
    decides = {name: _instance(name, log) for name, log in logs.items()}
    result = asyncio.run(_play(decides, (), tmp_path, hands=60))
    assert not any(result.faults.values())
    assert all(logs.values()) and all(seed > 0 for log in logs.values() for seed in log)
    samples = paired_samples([result], "new", "old")
    assert len(samples) == 60
    # The random bot folds, calls and raises at random, yet each deal's two seatings went the same way.
    assert all(s.raw == 0 for s in samples)
    assert sum(1 for log in logs.values() for _ in log) > 200 and len(set(logs["new"])) > 100
