"""The Python SDK's handling of one DealerMessage (``pokerbot.answers``, what ``run`` does with each
message off the stream) and its reseeding of a bot's generator (``pokerbot.seeded``), checked
against the plain definitions they must keep: ``answer`` per request, ``random.Random.seed``."""

from __future__ import annotations

import random

import pytest

import pokerbot
from pokerbot import dealer_pb2 as pb


def _request(request_id: int, *, can_fold: bool = True, min_raise_to: int = 200, seed: int = 0) -> pb.ActionRequest:
    return pb.ActionRequest(
        request_id=request_id,
        can_fold=can_fold,
        call_amount=100 if can_fold else 0,
        min_raise_to=min_raise_to,
        max_raise_to=20000 if min_raise_to else 0,
        decision_seed=seed,
    )


def _message() -> pb.DealerMessage:
    return pb.DealerMessage(
        items=[
            pb.Item(welcome=pb.Welcome(name="b", protocol_version=1)),
            pb.Item(table=1, request=_request(2)),
            pb.Item(table=2, hand_start=pb.HandStart(hand=4)),
            pb.Item(table=2, request=_request(3, can_fold=False, min_raise_to=0)),
            pb.Item(table=3, request=_request(4, can_fold=False)),
        ]
    )


@pytest.mark.parametrize(
    "decision",
    [
        pokerbot.fold(),
        pokerbot.check_call(),
        pokerbot.raise_to(10**9),
        pokerbot.raise_to(1),
        pokerbot.Decision(99, 5),  # no such action: a check/call
        pokerbot.mixed(
            [(pokerbot.fold(), 0.25), (pokerbot.raise_to(50), 0.5), (pokerbot.raise_to(60), 0.25)], random.Random(1)
        ),
    ],
)
def test_answers_are_one_bot_message_of_each_requests_legal_answer(decision: pokerbot.Decision) -> None:
    seen: list[str] = []
    replies, welcome, goodbye = pokerbot.answers(
        _message(), lambda request: decision, lambda item: seen.append(item.WhichOneof("kind"))
    )
    assert seen == ["welcome", "request", "hand_start", "request", "request"]  # every item, in order
    assert (welcome, goodbye) == (True, False)
    expected = [
        pokerbot.answer(lambda request: decision, item.table, item.request)
        for item in _message().items
        if item.HasField("request")
    ]
    assert list(replies.actions) == expected
    assert [(r.table, r.request_id) for r in replies.actions] == [(1, 2), (2, 3), (3, 4)]
    legal = {(r.type, r.amount) for r in replies.actions}
    assert all(t != pokerbot.BET_RAISE or 200 <= a <= 20000 for t, a in legal)  # a raise clamped into the range
    assert replies.actions[1].type == pokerbot.CHECK_CALL  # nothing to raise and nothing owed: a check


def test_a_mixed_decisions_options_are_made_legal_and_equal_ones_added_up() -> None:
    options = [(pokerbot.fold(), 0.25), (pokerbot.raise_to(50), 0.5), (pokerbot.raise_to(60), 0.25)]
    replies, _, _ = pokerbot.answers(_message(), lambda request: pokerbot.mixed(options, random.Random(1)))
    table_1, _, table_3 = replies.actions
    assert [(o.type, o.amount, o.probability) for o in table_1.strategy] == [
        (pokerbot.FOLD, 0, 0.25),
        (pokerbot.BET_RAISE, 200, 0.75),  # both raises below the minimum become the minimum
    ]
    assert [(o.type, o.amount, o.probability) for o in table_3.strategy] == [
        (pokerbot.CHECK_CALL, 0, 0.25),  # a fold when nothing is owed is a check
        (pokerbot.BET_RAISE, 200, 0.75),
    ]


def test_a_decide_that_raises_gets_a_check_call_and_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    def broken(request: pb.ActionRequest) -> pokerbot.Decision:
        raise KeyError("oops")

    replies, _, goodbye = pokerbot.answers(
        pb.DealerMessage(items=[pb.Item(table=5, request=_request(9)), pb.Item(goodbye=pb.Goodbye())]), broken
    )
    assert [(r.table, r.request_id, r.type, list(r.strategy)) for r in replies.actions] == [
        (5, 9, pokerbot.CHECK_CALL, [])
    ]
    assert goodbye
    assert capsys.readouterr().err == "pokerbot: decide failed: KeyError('oops')\n"


def test_a_message_without_requests_is_answered_by_an_empty_bot_message() -> None:
    replies, welcome, goodbye = pokerbot.answers(
        pb.DealerMessage(items=[pb.Item(table=1, hand_start=pb.HandStart())]), pokerbot.fold
    )
    assert not replies.actions and not welcome and not goodbye


def test_seeded_leaves_a_generator_as_random_seed_would_with_the_same_text() -> None:
    for salt, seed in (("", 1), ("0", 2**53 - 1), ("bot-seed é", 123456789), ("x" * 300, 7)):
        reference = random.Random("unrelated")
        reference.gauss(0, 1)  # a pending gauss value, which seeding drops
        reference.seed(f"{salt}|{seed}")
        rng = random.Random("unrelated")
        rng.gauss(0, 1)
        assert pokerbot.seeded(rng, _request(1, seed=seed), salt) is rng
        assert rng.getstate() == reference.getstate()
        assert [rng.random() for _ in range(5)] + [rng.gauss(0, 1)] == [reference.random() for _ in range(5)] + [
            reference.gauss(0, 1)
        ]


def test_seeded_lets_a_subclass_seed_its_own_way_and_leaves_a_generator_alone_without_a_seed() -> None:
    class Logged(random.Random):
        def seed(self, a=None, version=2):
            self.seeds = [*getattr(self, "seeds", []), a]
            super().seed(a, version)

    rng = Logged(5)
    pokerbot.seeded(rng, _request(1, seed=42), "s")
    assert rng.seeds[-1] == "s|42"
    plain = random.Random(3)
    state = plain.getstate()
    pokerbot.seeded(plain, _request(1), "s")  # a dealer that sends no seed
    assert plain.getstate() == state
