"""A tiny SDK for Python poker bots: a bot is one function from an ActionRequest to a Decision.

    import pokerbot

    def decide(request):
        return pokerbot.check_call()

    if __name__ == "__main__":
        pokerbot.run(decide, name="my-bot")

`run` connects to the dealer (``POKER_DEALER``, or ``--dealer ADDR``), says Hello with the seat
token (``POKER_TOKEN``, or ``--token TOKEN``), calls ``decide`` for every ActionRequest and sends
all the answers to one incoming DealerMessage together in one BotMessage. It returns when the
dealer says Goodbye or ends the stream, and exits with status 1 and a one-line message on stderr
when it cannot connect or the dealer rejects it. ``answers(message, decide)`` is that work on one
DealerMessage, without the stream (``benchmarks/sdk.py`` times it). If ``POKER_TLS_CA`` names a CA certificate file,
the channel uses TLS with that CA.

A Decision is made with ``fold()``, ``check_call()`` or ``raise_to(amount)``. The SDK keeps
answers legal where it can: a raise is clamped into [min_raise_to, max_raise_to] and becomes a
check/call when no raise is allowed; a fold when nothing is owed becomes a check.

A bot that plays a mixed strategy may say so: ``mixed([(fold(), 0.2), (check_call(), 0.8)], rng)``
draws one option with ``rng`` and returns it carrying every option's probability, which is sent
with the answer (``ActionReply.strategy``, options made legal as above and equal ones added up).
``dealer compare`` then removes the luck of the bot's own draws from the comparison of its
versions (AIVAT with known strategies): report the probabilities you really draw from, or the
comparison is biased. They are used for nothing else.

``seeded(rng, request)`` reseeds a bot's generator from the request's ``decision_seed``: the same at
the same decision point of a deal for every bot, so versions of a bot compared by ``dealer compare``
draw alike where they stand alike (common random numbers), and a bot using it replays exactly.

``match_mode(start)`` and ``match_variant(start)`` read a MatchStart (seen by ``on_item``) as the
enums MatchMode and MatchVariant, from the strings ``mode`` and ``variant_name`` when the dealer
is older than the enums.
"""

from __future__ import annotations

import hashlib
import math
import os
import queue
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import grpc

try:
    from poker.v1 import dealer_pb2, dealer_pb2_grpc
except ImportError:  # run from a checkout without the project installed: use the repo root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from poker.v1 import dealer_pb2, dealer_pb2_grpc

__all__ = [
    "Decision",
    "answer",
    "answers",
    "check_call",
    "dealer_pb2",
    "fold",
    "match_mode",
    "match_variant",
    "mixed",
    "raise_to",
    "run",
    "seeded",
]

FOLD = dealer_pb2.ACTION_TYPE_FOLD
CHECK_CALL = dealer_pb2.ACTION_TYPE_CHECK_CALL
BET_RAISE = dealer_pb2.ACTION_TYPE_BET_RAISE
# MatchStart.mode and .variant_name, the strings a dealer older than the enum fields sends alone.
_MODES = {"reset": dealer_pb2.MATCH_MODE_RESET, "freezeout": dealer_pb2.MATCH_MODE_FREEZEOUT}
# random.Random.seed's C base, which random.Random.seed calls once it has made an int of a str seed.
_SEED = super(random.Random, random.Random).seed
_VARIANTS = {
    "no-limit": dealer_pb2.MATCH_VARIANT_NO_LIMIT,
    "pot-limit": dealer_pb2.MATCH_VARIANT_POT_LIMIT,
    "fixed-limit": dealer_pb2.MATCH_VARIANT_FIXED_LIMIT,
    "mixed": dealer_pb2.MATCH_VARIANT_MIXED,
}


class Decision(NamedTuple):
    """An answer to one ActionRequest: an ActionType and, for BET_RAISE, the "raise to" total;
    ``strategy``, when drawn by ``mixed``: the options it was drawn from with their probabilities."""

    type: int
    amount: int = 0
    strategy: tuple[tuple[Decision, float], ...] = ()


def fold() -> Decision:
    """Give up the hand (a check when nothing is owed)."""
    return Decision(FOLD)


def check_call() -> Decision:
    """Check when nothing is owed, else call."""
    return Decision(CHECK_CALL)


def raise_to(amount: int) -> Decision:
    """Bet or raise so that this round's bet totals ``amount`` chips."""
    return Decision(BET_RAISE, int(amount))


