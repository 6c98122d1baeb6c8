"""The person's side of a human seat (``dealer.connect.human``): what their page shows (their cards, the
board, the bets, the legal actions and their clock, each hand's result) and the replies it sends.

The desk only ever holds what the dealer sent that seat, so the page shows exactly what a bot in
that seat would know. Served at ``/seat`` by ``WebView`` (behind the page's key): the state as one
small JSON object per change over Server-Sent Events (``/seat/events``), an action by ``POST
/seat/act``. A reply goes to the open request in the stdio contract's form and is checked by the
dealer as any bot's is; the clock runs from the moment the request was handed to the desk.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from aiohttp import web

STATIC = Path(__file__).parent / "static"

ACTIONS = ("fold", "check_call", "bet_raise")
RESULTS_KEPT = 50  # hand results the page lists
NOTICES_KEPT = 5


class SeatDesk:
    """One person's seat: ``show``/``reply``/``release`` for the connection, ``act`` and
    ``subscribe`` for the page."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.replies: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.subscribers: set[asyncio.Queue[str | None]] = set()
        self.players: list[str] = []
        self.state: dict[str, Any] = {
            "name": name,
            "match": None,
            "hand": None,
            "request": None,
            "results": [],
            "total": 0,
            "played": 0,
            "notices": [],
            "over": False,
        }

    # The connection's side (dealer.connect.human.Desk).

    def show(self, items: list[dict[str, object]]) -> None:
        """Take a batch's items into the page's state and push it."""
        handlers = {
            "match_start": self._match_start,
            "hand_start": self._hand_start,
            "event": self._event,
            "request": self._request,
            "hand_end": self._hand_end,
            "match_end": self._match_end,
            "notice": self._notice,
        }  # the rest (welcome, goodbye) show nothing
        for item in items:
            kind, table = str(item["type"]), item["table"]
            handler = handlers.get(kind)
            if handler is not None and isinstance(table, int):
                handler(table, item[kind])  # type: ignore[arg-type]
        self._push()

    async def reply(self) -> bytes | None:
        """The next reply line the page sent (None once released)."""
        return await self.replies.get()

    def release(self) -> None:
        """The seat is over: the page says so, and the reader ends."""
        self.state["over"] = True
        self.state["request"] = None
        self.replies.put_nowait(None)
        self._push()

    # The page's side.

    def act(self, action: str, amount: int) -> str | None:
        """Answer the open request; a sentence when there is none (it timed out, or was answered)."""
        request = self.state["request"]
        if request is None:
            return "no action is asked of you now"
        line = {"table": request["table"], "request_id": request["request_id"], "action": action, "amount": amount}
        self.replies.put_nowait(json.dumps(line).encode())
        self.state["request"] = None
        self._push()
        return None

    def subscribe(self) -> asyncio.Queue[str | None]:
        """A page's queue of states, the current one first."""
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        queue.put_nowait(json.dumps(self.state))
        self.subscribers.add(queue)
        return queue

    def _push(self) -> None:
        text = json.dumps(self.state)
        for queue in self.subscribers:
            queue.put_nowait(text)

    # Items, by kind.

    def _match_start(self, table: int, body: dict[str, Any]) -> None:
        self.players = list(body["players"])
        keys = ("match_id", "seat", "players", "hands", "per_action_ms", "bank_ms", "starting_stack")
        self.state["match"] = {key: body[key] for key in keys}

    def _hand_start(self, table: int, body: dict[str, Any]) -> None:
        n = len(body["stacks"])
        self.state["hand"] = {
            "table": table,
            "hand": body["hand"],
            "button": body["button"],
            "seat": body["seat"],
            "hole_cards": body["hole_cards"],
            "stacks": body["stacks"],
            "bets": [0] * n,
            "pot": 0,
            "board": [],
            "folded": [False] * n,
            "big_blind": body["big_blind"],
            "log": [],
            "result": None,
        }

    def _event(self, table: int, body: dict[str, Any]) -> None:
        hand = self.state["hand"]
        if hand is None:
            return
        kind, seat = body["type"], body["seat"]
        who = self.players[seat] if seat < len(self.players) else f"seat {seat}"
        if kind == "board":
            hand["pot"] += sum(hand["bets"])
            hand["bets"] = [0] * len(hand["bets"])
            hand["board"] = hand["board"] + list(body["cards"])
            hand["log"].append(f"board {' '.join(body['cards'])}")
            return
        if kind == "fold":
            hand["folded"][seat] = True
        if kind in ("ante", "small_blind", "big_blind", "call", "bet", "raise"):
            hand["stacks"][seat] -= body["amount"]
            if kind == "ante":
                hand["pot"] += body["amount"]
            else:
                hand["bets"][seat] += body["amount"]
        if kind == "returned":
            hand["stacks"][seat] += body["amount"]
            hand["bets"][seat] = max(0, hand["bets"][seat] - body["amount"])
        shown = {"bet": f"bets {body['to']}", "raise": f"raises to {body['to']}", "call": f"calls {body['amount']}"}
        words = shown.get(kind, kind.replace("_", " ") + (f" {body['amount']}" if body["amount"] else ""))
        hand["log"].append(f"{who} {words}" + (" (all in)" if body["all_in"] else ""))

    def _request(self, table: int, body: dict[str, Any]) -> None:
        hand = self.state["hand"]
        if hand is not None:
            for key in ("stacks", "bets", "board", "folded"):
                hand[key] = list(body[key])
            hand["pot"] = body["pot"] - sum(body["bets"])  # collected: the request's pot holds this round's bets
        keys = ("request_id", "can_fold", "call_amount", "min_raise_to", "max_raise_to", "time_ms", "bank_ms")
        self.state["request"] = {"table": table, **{key: body[key] for key in keys}, "at": time.time()}

    def _hand_end(self, table: int, body: dict[str, Any]) -> None:
        hand, seat = self.state["hand"], (self.state["match"] or {}).get("seat", 0)
        net = body["net"][seat] if seat < len(body["net"]) else 0
        winners = sorted({self.players[w] for pot in body["pots"] for w in pot["winners"] if w < len(self.players)})
        shown = {self.players[s["seat"]]: "".join(s["cards"]) for s in body["shown"] if s["seat"] < len(self.players)}
        result = {"hand": body["hand"], "net": net, "board": body["board"], "winners": winners, "shown": shown}
        if hand is not None:
            hand.update(stacks=list(body["stacks"]), board=list(body["board"]), bets=[0] * len(body["stacks"]))
            hand["pot"] = sum(pot["amount"] for pot in body["pots"])
            hand["result"] = result
        self.state["request"] = None
        self.state["results"] = [result, *self.state["results"]][:RESULTS_KEPT]
        self.state["total"] += net
        self.state["played"] += 1

    def _match_end(self, table: int, body: dict[str, Any]) -> None:
        self.state["over"] = True

    def _notice(self, table: int, body: dict[str, Any]) -> None:
        notice = f"{body['reason'].replace('_', ' ')}: {body['detail']}"
        self.state["notices"] = [notice, *self.state["notices"]][:NOTICES_KEPT]


def seat_routes(desk: SeatDesk) -> list[web.RouteDef]:
    """The seat's routes: its page, its state's stream and its actions."""

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=(STATIC / "seat.html").read_text(encoding="utf-8"), content_type="text/html")

    async def events(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        queue = desk.subscribe()
        try:
            while (text := await queue.get()) is not None:
                await response.write(f"data: {text}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            desk.subscribers.discard(queue)
        return response

    async def act(request: web.Request) -> web.Response:
        try:
            data = await request.json()
            action, amount = data["action"], data.get("amount", 0)
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": 'send {"action": ..., "amount": ...}'}, status=400)
        if action not in ACTIONS or type(amount) is not int:
            return web.json_response(
                {"error": f"action must be one of {', '.join(ACTIONS)}, amount an integer"}, status=400
            )
        problem = desk.act(action, amount)
        return web.json_response({"error": problem} if problem else {"ok": True}, status=409 if problem else 200)

    return [web.get("/seat", page), web.get("/seat/events", events), web.post("/seat/act", act)]
