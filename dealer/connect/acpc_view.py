"""One ACPC seat's view of one table (``dealer.connect.acpc``'s translation, no I/O): the items a
bot's batch holds for the table in, the ``MATCHSTATE`` lines of the ACPC dealer protocol 2.0.0 out,
one per change of state as the ACPC dealer sends them, and each answer line back to the request
of the state it answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from dealer.config.acpc_game import position

ASKED_KEPT = 64  # states remembered per seat, so that a late answer is told apart from a stray one
_ACTION = re.compile(r"(f|c|r)(\d*)")


class AcpcView:
    """One ACPC seat's view of one table: items in, MATCHSTATE lines out, answers back to replies."""

    def __init__(self, table: int, no_limit: bool) -> None:
        self.table = table
        self.no_limit = no_limit
        self.players = 0
        self.seat = 0
        self._asked: dict[str, tuple[int, int, int]] = {}  # state -> request id, min raise-to, chips before the round
        self._new_hand(0, 0, [])

    def _new_hand(self, number: int, button: int, hole: Sequence[str]) -> None:
        n = max(self.players, 1)
        self.number, self.button = number, button
        self.position = position(self.seat, button, n)
        self.holes = [""] * n
        self.holes[self.position] = "".join(hole)
        self.board: list[str] = []
        # the state in parts, each grown as the hand goes, not joined again for every line
        self.head = f"MATCHSTATE:{self.position}:{number}:"
        self.betting = ""  # every round's actions, a "/" before each new round's
        self.cards = "|".join(self.holes)  # the hole cards by position, then "/" and each board
        self.before = [0] * n  # chips in earlier rounds, by position
        self.street = [0] * n  # chips in this round, by position
        self.pending = False  # a state not yet sent

    def state(self) -> str:
        """The current MATCHSTATE string (without the line end)."""
        return f"{self.head}{self.betting}:{self.cards}"

    def feed(self, item: dict[str, object], out: list[str]) -> None:
        """Take in one item of this table; append the lines it makes to ``out``."""
        kind = item["type"]
        body: dict[str, Any] = item[kind]  # type: ignore[assignment, index]
        if kind == "event":
            self._event(body, out)
        elif kind == "request":
            state = self.flush(out) or self.state()
            self._asked[state] = (body["request_id"], body["min_raise_to"], self.before[self.position])
            if len(self._asked) > ASKED_KEPT:
                del self._asked[next(iter(self._asked))]
        elif kind == "hand_start":
            self._new_hand(body["hand"], body["button"], body["hole_cards"])
        elif kind == "hand_end":
            for shown in body["shown"]:
                self.holes[position(shown["seat"], self.button, self.players)] = "".join(shown["cards"])
            self.cards = "|".join(self.holes) + "".join(f"/{cards}" for cards in self.board)
            self.pending = True
            self.flush(out)
        elif kind == "match_start":
            self.players, self.seat = len(body["players"]), body["seat"]

    def _event(self, event: dict[str, Any], out: list[str]) -> None:
        kind = event["type"]
        if kind == "board":
            cards = "".join(event["cards"])
            self.board.append(cards)
            self.betting += "/"
            self.cards += f"/{cards}"
            self.before = [b + s for b, s in zip(self.before, self.street, strict=True)]
            self.street = [0] * self.players
            return
        if kind == "returned" or kind == "ante":
            return
        p = position(event["seat"], self.button, self.players)
        if kind in ("small_blind", "big_blind"):
            self.street[p] = event["to"]
            self.pending = True
            return
        self.flush(out)  # the state before this action
        if kind == "fold":
            self.betting += "f"
        elif kind in ("check", "call"):
            self.street[p] = event["to"] if kind == "call" else self.street[p]
            self.betting += "c"
        else:  # bet, raise: no-limit sizes are the total for the hand
            self.street[p] = event["to"]
            self.betting += f"r{self.before[p] + event['to']}" if self.no_limit else "r"
        self.pending = True

    def flush(self, out: list[str]) -> str | None:
        """Send the pending state, if any; return it."""
        if not self.pending:
            return None
        self.pending = False
        state = self.state()
        out.append(state)
        return state

    def answer(self, line: str) -> tuple[int, int, str, int]:
        """An answer line ``<state>:<action>`` as a reply (table, request_id, action, amount): request id
        0 when that state asked nothing. ValueError with a one-line reason when it is malformed."""
        state, colon, action = line.rpartition(":")
        match = _ACTION.fullmatch(action)
        if not colon or not state.startswith("MATCHSTATE:") or match is None:
            raise ValueError(f"not a MATCHSTATE answer ending in :f, :c or :r[N]: {line[:80]!r}")
        request_id, min_to, before = self._asked.get(state, (0, 0, 0))
        letter, size = match.groups()
        if letter == "f":
            return self.table, request_id, "fold", 0
        if letter == "c":
            return self.table, request_id, "check_call", 0
        if not self.no_limit:
            return self.table, request_id, "bet_raise", min_to
        if not size:
            raise ValueError(f"a no-limit raise needs its size, the total for the hand (r<N>): {line[:80]!r}")
        return self.table, request_id, "bet_raise", int(size) - before


class AcpcSeats:
    """A bot's ACPC views, one per client (each client plays one table): a batch's items in, the
    bytes each client must be sent now out. A table's lines wait, in order, until its table has a
    request (or its match ends, or the goodbye): the client reads the same text (ACPC's dealer sends
    every state at once), and one write carries several states."""

    def __init__(self, clients: int, no_limit: bool) -> None:
        self.no_limit = no_limit
        self.views: list[AcpcView | None] = [None] * clients  # by client, once seated at a table
        self._held: list[list[str]] = [[] for _ in range(clients)]  # each client's lines not sent yet
        self._by_table: dict[int, int] = {}
        self._seated = 0  # the clients seated so far (in order, at their tables' match starts)

    def translate(self, items: list[dict[str, object]]) -> list[tuple[int, bytes]]:
        """The items of a batch (``wire_json.acpc_item_dicts``) into (client, bytes to write now)."""
        touched: dict[int, AcpcView] = {}  # the clients the batch has items for
        due: dict[int, None] = {}  # those whose lines go out now
        for item in items:
            kind = item["type"]
            if kind == "goodbye":
                due.update(dict.fromkeys(range(len(self.views))))
                continue
            client = self._client(item)
            if client < 0:
                continue
            view = self.views[client]
            assert view is not None
            view.feed(item, self._held[client])
            touched[client] = view
            if kind == "request" or kind == "match_end":
                due[client] = None
        for client, view in touched.items():
            view.flush(self._held[client])
        out = []
        for client in due:
            held = self._held[client]
            if held:
                out.append((client, "".join([f"{line}\r\n" for line in held]).encode()))
                held.clear()
        return out

    def _client(self, item: dict[str, object]) -> int:
        """The client of the item's table (a free one is seated at its match's start), or -1 for an
        item of no table (welcome, notices: ACPC has none) or of a table no client has."""
        table = item["table"]
        assert isinstance(table, int)
        client = self._by_table.get(table, -1)
        if client < 0 and item["type"] == "match_start" and self._seated < len(self.views):
            client, self._seated = self._seated, self._seated + 1
            self._by_table[table] = client
            self.views[client] = AcpcView(table, self.no_limit)
        return client
