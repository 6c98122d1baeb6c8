"""One ACPC seat's view of a table (``dealer.connect.acpc_view``): items into MATCHSTATE lines,
checked on the ACPC protocol's own worked example, and answers back into replies. No I/O, so it also
runs on the plain source (``make test-pure``).
"""

from __future__ import annotations

import re

import pytest

from dealer.connect.acpc_view import ASKED_KEPT, AcpcItem, AcpcSeats, AcpcView
from dealer.connect.wire import Reply


def item(table: int, kind: str, **fields: object) -> AcpcItem:
    made = AcpcItem(kind, table)
    for name, value in fields.items():
        setattr(made, name, value)
    return made


def fields(reply: Reply) -> tuple[int, int, str, int]:
    return reply.table, reply.request_id, reply.action, reply.amount


def event(kind: str, seat: int, to: int = 0, cards: tuple[str, ...] = (), table: int = 1) -> AcpcItem:
    return item(table, "event", event=kind, seat=seat, to=to, cards=list(cards))


def test_items_become_the_protocol_examples_states_and_answers_become_replies() -> None:
    """The protocol's limit example: position 0 (the big blind heads-up) holds TdAs."""
    view, out = AcpcView(1, no_limit=False), []
    for it in (
        item(1, "match_start", seat=0, players=2),
        item(1, "hand_start", hand=0, button=1, cards=["Td", "As"]),
        event("small_blind", 1, 50),
        event("big_blind", 0, 100),
    ):
        view.feed(it, out)
    view.flush(out)
    view.feed(event("raise", 1, 200), out)
    view.feed(item(1, "request", request_id=7, min_raise_to=300), out)
    assert out == ["MATCHSTATE:0:0::TdAs|", "MATCHSTATE:0:0:r:TdAs|"]
    assert fields(view.answer("MATCHSTATE:0:0:r:TdAs|:r")) == (1, 7, "bet_raise", 300)
    for it in (event("raise", 0, 300), event("call", 1, 300), event("board", 0, cards=("2c", "8c", "3h"))):
        view.feed(it, out)
    view.flush(out)
    assert out[2:] == ["MATCHSTATE:0:0:rr:TdAs|", "MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h"]
    view.feed(item(1, "request", request_id=8, min_raise_to=100), out)
    assert fields(view.answer("MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h:c")) == (1, 8, "check_call", 0)
    assert view.answer("MATCHSTATE:0:0:r:TdAs|:f").request_id == 7  # a late answer names its request
    assert view.answer("MATCHSTATE:0:0:rrcc/:TdAs|:c").request_id == 0  # a state that asked nothing
    view.feed(event("check", 0), out)
    view.feed(event("bet", 1, 100), out)
    view.feed(event("fold", 0), out)
    view.feed(item(1, "hand_end", shown=[]), out)
    assert out[4:] == [
        "MATCHSTATE:0:0:rrc/c:TdAs|/2c8c3h",
        "MATCHSTATE:0:0:rrc/cr:TdAs|/2c8c3h",
        "MATCHSTATE:0:0:rrc/crf:TdAs|/2c8c3h",
    ]
    for bad in ("MATCHSTATE:0:0:r:TdAs|", "MATCHSTATE:0:0:r:TdAs|:x", "hello:c", "MATCHSTATE:0:0:r:TdAs|:r1x"):
        with pytest.raises(ValueError):
            view.answer(bad)


