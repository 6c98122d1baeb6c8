"""A minimal scripted Dealer.Play server for testing bot SDKs without the real dealer.

It checks the Hello token (aborting with UNAUTHENTICATED if wrong), sends Welcome, then sends a
scripted list of DealerMessages one at a time: after each, it waits until every ActionRequest in
it has been answered (or a timeout passes) before sending the next. It records every BotMessage
received, grouped by the scripted message it followed. After the script it sends Goodbye (unless
told not to) and ends the stream once the bot half-closes or disconnects (or after a grace time).
"""

from __future__ import annotations

import queue
import sys
import tempfile
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path

import grpc

try:
    from poker.v1 import dealer_pb2, dealer_pb2_grpc
except ImportError:  # an editable install made before poker/ existed does not map it
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from poker.v1 import dealer_pb2, dealer_pb2_grpc

TOKEN = "seat-token-1"


@dataclass
class Session:
    """What one bot connection did."""

    hello: dealer_pb2.Hello | None = None
    # received[i]: the BotMessages that arrived after scripted message i was sent.
    received: list[list[dealer_pb2.BotMessage]] = field(default_factory=list)
    timed_out: bool = False
    half_closed: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class FakeDealer(dealer_pb2_grpc.DealerServicer):
    """Serve ``script`` to every bot that connects; ``sessions`` records each connection."""

    def __init__(
        self,
        script: list[dealer_pb2.DealerMessage],
        *,
        token: str = TOKEN,
        goodbye: bool = True,
        reply_timeout: float = 10.0,
    ) -> None:
        self.script = script
        self.token = token
        self.goodbye = goodbye
        self.reply_timeout = reply_timeout
        self.sessions: list[Session] = []
        self._server: grpc.Server | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        self.address = ""

    # -- server lifecycle -------------------------------------------------------------------
    def start(self, *, unix: bool = False) -> str:
        """Start serving on a free local port (or a Unix socket); return the target address."""
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        dealer_pb2_grpc.add_DealerServicer_to_server(self, self._server)
        if unix:
            self._tmp = tempfile.TemporaryDirectory(prefix="fake-dealer-")
            self.address = f"unix:{Path(self._tmp.name) / 'dealer.sock'}"
            self._server.add_insecure_port(self.address)
        else:
            port = self._server.add_insecure_port("127.0.0.1:0")
            self.address = f"127.0.0.1:{port}"
        self._server.start()
        return self.address

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=None)
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> FakeDealer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the stream -------------------------------------------------------------------------
    def Play(self, request_iterator, context):
        session = Session()
        self.sessions.append(session)
        inbox: queue.Queue[dealer_pb2.BotMessage | None] = queue.Queue()

        def read() -> None:
            try:
                for message in request_iterator:
                    inbox.put(message)
                session.half_closed = True
            except Exception:  # noqa: BLE001 (cancelled or disconnected)
                pass
            inbox.put(None)

        try:
            try:
                first = next(request_iterator)
            except StopIteration:
                return
            session.hello = first.hello
            if first.hello.token != self.token:
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown seat token")
            threading.Thread(target=read, daemon=True).start()
            yield _message(dealer_pb2.Item(welcome=dealer_pb2.Welcome(name="bot", protocol_version=1)))
            closed = False
            for scripted in self.script:
                got: list[dealer_pb2.BotMessage] = []
                session.received.append(got)
                yield scripted
                wanted = {
                    (item.table, item.request.request_id)
                    for item in scripted.items
                    if item.WhichOneof("kind") == "request"
                }
                deadline = time.monotonic() + self.reply_timeout
                while wanted and not closed:
                    try:
                        message = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                    except queue.Empty:
                        session.timed_out = True
                        break
                    if message is None:
                        closed = True
                        break
                    got.append(message)
                    wanted -= {(a.table, a.request_id) for a in message.actions}
            if self.goodbye and not closed:
                yield _message(dealer_pb2.Item(goodbye=dealer_pb2.Goodbye(reason="script done")))
                # Give the bot a moment to half-close or hang up; collect any stray messages.
                deadline = time.monotonic() + 2.0
                while not closed and time.monotonic() < deadline:
                    try:
                        message = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                    except queue.Empty:
                        break
                    if message is None:
                        closed = True
                    elif session.received:
                        session.received[-1].append(message)
        finally:
            session.done.set()


def _message(*items: dealer_pb2.Item) -> dealer_pb2.DealerMessage:
    return dealer_pb2.DealerMessage(items=list(items))


# -- a standard script: two tables, batched items ----------------------------------------------
def request(
    table: int,
    request_id: int,
    *,
    street: int = dealer_pb2.STREET_PREFLOP,
    hole: tuple[str, str] = ("Ah", "Kd"),
    board: tuple[str, ...] = (),
    seat: int = 0,
    stacks: tuple[int, ...] = (990, 980),
    bets: tuple[int, ...] = (10, 20),
    folded: tuple[bool, ...] | None = None,
    pot: int = 30,
    can_fold: bool = True,
    call_amount: int = 10,
    min_raise_to: int = 40,
    max_raise_to: int = 1000,
    hand: int = 0,
) -> dealer_pb2.Item:
    """An ActionRequest item with consistent defaults (heads-up, 10/20 blinds, 1000 stacks)."""
    return dealer_pb2.Item(
        table=table,
        request=dealer_pb2.ActionRequest(
            request_id=request_id,
            hand=hand,
            street=street,
            seat=seat,
            hole_cards=list(hole),
            board=list(board),
            stacks=list(stacks),
            bets=list(bets),
            folded=list(folded) if folded is not None else [False] * len(stacks),
            pot=pot,
            can_fold=can_fold,
            call_amount=call_amount,
            min_raise_to=min_raise_to,
            max_raise_to=max_raise_to,
            time_ms=1000,
            bank_ms=10000,
            variant=dealer_pb2.VARIANT_NO_LIMIT,
            big_blind=20,
        ),
    )