def mixed(options: Sequence[tuple[Decision, float]], rng: random.Random) -> Decision:
    """Draw one of ``options`` (decisions and their probabilities, which must sum to 1) with
    ``rng``; the decision drawn carries them all, and the SDK reports them with the answer."""
    total = math.fsum(p for _, p in options)
    if not options or abs(total - 1) > 1e-9 or not all(math.isfinite(p) and p >= 0 for _, p in options):
        given = [p for _, p in options]
        raise ValueError(f"mixed: probabilities must be finite, non-negative and sum to 1, not {given}")
    strategy = tuple((Decision(d.type, d.amount), p) for d, p in options)
    draw, cumulative = rng.random() * total, 0.0
    chosen = next((d for d, p in strategy if p > 0), strategy[0][0])
    for decision, p in strategy:
        cumulative += p
        if p > 0 and draw < cumulative:
            chosen = decision
            break
    return Decision(chosen.type, chosen.amount, strategy)


def seeded(rng: random.Random, request: dealer_pb2.ActionRequest, salt: str = "") -> random.Random:
    """``rng`` (the bot's one generator, made once) reseeded for this decision from the request's
    ``decision_seed`` (and ``salt``, a bot's own seed), then returned; unchanged when the dealer sends
    no seed. The dealer gives every bot the same seed at the same decision point of a deal, so two
    versions of a bot that draw this way get the same draws where they stand alike: ``dealer compare``
    then sees their difference, not their dice (common random numbers). The seed is derived from a
    secret of the match and that public point only; it tells nothing of the deck."""
    seed = request.decision_seed
    if seed:
        text = f"{salt}|{seed}".encode()
        if type(rng) is random.Random:  # rng.seed(text) as random.Random does it (version 2), without its checks
            _SEED(rng, int.from_bytes(text + hashlib.sha512(text).digest()))
            rng.gauss_next = None
        else:  # a subclass may seed its own way
            rng.seed(text.decode())
    return rng


def match_mode(start: dealer_pb2.MatchStart) -> dealer_pb2.MatchMode.ValueType:
    """The match's MatchMode (RESET or FREEZEOUT): the enum field, else the deprecated string
    ``mode`` (a dealer older than the enum); UNSPECIFIED if neither says."""
    return start.match_mode or _MODES.get(start.mode, dealer_pb2.MATCH_MODE_UNSPECIFIED)


def match_variant(start: dealer_pb2.MatchStart) -> dealer_pb2.MatchVariant.ValueType:
    """The match's MatchVariant (NO_LIMIT, POT_LIMIT, FIXED_LIMIT or MIXED): the enum field, else
    the deprecated string ``variant_name`` (a dealer older than the enum); UNSPECIFIED if neither says."""
    return start.variant or _VARIANTS.get(start.variant_name, dealer_pb2.MATCH_VARIANT_UNSPECIFIED)


def _legal_action(decision: Decision, request: dealer_pb2.ActionRequest) -> tuple[int, int]:
    """``decision`` made legal, as (action type, "raise to" total or 0): a raise clamped into the
    request's range or a check/call when none is allowed, a fold when nothing is owed a check."""
    kind = decision.type
    if kind == BET_RAISE:
        low = request.min_raise_to
        if low <= 0:
            return CHECK_CALL, 0
        return BET_RAISE, min(max(decision.amount, low), request.max_raise_to)
    if kind == FOLD and request.can_fold:
        return FOLD, 0
    return CHECK_CALL, 0


def _legal(decision: Decision, request: dealer_pb2.ActionRequest) -> Decision:
    return Decision(*_legal_action(decision, request))


def _decide(
    decide: Callable[[dealer_pb2.ActionRequest], Decision], request: dealer_pb2.ActionRequest
) -> tuple[int, int, dict[Decision, float]]:
    """``decide``'s decision made legal (type, amount) and its strategy (each option made legal, equal
    ones added up); a check/call with no strategy, the error printed to stderr, if ``decide`` raises."""
    try:
        decision = decide(request)
        kind, amount = _legal_action(decision, request)
        merged: dict[Decision, float] = {}
        for option, p in decision.strategy:
            legal = _legal(option, request)
            merged[legal] = merged.get(legal, 0.0) + p
    except Exception as error:  # noqa: BLE001 - a bot bug must not cost the session
        print(f"pokerbot: decide failed: {error!r}", file=sys.stderr, flush=True)
        return CHECK_CALL, 0, {}
    return kind, amount, merged


def answer(
    decide: Callable[[dealer_pb2.ActionRequest], Decision], table: int, request: dealer_pb2.ActionRequest
) -> dealer_pb2.ActionReply:
    """The reply to one request: ``decide``'s decision made legal, with its strategy if it has one
    (each option made legal, equal ones added up). If ``decide`` raises, the error is printed to
    stderr and the reply is a check/call."""
    reply = dealer_pb2.ActionReply()
    _fill(reply, decide, table, request)
    return reply