def test_no_limit_sizes_are_totals_for_the_hand_and_showdown_cards_are_revealed() -> None:
    view, out = AcpcView(4, no_limit=True), []
    for it in (
        item(4, "match_start", seat=1, players=3),
        item(4, "hand_start", hand=3, button=0, cards=["Ah", "Kh"]),
        event("small_blind", 1, 50),
        event("big_blind", 2, 100),
        event("raise", 0, 300),
        event("call", 1, 300),
        event("call", 2, 300),
        event("board", 0, cards=("2c", "3c", "4c")),
    ):
        view.feed(it, out)
    view.feed(item(4, "request", request_id=2, min_raise_to=100), out)
    assert out[-1] == "MATCHSTATE:0:3:r300cc/:AhKh||/2c3c4c"  # seat 1 is position 0, the small blind
    assert fields(view.answer("MATCHSTATE:0:3:r300cc/:AhKh||/2c3c4c:r700")) == (4, 2, "bet_raise", 400)
    with pytest.raises(ValueError, match="needs its size"):
        view.answer("MATCHSTATE:0:3:r300cc/:AhKh||/2c3c4c:r")
    for it in (
        event("bet", 1, 400),
        event("fold", 2),
        event("raise", 0, 1200),
        event("call", 1, 1200),
        event("board", 0, cards=("9d",)),
        event("board", 0, cards=("Td",)),
    ):
        view.feed(it, out)
    view.feed(item(4, "hand_end", shown=[(0, ["Qs", "Qd"]), (1, ["Ah", "Kh"])]), out)
    assert out[-1] == "MATCHSTATE:0:3:r300cc/r700fr1500c//:AhKh||QsQd/2c3c4c/9d/Td"


def test_a_views_position_follows_the_button_hand_after_hand_and_each_hands_chips_start_afresh() -> None:
    """Three-handed no-limit, table seat 1, buttons 0, 1, 2, 0: its position is (seat - button - 1) mod 3
    at every hand (the button's positions are remembered, the same for a button seen again), and a
    raise's size is the total for the hand, this hand's chips only."""
    view, out = AcpcView(4, no_limit=True), []
    view.feed(item(4, "match_start", seat=1, players=3), out)
    for hand, button in enumerate((0, 1, 2, 0)):
        view.feed(item(4, "hand_start", hand=hand, button=button, cards=["Ah", "Kh"]), out)
        sb, bb = (button + 1) % 3, (button + 2) % 3
        for it in (
            event("small_blind", sb, 50, table=4),
            event("big_blind", bb, 100, table=4),
            event("raise", button, 300 + hand, table=4),
            event("call", sb, 300 + hand, table=4),
            event("call", bb, 300 + hand, table=4),
            event("board", 0, cards=("2c", "3c", "4c"), table=4),
            event("bet", sb, 100, table=4),
        ):
            view.feed(it, out)
        view.feed(item(4, "request", request_id=hand + 1, min_raise_to=200), out)
        position = (1 - button - 1) % 3
        holes = "|".join("AhKh" if p == position else "" for p in range(3))
        assert out[-1] == f"MATCHSTATE:{position}:{hand}:r{300 + hand}cc/r{400 + hand}:{holes}/2c3c4c"
        reply = view.answer(f"{out[-1]}:r{1000 + hand}")
        assert fields(reply) == (4, hand + 1, "bet_raise", 700), (hand, reply)  # the total less the pre-flop chips
        view.feed(item(4, "hand_end", shown=[]), out)


def test_seats_send_a_tables_lines_when_it_asks_and_seat_clients_in_order_of_match_start() -> None:
    """A bot's clients are seated at tables in the order their matches start (a table beyond the
    clients, or an item of a table never started, is ignored); a client is sent its lines, in one
    piece, when its table has a request or its match ends, or at the goodbye."""
    seats = AcpcSeats(2, no_limit=False)

    def deal(table: int) -> list[AcpcItem]:
        return [
            item(table, "match_start", seat=0, players=2),
            item(table, "hand_start", hand=0, button=1, cards=["Td", "As"]),
            event("small_blind", 1, 50, table=table),
            event("big_blind", 0, 100, table=table),
        ]

    first = seats.translate([*deal(9), *deal(7), item(9, "request", request_id=1, min_raise_to=200)])
    assert first == [(0, b"MATCHSTATE:0:0::TdAs|\r\n")]  # table 9 asks; table 7 (client 1) waits
    assert seats.translate([*deal(5), event("raise", 1, 200, table=4)]) == []  # no client, no table
    assert seats.translate([event("raise", 1, 200, table=7), item(7, "match_end")]) == [
        (1, b"MATCHSTATE:0:0::TdAs|\r\nMATCHSTATE:0:0:r:TdAs|\r\n")
    ]
    assert seats.translate([event("call", 0, 100, table=9), item(0, "goodbye")]) == [(0, b"MATCHSTATE:0:0:c:TdAs|\r\n")]
    assert [view.table if view else None for view in seats.views] == [9, 7]


