"""One ACPC seat's view of one table (``dealer.connect.acpc``'s translation, no I/O): the items a
bot's batch holds for the table in, the ``MATCHSTATE`` lines of the ACPC dealer protocol 2.0.0 out,
one per change of state as the ACPC dealer sends them, and each answer line back to the request
of the state it answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dealer.config.acpc_game import position
from dealer.connect.wire import Reply

ASKED_KEPT: Final = 64  # states remembered per seat, so that a late answer is told apart from a stray one


class AcpcItem:
    """One item of a bot's batch with only the fields the view reads (``wire_json.acpc_items`` reads
    them off the wire): its kind (the Item's oneof name) and table; an event's type name, seat, total
    and cards; a request's id and minimum raise-to; a hand's number, button and hole cards (``cards``);
    the seats and the seat count of a match's start; the (seat, cards) shown at a hand's end.

    A plain typed class, not a dict per item: compiled, its fields are read without a lookup by
    name, and every decision's batch is translated item by item."""

    __slots__ = (
        "button", "cards", "event", "hand", "kind", "min_raise_to",
        "players", "request_id", "seat", "shown", "table", "to",
    )  # fmt: skip

    def __init__(self, kind: str, table: int) -> None:
        self.kind = kind
        self.table = table
        self.event = ""
        self.seat = 0
        self.to = 0
        self.cards: list[str] = []
        self.request_id = 0
        self.min_raise_to = 0
        self.hand = 0
        self.button = 0
        self.players = 0
        self.shown: list[tuple[int, list[str]]] = []


class AcpcView:
    """One ACPC seat's view of one table: items in, MATCHSTATE lines out, answers back to replies."""

    def __init__(self, table: int, no_limit: bool) -> None:
        self.table = table
        self.no_limit = no_limit
        self.players = 0
        self.seat = 0
        self._asked: dict[str, tuple[int, int, int]] = {}  # state -> request id, min raise-to, chips before the round
        self._order = [""] * ASKED_KEPT  # the states of ``_asked`` in a ring, the oldest at ``_oldest`` once full
        self._oldest = 0
        self._positions: dict[int, list[int]] = {}  # button -> each table seat's position (players fixed)
        self._new_hand(0, 0, [])

    def _new_hand(self, number: int, button: int, hole: Sequence[str]) -> None:
        n = max(self.players, 1)
        self.number, self.button = number, button
        positions = self._positions.get(button)
        if positions is None or len(positions) != n:  # once per button, not a call per seat at every hand
            positions = self._positions[button] = [position(seat, button, n) for seat in range(n)]
        self.positions = positions  # by table seat
        self.position = self.positions[self.seat]
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

    def feed(self, item: AcpcItem, out: list[str]) -> None:
        """Take in one item of this table; append the lines it makes to ``out``."""
        kind = item.kind
        if kind == "event":
            self._event(item, out)
        elif kind == "request":
            state = self.flush(out) or self.state()
            self._ask(state, (item.request_id, item.min_raise_to, self.before[self.position]))
        elif kind == "hand_start":
            self._new_hand(item.hand, item.button, item.cards)
        elif kind == "hand_end":
            for seat, shown in item.shown:
                self.holes[self.positions[seat]] = "".join(shown)
            self.cards = "|".join(self.holes) + "".join([f"/{board}" for board in self.board])
            self.pending = True
            self.flush(out)
        elif kind == "match_start":
            self.players, self.seat = item.players, item.seat

    def _ask(self, state: str, asked: tuple[int, int, int]) -> None:
        """Remember what ``state`` asked; past ASKED_KEPT states the oldest is forgotten. A ring of
        the states, not ``next(iter(dict))``, which walks every slot the evictions left empty."""
        if state not in self._asked:
            if len(self._asked) >= ASKED_KEPT:
                del self._asked[self._order[self._oldest]]
            self._order[self._oldest] = state
            self._oldest = (self._oldest + 1) % ASKED_KEPT
        self._asked[state] = asked

    def _event(self, event: AcpcItem, out: list[str]) -> None:
        kind = event.event
        if kind == "board":
            cards = "".join(event.cards)
            self.board.append(cards)
            self.betting += "/"
            self.cards += f"/{cards}"
            before, street = self.before, self.street  # both of the hand's own, one entry per position
            for p in range(len(street)):
                before[p] += street[p]
                street[p] = 0
            return
        if kind == "returned" or kind == "ante":
            return
        p = self.positions[event.seat]
        if kind in ("small_blind", "big_blind"):
            self.street[p] = event.to
            self.pending = True
            return
        self.flush(out)  # the state before this action
        if kind == "fold":
            self.betting += "f"
        elif kind in ("check", "call"):
            self.street[p] = event.to if kind == "call" else self.street[p]
            self.betting += "c"
        else:  # bet, raise: no-limit sizes are the total for the hand
            self.street[p] = event.to
            self.betting += f"r{self.before[p] + event.to}" if self.no_limit else "r"
        self.pending = True

    def flush(self, out: list[str]) -> str | None:
        """Send the pending state, if any; return it."""
        if not self.pending:
            return None
        self.pending = False
        state = self.state()
        out.append(state)
        return state

    def answer(self, line: str) -> Reply:
        """An answer line ``<state>:<action>`` as the reply to its state's request (request id 0 when
        that state asked nothing). ValueError with a one-line reason when it is malformed."""
        state, colon, action = line.rpartition(":")
        letter, size = action[:1], action[1:]  # ``(f|c|r)(\d*)``, read without a regular expression
        if not colon or not state.startswith("MATCHSTATE:") or letter not in _LETTERS or not _digits(size):
            raise ValueError(f"not a MATCHSTATE answer ending in :f, :c or :r[N]: {line[:80]!r}")
        request_id, min_to, before = self._asked.get(state, (0, 0, 0))
        if letter == "f":
            return Reply(self.table, request_id, "fold", 0)
        if letter == "c":
            return Reply(self.table, request_id, "check_call", 0)
        if not self.no_limit:
            return Reply(self.table, request_id, "bet_raise", min_to)
        if not size:
            raise ValueError(f"a no-limit raise needs its size, the total for the hand (r<N>): {line[:80]!r}")
        return Reply(self.table, request_id, "bet_raise", int(size) - before)


_LETTERS: Final = ("f", "c", "r")


def _digits(text: str) -> bool:
    """Whether ``text`` is empty or all decimal digits (what ``\\d*`` matches: Unicode's too)."""
    return not text or text.isdecimal()


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

    def translate(self, items: list[AcpcItem]) -> list[tuple[int, bytes]]:
        """The items of a batch (``wire_json.acpc_items``) into (client, bytes to write now)."""
        touched: dict[int, AcpcView] = {}  # the clients the batch has items for
        due: dict[int, None] = {}  # those whose lines go out now
        last = -1  # the client of the item before (a table's items mostly come one after another)
        for item in items:
            kind = item.kind
            if kind == "goodbye":
                due.update(dict.fromkeys(range(len(self.views))))
                continue
            client = self._client(item)
            if client < 0:
                continue
            view = self.views[client]
            assert view is not None
            view.feed(item, self._held[client])
            if client != last:
                touched[client], last = view, client
            if kind == "request" or kind == "match_end":
                due[client] = None
        for client, view in touched.items():
            view.flush(self._held[client])
        out = []
        for client in due:
            held = self._held[client]
            if held:
                out.append((client, ("\r\n".join(held) + "\r\n").encode()))
                held.clear()
        return out

    def answer(self, client: int, raw: bytes) -> Reply | None:
        """A client's line as the reply to its state's request (``AcpcView.answer``), or None for a
        blank line or a comment (``#`` or ``;``, as the ACPC dealer allows). ValueError with a
        one-line reason when it is malformed, or comes before the client was sent any state."""
        line = raw.decode("utf-8", "replace").strip()
        if not line or line[0] in "#;":
            return None
        view = self.views[client]
        if view is None:
            raise ValueError("an answer before any state was sent")
        return view.answer(line)

    def _client(self, item: AcpcItem) -> int:
        """The client of the item's table (a free one is seated at its match's start), or -1 for an
        item of no table (welcome, notices: ACPC has none) or of a table no client has."""
        table = item.table
        client = self._by_table.get(table, -1)
        if client < 0 and item.kind == "match_start" and self._seated < len(self.views):
            client, self._seated = self._seated, self._seated + 1
            self._by_table[table] = client
            self.views[client] = AcpcView(table, self.no_limit)
        return client
