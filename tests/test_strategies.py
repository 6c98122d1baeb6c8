"""Known strategies (issue 17): ActionReply.strategy from the Python SDK and from stdio lines, the
dealer's checks of it in a real match (played in process), and the decision-corrected nets it
records for the compared versions only."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import sys
from pathlib import Path

import pytest

from conftest import PY_BOTS, ROOT
from dealer.config.league_file import game_config
from dealer.connect import wire, wire_json
from dealer.connect.server import BotSession, DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan, instance_label
from dealer.stats.paired import paired_samples
from poker.v1 import dealer_pb2 as pb

sys.path.insert(0, str(PY_BOTS))
import pokerbot


def _request(**fields: object) -> pb.ActionRequest:
    base: dict[str, object] = {
        "request_id": 5,
        "can_fold": True,
        "call_amount": 100,
        "min_raise_to": 400,
        "max_raise_to": 2000,
        "big_blind": 100,
        "pot": 300,
    }
    return pb.ActionRequest(**{**base, **fields})


def test_sdk_mixed_draws_by_the_probabilities_and_reports_them_made_legal():
    options = [(pokerbot.fold(), 0.25), (pokerbot.check_call(), 0.5), (pokerbot.raise_to(100_000), 0.25)]
    rng = random.Random(1)
    drawn = [pokerbot.mixed(options, rng).type for _ in range(4000)]
    assert drawn.count(pokerbot.CHECK_CALL) / 4000 == pytest.approx(0.5, abs=0.03)
    assert drawn.count(pokerbot.FOLD) / 4000 == pytest.approx(0.25, abs=0.03)
    reply = pokerbot.answer(lambda r: pokerbot.mixed(options, random.Random(3)), 7, _request())
    assert reply.table == 7 and reply.request_id == 5
    assert [(o.type, o.amount, o.probability) for o in reply.strategy] == [
        (pokerbot.FOLD, 0, 0.25),
        (pokerbot.CHECK_CALL, 0, 0.5),
        (pokerbot.BET_RAISE, 2000, 0.25),
    ]  # raise clamped
    assert (reply.type, reply.amount) in {(o.type, o.amount) for o in reply.strategy}
    free = pokerbot.answer(
        lambda r: pokerbot.mixed(options, random.Random(3)),
        7,
        _request(can_fold=False, call_amount=0, min_raise_to=0, max_raise_to=0),
    )
    assert [(o.type, o.probability) for o in free.strategy] == [(pokerbot.CHECK_CALL, 1.0)]  # all became a check
    assert not pokerbot.answer(lambda r: pokerbot.check_call(), 7, _request()).strategy  # a black box says nothing
    with pytest.raises(ValueError, match="sum to 1"):
        pokerbot.mixed([(pokerbot.fold(), 0.5)], rng)


def test_stdio_reply_lines_carry_a_strategy_and_a_malformed_one_is_a_protocol_reason():
    message, errors = wire_json.json_replies(
        [
            b'{"table": 3, "request_id": 9, "action": "fold", "strategy": [{"action": "fold", "probability": 0.25},'
            b' {"action": "bet_raise", "amount": 400, "probability": 0.75}]}'
        ]
    )
    assert errors == [] and message is not None
    assert wire.reply(message.actions[0]).strategy == (("fold", 0, 0.25), ("bet_raise", 400, 0.75))
    head = b'{"table": 1, "request_id": 2, "action": "fold", "strategy": '
    bad = {
        head + b'{"fold": 1}}': '"strategy" must be a list',
        head + b"[1]}": '"strategy" option 0 is not an object',
        head + b'[{"action": "x", "probability": 1}]}': '"strategy" option 0: "action" must be',
        head + b'[{"action": "fold", "probability": "1"}]}': '"strategy" option 0: "probability" must be a number',
    }
    for line, reason in bad.items():
        message, errors = wire_json.json_replies([line])
        assert message is None and len(errors) == 1 and errors[0].startswith(reason), (line, errors)


def _mixed(request: pb.ActionRequest) -> pokerbot.Decision:
    """A cheap mixed strategy: call, fold or min-raise with fixed odds, drawn from the situation."""
    rng = random.Random(f"{request.hand}|{request.street}|{list(request.hole_cards)}|{list(request.bets)}")
    return pokerbot.mixed(
        [(pokerbot.check_call(), 0.6), (pokerbot.fold(), 0.2), (pokerbot.raise_to(request.min_raise_to), 0.2)], rng
    )


def _liar(request: pb.ActionRequest) -> pokerbot.Decision:
    """Reports probabilities that sum to 0.9 from its fifth hand on."""
    decision = _mixed(request)
    if request.hand < 4:
        return decision
    return decision._replace(strategy=tuple((d, p * 0.9) for d, p in decision.strategy))


async def _answer(session: BotSession, decide) -> None:
    """Stand in for a bot and its stream in this process: each batch's requests answered by the SDK."""
    loop = asyncio.get_running_loop()
    while session.live:
        await session.link._wake.wait()
        batch = session.link._take_batch(loop.time())
        replies = [
            pokerbot.answer(decide, item.table, item.request)
            for item in pb.DealerMessage.FromString(batch).items
            if item.WhichOneof("kind") == "request"
        ]
        if replies:
            session.link._receive(pb.BotMessage(actions=replies))