def test_seats_read_a_clients_line_as_its_reply_and_skip_comments() -> None:
    """A client's raw line: an answer becomes the reply to its state's request; blank lines and
    comments are nothing; a line before the client was sent any state, or no answer, is refused."""
    seats = AcpcSeats(2, no_limit=False)
    seats.translate(
        [
            item(3, "match_start", seat=0, players=2),
            item(3, "hand_start", hand=0, button=1, cards=["Td", "As"]),
            event("small_blind", 1, 50, table=3),
            event("big_blind", 0, 100, table=3),
            item(3, "request", request_id=4, min_raise_to=200),
        ]
    )
    answer = seats.answer(0, b"MATCHSTATE:0:0::TdAs|:r\r\n")
    assert answer is not None and fields(answer) == (3, 4, "bet_raise", 200)
    assert seats.answer(0, b"# thinking\n") is None and seats.answer(0, b";\n") is None
    assert seats.answer(0, b"  \r\n") is None
    with pytest.raises(ValueError, match="before any state"):
        seats.answer(1, b"MATCHSTATE:0:0::TdAs|:c\n")
    with pytest.raises(ValueError, match="not a MATCHSTATE answer"):
        seats.answer(0, b"MATCHSTATE:0:0::TdAs|:x\n")


def _asked_view(states: int) -> AcpcView:
    """A view that has been asked ``states`` states of one hand (request ids 1, 2, ...)."""
    view, out = AcpcView(2, no_limit=False), []
    view.feed(item(2, "match_start", seat=0, players=2), out)
    view.feed(item(2, "hand_start", hand=0, button=1, cards=["Td", "As"]), out)
    for n in range(1, states + 1):
        view.feed(event("check", 1 - n % 2, table=2), out)
        view.feed(item(2, "request", request_id=n, min_raise_to=200), out)
    return view


def test_the_last_asked_kept_states_are_remembered_and_an_older_one_is_a_stray() -> None:
    """Past ASKED_KEPT states the oldest is forgotten (its late answer then names no request), in
    the order they were asked; asking a remembered state again keeps every other."""
    view = _asked_view(ASKED_KEPT + 3)
    ids = [view.answer(f"MATCHSTATE:0:0:{'c' * n}:TdAs|:c").request_id for n in range(1, ASKED_KEPT + 4)]
    assert ids == [0, 0, 0, *range(4, ASKED_KEPT + 4)]
    view = _asked_view(ASKED_KEPT)
    view.feed(item(2, "request", request_id=99, min_raise_to=200), [])  # the last state asked again
    assert view.answer(f"MATCHSTATE:0:0:{'c' * ASKED_KEPT}:TdAs|:c").request_id == 99
    assert view.answer("MATCHSTATE:0:0:c:TdAs|:c").request_id == 1  # nothing forgotten for it


@pytest.mark.parametrize(
    "action",
    [
        "f",
        "c",
        "r",
        "r250",
        "c7",
        "f0",
        "r\u0663\u0660\u0660",
        "",
        "x",
        "R2",
        "r-1",
        "r+1",
        "r1x",
        "rr",
        "r 1",
        "\u0663",
    ],
)
def test_an_answers_action_is_read_as_the_protocols_pattern_reads_it(action: str) -> None:
    """``(f|c|r)(\\d*)``, Unicode's decimal digits included (a size is then read as int reads it):
    accepted and refused exactly as the regular expression did."""
    view = _asked_view(1)
    line = f"MATCHSTATE:0:0:c:TdAs|:{action}"
    expected = re.fullmatch(r"(f|c|r)(\d*)", action)
    if expected is None:
        with pytest.raises(ValueError, match="not a MATCHSTATE answer"):
            view.answer(line)
        return
    letter, size = expected.groups()
    reply = view.answer(line)
    assert reply.request_id == 1
    assert (reply.action, reply.amount) == {"f": ("fold", 0), "c": ("check_call", 0), "r": ("bet_raise", 200)}[letter]
    no_limit = AcpcView(2, no_limit=True)
    if letter == "r" and size:
        assert no_limit.answer(line).amount == int(size)