def _fill(
    reply: dealer_pb2.ActionReply,
    decide: Callable[[dealer_pb2.ActionRequest], Decision],
    table: int,
    request: dealer_pb2.ActionRequest,
) -> None:
    """Write the answer to ``request`` (see ``answer``) into ``reply``, a fresh ActionReply."""
    kind, amount, merged = _decide(decide, request)
    reply.table = table
    reply.request_id = request.request_id
    reply.type = kind
    reply.amount = amount
    for d, p in merged.items():
        reply.strategy.add(type=d.type, amount=d.amount, probability=p)


def answers(
    message: dealer_pb2.DealerMessage,
    decide: Callable[[dealer_pb2.ActionRequest], Decision],
    on_item: Callable[[dealer_pb2.Item], None] | None = None,
) -> tuple[dealer_pb2.BotMessage, bool, bool]:
    """What ``run`` does with one DealerMessage: every request's answer (``answer``) in one BotMessage
    (empty if none), and whether the message welcomed the bot and said goodbye. ``on_item`` sees
    every Item in order, before ``decide`` sees a request."""
    out = dealer_pb2.BotMessage()
    add = out.actions.add
    welcome = goodbye = False
    for item in message.items:
        if on_item is not None:
            on_item(item)
        kind = item.WhichOneof("kind")
        if kind == "request":
            _fill(add(), decide, item.table, item.request)
        elif kind == "welcome":
            welcome = True
        elif kind == "goodbye":
            goodbye = True
    return out, welcome, goodbye


class _Options(NamedTuple):
    """Where the dealer is and the seat token."""

    dealer: str
    token: str


def _options(argv: Sequence[str] | None) -> _Options:
    """``--dealer ADDR`` and ``--token TOKEN`` (or ``--name=VALUE``) over the environment. Read by
    hand, not by argparse, which takes a value that begins with "-" (a token may) for an option."""
    found = {"dealer": os.environ.get("POKER_DEALER", ""), "token": os.environ.get("POKER_TOKEN", "")}
    args = iter(sys.argv[1:] if argv is None else argv)
    for arg in args:
        name, has_value, value = arg.partition("=")
        if name in ("--dealer", "--token"):
            found[name[2:]] = value if has_value else next(args, "")  # the next word, whatever it begins with
    return _Options(**found)


def _channel(target: str) -> grpc.Channel:
    ca_file = os.environ.get("POKER_TLS_CA")
    if ca_file:
        with open(ca_file, "rb") as f:
            credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        return grpc.secure_channel(target, credentials)
    return grpc.insecure_channel(target)


def _fail(message: str) -> None:
    print(" ".join(message.split()), file=sys.stderr, flush=True)
    raise SystemExit(1)


def run(
    decide: Callable[[dealer_pb2.ActionRequest], Decision],
    *,
    name: str,
    version: str = "1.0",
    on_item: Callable[[dealer_pb2.Item], None] | None = None,
    argv: Sequence[str] | None = None,
) -> None:
    """Play one session: return on Goodbye or stream end; exit 1 if the dealer is unreachable.

    ``on_item`` (optional) sees every Item in order, before ``decide`` sees a request; each request
    is answered by ``answer``.
    """
    address, token = _options(argv)
    if not address:
        _fail("pokerbot: no dealer address: set POKER_DEALER or pass --dealer ADDR")
    try:
        channel = _channel(address)
    except (OSError, ValueError) as error:
        _fail(f"pokerbot: cannot set up the channel to {address}: {error}")

    outbox: queue.SimpleQueue[dealer_pb2.BotMessage | None] = queue.SimpleQueue()
    outbox.put(dealer_pb2.BotMessage(hello=dealer_pb2.Hello(token=token, name=name, version=version)))
    stub = dealer_pb2_grpc.DealerStub(channel)
    responses = stub.Play(iter(outbox.get, None))
    welcomed = False
    try:
        for message in responses:
            replies, welcome, goodbye = answers(message, decide, on_item)
            welcomed = welcomed or welcome
            if replies.actions:
                outbox.put(replies)
            if goodbye:
                break
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else None
        detail = error.details() if hasattr(error, "details") else str(error)
        if welcomed and code == grpc.StatusCode.CANCELLED:
            pass  # the session was torn down from the dealer's side: nothing left to do
        elif welcomed:
            _fail(f"pokerbot: stream to {address} failed: {code}: {detail}")
        else:
            _fail(f"pokerbot: cannot connect to dealer at {address}: {code}: {detail}")
    finally:
        outbox.put(None)  # half-close our side
        channel.close()
