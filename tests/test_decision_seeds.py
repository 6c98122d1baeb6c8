"""Common random numbers (issue 35): every ActionRequest carries a decision seed, the same at the same
decision point of a deal whoever sits there, derived by keyed BLAKE2b from the event's secret and that
public point only; two instances of a bot drawing through ``pokerbot.seeded`` then play a duplicate deal
alike in both seatings, however differently their own generators were seeded."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import sys

from conftest import PY_BOTS
from dealer.league.seeds import DecisionSeeds, deal_key, decision_key, decision_seed
from dealer.stats.paired import paired_samples
from test_strategies import _play

sys.path.insert(0, str(PY_BOTS))
import random_bot

import pokerbot


def _blake2b_seed(key: bytes, point: bytes, word: int) -> int:
    """Word ``word`` of keyed BLAKE2b-512 of ``point``, its first 53 bits, as the docstring of DecisionSeeds says."""
    digest = hashlib.blake2b(point, key=key).digest()
    return int.from_bytes(digest[8 * word : 8 * word + 8], "big") >> 11 or 1


def test_decision_seed_is_keyed_blake2b_of_the_public_decision_point_under_a_key_of_the_secret():
    key = decision_key("event-secret-0123456789")
    assert key == hmac.new(b"event-secret-0123456789", b"dealer decision seeds v1", hashlib.sha256).digest()
    seed = decision_seed(key, "/0/7", 1, 2)  # the third decision of the cards' position 1 in deal /0/7
    assert seed == _blake2b_seed(key, b"/0/7|1|0", 2) and 0 < seed < 2**53
    assert decision_seed(key, "/0/7", 1, 10) == _blake2b_seed(key, b"/0/7|1|1", 2)  # eight seeds a hash
    others = {
        decision_seed(decision_key("another-secret-0123456789"), "/0/7", 1, 2),  # another event
        decision_seed(key, "/0/8", 1, 2),  # another deal
        decision_seed(key, "/0/7", 0, 2),  # another seat
        decision_seed(key, "/0/7", 1, 1),  # another point of the hand
        decision_seed(key, "/0/7", 1, 10),  # the same word of the next block
    }
    assert seed not in others and len(others) == 5


def test_decision_seeds_of_one_key_are_decision_seed_at_every_point():
    rng = random.Random(7)
    key = decision_key("event-secret-0123456789")
    seeds = DecisionSeeds(key)
    for _ in range(200):
        deal, seat, index = f"/{rng.randrange(9)}/{rng.randrange(10**6)}", rng.randrange(10), rng.randrange(40)
        expected = _blake2b_seed(key, f"{deal}|{seat}|{index // 8}".encode(), index % 8)
        assert seeds.seed(deal, seat, index) == decision_seed(key, deal, seat, index) == expected
        assert seeds.block(deal, seat, index // 8)[index % 8] == expected


def test_a_table_sends_each_seat_the_seed_of_its_count_of_actions_so_far(tmp_path):
    # Call bots act once a street each, every action asked: a seat's k-th request of a hand is its
    # decision k. Both seatings of a deal get the same seeds (common random numbers).
    log: list[tuple[int, int, int]] = []

    def call(request):
        log.append((request.hand, request.seat, request.decision_seed))
        return pokerbot.check_call()

    result = asyncio.run(_play({"a": call, "b": call}, (), tmp_path, hands=12))
    assert not any(result.faults.values()) and result.records is not None
    (deal_set,) = {h.deal_set for h in result.records}
    key = decision_key("4")  # _play's match seed
    seen: dict[tuple[int, int], list[int]] = {}
    for hand, seat, seed in log:
        seen.setdefault((hand, seat), []).append(seed)
    assert len(seen) == 24
    for (hand, seat), sent in seen.items():
        deal = deal_key("", deal_set, hand)
        assert sorted(sent) == sorted(decision_seed(key, deal, seat, k) for k in range(4) for _ in range(2))


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
