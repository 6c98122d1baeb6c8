"""The stdio bots' JSON lines (docs/bots-stdio.md): the items of a batch, and the replies, as JSON
text. The same edge as ``dealer.connect.wire`` (the generated classes stay here and there): a batch's
framed items become one object per item, and a reply line becomes an ActionReply, with a one-line
reason for every malformed one (the bot's ``protocol`` fault).
"""

from __future__ import annotations

from typing import Final

import orjson

from dealer.connect.acpc_view import AcpcItem
from dealer.connect.wire import ACTION_TYPES
from poker.v1 import dealer_pb2 as pb


def _enum_names(prefix: str, enum: object) -> dict[int, str]:
    """An enum's values by number, as the stdio contract names them: lower case, prefix dropped."""
    return {number: name[len(prefix) :].lower() for name, number in enum.items()}  # type: ignore[attr-defined]


_JSON_VARIANTS = _enum_names("VARIANT_", pb.Variant)
_JSON_STREETS = _enum_names("STREET_", pb.Street)
_JSON_EVENTS: Final = _enum_names("EVENT_TYPE_", pb.EventType)
_JSON_REASONS = _enum_names("FAULT_REASON_", pb.FaultReason)
_UINT64, _INT64 = 1 << 64, 1 << 63


def _json_body(kind: str, item: pb.Item) -> dict[str, object]:
    """The fields of the item's ``kind`` message under their proto names, every field present."""
    if kind == "request":
        r = item.request
        return {
            "request_id": r.request_id, "hand": r.hand, "street": _JSON_STREETS[r.street], "seat": r.seat,
            "hole_cards": list(r.hole_cards), "board": list(r.board), "stacks": list(r.stacks), "bets": list(r.bets),
            "folded": list(r.folded), "pot": r.pot, "can_fold": r.can_fold, "call_amount": r.call_amount,
            "min_raise_to": r.min_raise_to, "max_raise_to": r.max_raise_to, "time_ms": r.time_ms,
            "bank_ms": r.bank_ms, "variant": _JSON_VARIANTS[r.variant], "big_blind": r.big_blind,
            "button": r.button, "decision_seed": r.decision_seed,
        }  # fmt: skip
    if kind == "event":
        e = item.event
        return {
            "type": _JSON_EVENTS[e.type],
            "seat": e.seat,
            "amount": e.amount,
            "to": e.to,
            "all_in": e.all_in,
            "cards": list(e.cards),
            "street": _JSON_STREETS[e.street],
            "hand": e.hand,
        }
    if kind == "hand_start":
        s = item.hand_start
        return {
            "hand": s.hand, "button": s.button, "seat": s.seat, "hole_cards": list(s.hole_cards),
            "stacks": list(s.stacks), "variant": _JSON_VARIANTS[s.variant], "small_blind": s.small_blind,
            "big_blind": s.big_blind, "ante": s.ante, "small_bet": s.small_bet, "big_bet": s.big_bet, "cap": s.cap,
        }  # fmt: skip
    if kind == "hand_end":
        h = item.hand_end
        return {
            "hand": h.hand, "shown": [{"seat": x.seat, "cards": list(x.cards)} for x in h.shown],
            "pots": [{"amount": p.amount, "winners": list(p.winners), "shares": list(p.shares)} for p in h.pots],
            "stacks": list(h.stacks), "net": list(h.net), "board": list(h.board), "rake": h.rake,
        }  # fmt: skip
    if kind == "match_start":
        m = item.match_start
        return {
            "match_id": m.match_id, "seat": m.seat, "players": list(m.players), "hands": m.hands, "mode": m.mode,
            "variant_name": m.variant_name, "starting_stack": m.starting_stack, "per_action_ms": m.per_action_ms,
            "bank_ms": m.bank_ms,
        }  # fmt: skip
    if kind == "match_end":
        end = item.match_end
        return {"match_id": end.match_id, "net": list(end.net), "hands": end.hands}
    if kind == "notice":
        n = item.notice
        return {"reason": _JSON_REASONS[n.reason], "detail": n.detail, "request_id": n.request_id}
    if kind == "welcome":
        return {"name": item.welcome.name, "protocol_version": item.welcome.protocol_version}
    if kind == "goodbye":
        return {"reason": item.goodbye.reason}
    raise ValueError(f"no JSON form for an Item holding {kind!r}")


