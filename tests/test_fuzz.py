"""Fuzzing the dealer's service while an honest match runs on the same server.

A background thread runs a ``DealerServer`` and plays honest matches back to back. Meanwhile
hypothesis opens streams that send random bytes (identity serializers), or random well-formed
but nonsensical ``BotMessage``s: random Hellos, and random actions (ids, tables, types, amounts)
both before and after authenticating with a valid token of a seat that plays in no match. Every
stream must end with a gRPC status code the dealer chose; the dealer must keep serving (health
check), and every honest match must finish with chips conserved and no fault for its bots.
Bounded: about 15 s in all (300 examples per property).
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer.config.league_file import game_config
from dealer.connect.server import MAX_MESSAGE_BYTES, DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.stats.records import MatchResult
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / "sample_bots" / "python"
PLAY = "/poker.v1.Dealer/Play"
GAME = game_config(time={"per_action_ms": 500, "bank_ms": 2000, "grace_ms": 50, "startup_ms": 15000})
ANSWERS = {
    grpc.StatusCode.OK,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.DEADLINE_EXCEEDED,
}
CALL_TIMEOUT_S = 3.0


class Dealer:
    """A DealerServer in its own thread and loop, playing honest matches until told to stop."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.address = ""
        self.fuzz_token = ""
        self.results: list[MatchResult] = []
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    def __enter__(self) -> Dealer:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the dealer did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(120)
        assert not self._thread.is_alive(), "the dealer thread did not finish"

    async def _main(self) -> None:
        try:
            async with DealerServer() as server:
                self.address = server.address
                self.fuzz_token = server.session("fuzzer").token  # authenticates, but plays in no match
                self._ready.set()
                k = 0
                while not self._stop.is_set() or not self.results:
                    names = ["random", "caller"]
                    plan = MatchPlan(
                        f"honest-{k}",
                        plan_tables(names, duplicate=True, tables=2, prefix=f"h{k}"),
                        GAME,
                        hands=10,
                        seed=k,
                    )
                    entries = {
                        "random": MatchBot("random", ("python", str(PY / "random_bot.py"))),
                        "caller": MatchBot("caller", ("python", str(PY / "call_bot.py"))),
                    }
                    match = Match(plan, server, entries, out=self.out / str(k), base=ROOT, records=True)
                    self.results.append(await match.run())
                    k += 1
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error
            self._ready.set()


def status_of(call_factory, messages: list[bytes]) -> grpc.StatusCode:
    """Send ``messages`` on one stream, half-close, read to the end; the final status code."""
    call = call_factory(iter(messages), timeout=CALL_TIMEOUT_S)
    try:
        for _ in call:
            pass
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


actions = st.builds(
    pb.ActionReply,
    table=st.integers(0, 2**32 - 1),
    request_id=st.integers(0, 2**32 - 1),
    type=st.integers(0, 2**31 - 1),
    amount=st.integers(-(2**63), 2**63 - 1),
)
hellos = st.builds(pb.Hello, token=st.text(max_size=80), name=st.text(max_size=40), version=st.text(max_size=20))
bot_messages = st.one_of(
    st.builds(lambda h: pb.BotMessage(hello=h), hellos),
    st.builds(lambda a: pb.BotMessage(actions=a), st.lists(actions, max_size=20)),
    st.builds(lambda h, a: pb.BotMessage(hello=h, actions=a), hellos, st.lists(actions, max_size=5)),
)


@pytest.fixture(scope="module")
def dealer(tmp_path_factory: pytest.TempPathFactory):
    with Dealer(tmp_path_factory.mktemp("fuzz")) as running:
        if running.error is not None:
            raise running.error
        channel = grpc.insecure_channel(running.address)
        running.raw = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)
        running.health = health_pb2_grpc.HealthStub(channel)
        yield running
        channel.close()
    # the honest matches played alongside the fuzzing finished correctly
    assert running.error is None, running.error
    assert running.results
    for result in running.results:
        assert result.hands == 10 * 2 * 2, result.match_id
        assert all(sum(r.net.values()) == 0 for r in result.records), "chips not conserved"
        assert result.faults == {"caller": {}, "random": {}}, (result.faults, result.log_tails)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@FUZZ
@given(messages=st.lists(st.binary(max_size=300), min_size=0, max_size=4))
def test_random_bytes_get_status_codes(dealer, messages: list[bytes]) -> None:
    assert status_of(dealer.raw, messages) in ANSWERS


@FUZZ
@given(messages=st.lists(bot_messages, min_size=0, max_size=4))
def test_random_messages_without_a_valid_token_are_refused(dealer, messages: list[pb.BotMessage]) -> None:
    # no Hello first, or a Hello whose random token is no seat's: refused before anything else
    assert status_of(dealer.raw, [m.SerializeToString() for m in messages]) == grpc.StatusCode.UNAUTHENTICATED


@FUZZ
@given(messages=st.lists(st.one_of(bot_messages, st.binary(max_size=100).map(lambda b: b"\xff" + b)), max_size=5))
def test_random_messages_after_a_valid_hello_are_answered_or_cut_off(dealer, messages) -> None:
    hello = pb.BotMessage(hello=pb.Hello(token=dealer.fuzz_token, name="fuzzer")).SerializeToString()
    raw = [m if isinstance(m, bytes) else m.SerializeToString() for m in messages]
    assert status_of(dealer.raw, [hello, *raw]) in ANSWERS


def test_oversized_message_is_refused_and_the_dealer_keeps_serving(dealer) -> None:
    assert status_of(dealer.raw, [b"\x00" * (MAX_MESSAGE_BYTES + 1)]) == grpc.StatusCode.RESOURCE_EXHAUSTED
    reply = dealer.health.Check(health_pb2.HealthCheckRequest(service="poker.v1.Dealer"), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_silent_stream_is_dropped_and_the_dealer_keeps_serving(dealer) -> None:
    started = time.monotonic()
    done = threading.Event()

    def silent():
        done.wait(30)
        yield from ()

    call = dealer.raw(silent(), timeout=20)
    with pytest.raises(grpc.RpcError) as caught:
        for _ in call:
            pass
    done.set()
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - started < 10  # dropped by the dealer's authentication time limit, not ours
    reply = dealer.health.Check(health_pb2.HealthCheckRequest(service="poker.v1.Dealer"), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