async def _play(decides: dict, strategies: tuple[str, ...], out: Path, hands: int = 40, features: bool = False):
    server = DealerServer("127.0.0.1:0", local_socket=False)
    plan = MatchPlan(
        "known",
        plan_tables(tuple(decides), duplicate=True, tables=1),
        game_config(),
        hands,
        seed=4,
        luck=True,
        strategies=strategies,
        sealed=False,
        features=features,
    )
    sessions = {instance_label(name, 0): server.session(name) for name in decides}
    for session in sessions.values():
        session.link._attach(object(), "in-process")  # type: ignore[arg-type]
    pumps = [asyncio.create_task(_answer(s, decides[s.name])) for s in sessions.values()]
    bots = {s.name: MatchBot(s.name, token=s.token) for s in sessions.values()}
    result = await Match(plan, server, bots, out=out, base=ROOT, sessions=sessions, records=True).run()
    for session in sessions.values():
        session.link._detach()
    await asyncio.gather(*pumps)
    return result


def test_a_match_corrects_the_compared_bots_decisions_and_drops_a_bad_strategy_with_one_line(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="dealer.league.match")
    result = asyncio.run(_play({"mix": _mixed, "liar": _liar}, ("mix", "liar"), tmp_path))
    assert result.hands == 80 and result.records is not None and not any(result.faults.values())
    known = [h for h in result.records if h.full_net is not None]
    assert len(known) > 40  # most hands have a mixed decision of ``mix``
    for h in known:
        assert h.luck_net is not None and sum(h.full_net.values()) == pytest.approx(0, abs=0.02)
    assert any(h.full_net != h.luck_net for h in known)
    assert result.strategies_refused == {"liar": "probabilities sum to 0.9, not 1"}
    lines = [r.getMessage() for r in caplog.records if "strategy of bot liar" in r.getMessage()]
    assert len(lines) == 1 and "probabilities sum to 0.9" in lines[0] and "\n" not in lines[0]
    samples = paired_samples([result], "mix", "liar")
    assert sum(s.known for s in samples) == len(known)
    # Only the compared versions are trusted: the same match with no one named uses no strategy.
    again = asyncio.run(_play({"mix": _mixed, "liar": _liar}, (), tmp_path / "b"))
    assert again.records is not None and all(h.full_net is None for h in again.records) and not again.strategies_refused

    def plays(r):
        return sorted((h.deal_set, h.hand, sorted(h.net.items())) for h in r.records)

    assert plays(again) == plays(result)  # the same play: strategies change no decision


def test_luck_features_are_recorded_only_for_the_learned_correction_and_change_nothing_else(tmp_path):
    """A hand's luck features cost the dealer about 1.4 ms: a comparison records them only when its
    verdict comes from ``learned`` (``MatchPlan.features``); every other figure of the hand is the same."""
    plain = asyncio.run(_play({"mix": _mixed, "other": _mixed}, ("mix", "other"), tmp_path / "a", hands=20))
    learned = asyncio.run(
        _play({"mix": _mixed, "other": _mixed}, ("mix", "other"), tmp_path / "b", hands=20, features=True)
    )
    assert plain.records is not None and learned.records is not None
    assert all(h.features is None for h in plain.records)
    assert all(h.features is not None and set(h.features) == set(h.net) for h in learned.records)
    assert [dataclasses.replace(h, features=None) for h in learned.records] == plain.records