def standard_script() -> list[dealer_pb2.DealerMessage]:
    """Two tables (7 and 9) whose starts and first requests arrive batched in one message, then
    post-flop spots, a multiway spot, a spot with no raise allowed, a free check, and endings."""
    start = []
    for table, seat, hole in ((7, 0, ("Ah", "Kd")), (9, 1, ("7c", "2d"))):
        start += [
            dealer_pb2.Item(
                table=table,
                match_start=dealer_pb2.MatchStart(
                    match_id=f"test/{table}",
                    seat=seat,
                    players=["a", "b"],
                    hands=10,
                    mode="reset",
                    variant_name="no-limit",
                    match_mode=dealer_pb2.MATCH_MODE_RESET,
                    variant=dealer_pb2.MATCH_VARIANT_NO_LIMIT,
                    starting_stack=1000,
                    per_action_ms=1000,
                    bank_ms=10000,
                ),
            ),
            dealer_pb2.Item(
                table=table,
                hand_start=dealer_pb2.HandStart(
                    hand=0,
                    button=0,
                    seat=seat,
                    hole_cards=list(hole),
                    stacks=[1000, 1000],
                    variant=dealer_pb2.VARIANT_NO_LIMIT,
                    small_blind=10,
                    big_blind=20,
                ),
            ),
            dealer_pb2.Item(
                table=table,
                event=dealer_pb2.Event(type=dealer_pb2.EVENT_TYPE_SMALL_BLIND, seat=0, amount=10, to=10, street=1),
            ),
            dealer_pb2.Item(
                table=table,
                event=dealer_pb2.Event(type=dealer_pb2.EVENT_TYPE_BIG_BLIND, seat=1, amount=20, to=20, street=1),
            ),
        ]
    batched = _message(
        *start,
        request(7, 101, hole=("Ah", "Kd")),
        # Big blind facing a limp: a free check, folding not offered.
        request(
            9,
            201,
            seat=1,
            hole=("7c", "2d"),
            bets=(20, 20),
            stacks=(980, 980),
            pot=40,
            can_fold=False,
            call_amount=0,
            min_raise_to=40,
            max_raise_to=1000,
        ),
    )
    flop = _message(
        dealer_pb2.Item(
            table=7,
            event=dealer_pb2.Event(type=dealer_pb2.EVENT_TYPE_BOARD, cards=["As", "Kh", "2c"], street=2),
        ),
        request(
            7,
            102,
            street=dealer_pb2.STREET_FLOP,
            board=("As", "Kh", "2c"),
            bets=(0, 50),
            stacks=(940, 890),
            pot=170,
            call_amount=50,
            min_raise_to=100,
            max_raise_to=940,
        ),
        request(
            9,
            202,
            seat=1,
            street=dealer_pb2.STREET_FLOP,
            hole=("7c", "2d"),
            board=("Qs", "Jh", "9c"),
            bets=(80, 0),
            stacks=(900, 960),
            pot=200,
            call_amount=80,
            min_raise_to=160,
            max_raise_to=960,
        ),
    )
    # Multiway river, opponents partly folded; short stack: no raise allowed, call is all-in.
    river = _message(
        request(
            7,
            103,
            hand=1,
            street=dealer_pb2.STREET_RIVER,
            hole=("Td", "Tc"),
            board=("2h", "5s", "9d", "Jc", "3h"),
            seat=2,
            stacks=(500, 0, 30, 700),
            bets=(0, 0, 0, 100),
            folded=(True, False, False, False),
            pot=600,
            call_amount=30,
            min_raise_to=0,
            max_raise_to=0,
        )
    )
    # A free check on the turn with a wide raise range: a single-item message.
    turn = _message(
        request(
            9,
            203,
            hand=1,
            seat=1,
            street=dealer_pb2.STREET_TURN,
            hole=("8s", "8h"),
            board=("8d", "Qs", "2c", "8c"),
            bets=(0, 0),
            stacks=(800, 800),
            pot=400,
            can_fold=False,
            call_amount=0,
            min_raise_to=20,
            max_raise_to=800,
        )
    )
    ends = _message(
        *(
            dealer_pb2.Item(
                table=table,
                hand_end=dealer_pb2.HandEnd(
                    hand=0,
                    stacks=[1000, 1000],
                    net=[0, 0],
                    pots=[dealer_pb2.Pot(amount=40, winners=[0, 1], shares=[20, 20])],
                ),
            )
            for table in (7, 9)
        ),
        *(
            dealer_pb2.Item(table=table, match_end=dealer_pb2.MatchEnd(match_id=f"test/{table}", net=[0, 0], hands=1))
            for table in (7, 9)
        ),
        dealer_pb2.Item(notice=dealer_pb2.Notice(reason=dealer_pb2.FAULT_REASON_TIMEOUT, detail="just a test")),
    )
    return [batched, flop, river, turn, ends]