def item_dicts(batch: bytes) -> list[dict[str, object]]:
    """A serialized DealerMessage (a batch of framed items) as one object per item, ``{"type":
    <oneof name>, "table": T, <oneof name>: {fields}}``: the stdio lines before they are text
    (the ACPC bridge reads fewer fields: ``acpc_items``)."""
    out: list[dict[str, object]] = []
    for item in pb.DealerMessage.FromString(batch).items:
        kind = item.WhichOneof("kind")
        assert kind is not None
        out.append({"type": kind, "table": item.table, kind: _json_body(kind, item)})
    return out


_KINDS: Final = {2: "welcome", 3: "match_start", 4: "hand_start", 5: "event", 6: "request", 7: "hand_end",
                  8: "match_end", 9: "notice", 10: "goodbye"}  # Item's oneof by field number  # fmt: skip


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``data[at]``: its value and where what follows it starts (compiled, a pair of
    machine ints: no object per field)."""
    byte = data[at]
    if byte < 0x80:
        return byte, at + 1
    value, shift = byte & 0x7F, 7
    while True:
        at += 1
        byte = data[at]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at + 1
        shift += 7


def _field(data: bytes, at: int, end: int) -> tuple[int, int, int, int]:
    """The field at ``data[at]``, fixed-size ones skipped, up to ``end``: its number (0 when none is
    left), its value (a varint's, or where a length-delimited field's bytes start), its stop (-1 for
    a varint, else where its bytes end) and where the next field starts."""
    while at < end:
        key, at = _varint(data, at)
        kind = key & 7
        if kind == 0:
            value, after = _varint(data, at)
            return key >> 3, value, -1, after
        if kind == 2:
            size, at = _varint(data, at)
            return key >> 3, at, at + size, at + size
        if kind == 1 or kind == 5:
            at += 8 if kind == 1 else 4
            continue
        raise ValueError(f"protobuf wire type {kind} at byte {at}")
    return 0, 0, 0, at


def _int64(value: int) -> int:
    """A varint read as int64 (a negative one is its 64-bit two's complement)."""
    return value - _UINT64 if value >= _INT64 else value


def _event(item: AcpcItem, data: bytes, at: int, end: int) -> None:
    """An Event's type, seat, total and cards."""
    while True:
        number, value, stop, at = _field(data, at, end)
        if number == 0:
            return
        if number == 1:
            item.event = _JSON_EVENTS[value]
        elif number == 2:
            item.seat = value
        elif number == 4:
            item.to = _int64(value)
        elif number == 6:
            item.cards.append(data[value:stop].decode())


def _request(item: AcpcItem, data: bytes, at: int, end: int) -> None:
    """An ActionRequest's id and minimum raise-to (its other fields are stepped over)."""
    while True:
        number, value, _, at = _field(data, at, end)
        if number == 0:
            return
        if number == 1:
            item.request_id = value
        elif number == 13:
            item.min_raise_to = _int64(value)


def _other(item: AcpcItem, data: bytes, at: int, end: int) -> None:
    """A HandStart's number, button and hole cards, a HandEnd's cards shown, a MatchStart's seat and
    seat count; nothing of the other kinds."""
    kind = item.kind
    while True:
        number, value, stop, at = _field(data, at, end)
        if number == 0:
            return
        if kind == "hand_start":
            if number == 1 and stop < 0:
                item.hand = value
            elif number == 2 and stop < 0:
                item.button = value
            elif number == 4 and stop >= 0:
                item.cards.append(data[value:stop].decode())
        elif kind == "hand_end":
            if number == 2 and stop >= 0:
                item.shown.append(_shown(data, value, stop))
        elif kind == "match_start":
            if number == 2 and stop < 0:
                item.seat = value
            elif number == 3 and stop >= 0:
                item.players += 1


def _shown(data: bytes, at: int, end: int) -> tuple[int, list[str]]:
    """A ShownHand's seat and cards."""
    seat, cards = 0, list[str]()
    while True:
        number, value, stop, at = _field(data, at, end)
        if number == 0:
            return seat, cards
        if number == 1 and stop < 0:
            seat = value
        elif number == 2:
            cards.append(data[value:stop].decode())


def _item(batch: bytes, at: int, end: int) -> AcpcItem:
    """The Item in ``batch[at:end]``: its table and kind, and its kind's fields the bridge reads."""
    table, kind, body, stop = 0, "", 0, 0
    while True:
        number, value, field_stop, at = _field(batch, at, end)
        if number == 0:
            break
        if number == 1 and field_stop < 0:
            table = value
        elif field_stop >= 0 and number in _KINDS:
            kind, body, stop = _KINDS[number], value, field_stop
    if not kind:
        raise ValueError("an Item holding none of its kinds")
    item = AcpcItem(kind, table)
    if kind == "event":
        item.event = _JSON_EVENTS[0]  # proto3 leaves a zero off the wire
        _event(item, batch, body, stop)
    elif kind == "request":
        _request(item, batch, body, stop)
    else:
        _other(item, batch, body, stop)
    return item


def acpc_items(batch: bytes) -> list[AcpcItem]:
    """A serialized DealerMessage's items with only the fields the ACPC bridge reads
    (``dealer.connect.acpc_view.AcpcItem``): a request's id and minimum raise, an event's type,
    seat, total and cards, a hand's number, button and hole cards, the cards shown, the seats. Read
    from the wire bytes directly (as ``dealer.connect.wire`` writes them), not through protobuf
    objects: every decision's batch is translated so, and the objects' attributes cost more than
    the rest of the bridge's work. Each field is read by a function returning machine ints, with a
    reader per kind of item, not by a cursor object per message that tests the item's kind at
    every field."""
    out: list[AcpcItem] = []
    at, end = 0, len(batch)
    while True:
        number, value, stop, at = _field(batch, at, end)
        if number == 0:
            return out
        if number == 1 and stop >= 0:
            out.append(_item(batch, value, stop))


def json_lines(batch: bytes) -> bytes:
    """A batch of framed items as stdio lines: each ``item_dicts`` object as JSON, ending in a newline."""
    return b"".join([orjson.dumps(item, option=orjson.OPT_APPEND_NEWLINE) for item in item_dicts(batch)])


def _json_int(data: dict[str, object], key: str, low: int, high: int, default: int | None = None) -> int:
    """An integer field of a reply line within [low, high); ValueError saying which and why."""
    value = data.get(key, default)
    if type(value) is not int:
        raise ValueError(f'"{key}" must be an integer, not {orjson.dumps(value).decode()[:40]}')
    if not low <= value < high:
        raise ValueError(f'"{key}" {value} is out of range')
    return value


def _json_strategy(data: dict[str, object]) -> list[pb.ActionProbability]:
    """A reply line's optional ``"strategy"``: a list of ``{"action", "amount", "probability"}``;
    ValueError when its form is wrong (whether it makes sense is the dealer's check, as over gRPC)."""
    strategy = data.get("strategy", [])
    if not isinstance(strategy, list):
        raise ValueError('"strategy" must be a list of {"action", "amount", "probability"} objects')
    options = []
    for k, option in enumerate(strategy):
        if not isinstance(option, dict):
            raise ValueError(f'"strategy" option {k} is not an object')
        action = option.get("action")
        kind = ACTION_TYPES.get(action) if isinstance(action, str) else None
        if kind is None:
            raise ValueError(f'"strategy" option {k}: "action" must be "fold", "check_call" or "bet_raise"')
        probability = option.get("probability")
        if type(probability) is not float and type(probability) is not int:
            raise ValueError(f'"strategy" option {k}: "probability" must be a number')
        options.append(
            pb.ActionProbability(
                type=kind, amount=_json_int(option, "amount", -_INT64, _INT64, 0), probability=float(probability)
            )
        )
    return options


def _json_reply(line: bytes) -> pb.ActionReply:
    """One stdio reply line ``{"table", "request_id", "action", "amount"(, "strategy")}`` as an
    ActionReply; ValueError with a one-line reason when it is malformed (the bot's ``protocol`` fault)."""
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise ValueError(f"not a JSON line: {line[:60]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"not a JSON object: {line[:60]!r}")
    action = data.get("action")
    kind = ACTION_TYPES.get(action) if isinstance(action, str) else None
    if kind is None:
        given = orjson.dumps(action).decode()[:40]
        raise ValueError(f'"action" must be "fold", "check_call" or "bet_raise", not {given}')
    return pb.ActionReply(
        table=_json_int(data, "table", 0, _UINT64),
        request_id=_json_int(data, "request_id", 0, _UINT64),
        type=kind,
        amount=_json_int(data, "amount", -_INT64, _INT64, 0),
        strategy=_json_strategy(data),
    )


def json_replies(lines: list[bytes]) -> tuple[pb.BotMessage | None, list[str]]:
    """Reply lines read together as one BotMessage (None if none is well formed), and a one-line
    reason for each malformed line; blank lines are skipped."""
    replies, errors = [], []
    for line in lines:
        if line.strip():
            try:
                replies.append(_json_reply(line))
            except ValueError as error:
                errors.append(str(error))
    return (pb.BotMessage(actions=replies) if replies else None), errors
