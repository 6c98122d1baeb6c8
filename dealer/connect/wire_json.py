"""The stdio bots' JSON lines (docs/bots-stdio.md): the items of a batch, and the replies, as JSON
text. The same edge as ``dealer.connect.wire`` (the generated classes stay here and there): a batch's
framed items become one object per item, and a reply line becomes an ActionReply, with a one-line
reason for every malformed one (the bot's ``protocol`` fault).
"""

from __future__ import annotations

from typing import Final

import orjson

from dealer.connect.wire import ACTION_TYPES
from poker.v1 import dealer_pb2 as pb


def _enum_names(prefix: str, enum: object) -> dict[int, str]:
    """An enum's values by number, as the stdio contract names them: lower case, prefix dropped."""
    return {number: name[len(prefix) :].lower() for name, number in enum.items()}  # type: ignore[attr-defined]


_JSON_VARIANTS = _enum_names("VARIANT_", pb.Variant)
_JSON_STREETS = _enum_names("STREET_", pb.Street)
_JSON_EVENTS = _enum_names("EVENT_TYPE_", pb.EventType)
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
    (the ACPC bridge reads fewer fields: ``acpc_item_dicts``)."""
    out: list[dict[str, object]] = []
    for item in pb.DealerMessage.FromString(batch).items:
        kind = item.WhichOneof("kind")
        assert kind is not None
        out.append({"type": kind, "table": item.table, kind: _json_body(kind, item)})
    return out


_STRINGS: Final = {"hand_start": 4, "match_start": 3}
_KINDS: Final = {2: "welcome", 3: "match_start", 4: "hand_start", 5: "event", 6: "request", 7: "hand_end",
                  8: "match_end", 9: "notice", 10: "goodbye"}  # Item's oneof by field number  # fmt: skip


def _varint_at(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``at`` and where it ends."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(data: bytes, at: int, end: int) -> list[tuple[int, int, int]]:
    """The fields of the message in ``data[at:end]``, as (number, value, -1) for a varint and
    (number, start, end) for a length-delimited field; fixed-size fields are skipped."""
    out: list[tuple[int, int, int]] = []
    while at < end:
        key, at = _varint_at(data, at)
        kind = key & 7
        if kind == 0:
            value, at = _varint_at(data, at)
            out.append((key >> 3, value, -1))
        elif kind == 2:
            size, at = _varint_at(data, at)
            out.append((key >> 3, at, at + size))
            at += size
        elif kind == 1 or kind == 5:
            at += 8 if kind == 1 else 4
        else:
            raise ValueError(f"protobuf wire type {kind} at byte {at}")
    return out


def _int64(value: int) -> int:
    """A varint read as int64 (a negative one is its 64-bit two's complement)."""
    return value - _UINT64 if value >= _INT64 else value


def _acpc_body(kind: str, data: bytes, at: int, end: int) -> dict[str, object]:
    """The fields the ACPC bridge reads of an item's ``kind`` message in ``data[at:end]``."""
    if kind == "event":
        event: dict[str, object] = {"type": _JSON_EVENTS[0], "seat": 0, "to": 0}
        cards: list[str] = []
        for number, value, stop in _fields(data, at, end):
            if number == 1:
                event["type"] = _JSON_EVENTS[value]
            elif number == 2:
                event["seat"] = value
            elif number == 4:
                event["to"] = _int64(value)
            elif number == 6:
                cards.append(data[value:stop].decode())
        event["cards"] = cards
        return event
    if kind == "request":
        request_id = min_raise_to = 0
        for number, value, _ in _fields(data, at, end):
            if number == 1:
                request_id = value
            elif number == 13:
                min_raise_to = _int64(value)
        return {"request_id": request_id, "min_raise_to": min_raise_to}
    strings = _STRINGS.get(kind, 0)  # the field of the repeated strings read (hole_cards, players)
    numbers: dict[int, int] = {}
    texts: list[str] = []
    shown: list[dict[str, object]] = []
    for number, value, stop in _fields(data, at, end):
        if stop < 0:
            numbers[number] = value
        elif kind == "hand_end" and number == 2:
            shown.append(_shown(data, value, stop))
        elif number == strings:
            texts.append(data[value:stop].decode())
    if kind == "hand_start":
        return {"hand": numbers.get(1, 0), "button": numbers.get(2, 0), "hole_cards": texts}
    if kind == "hand_end":
        return {"shown": shown}
    if kind == "match_start":
        return {"seat": numbers.get(2, 0), "players": texts}
    return {}


def _shown(data: bytes, at: int, end: int) -> dict[str, object]:
    """A ShownHand's seat and cards."""
    seat, cards = 0, []
    for number, value, stop in _fields(data, at, end):
        if number == 1 and stop < 0:
            seat = value
        elif number == 2:
            cards.append(data[value:stop].decode())
    return {"seat": seat, "cards": cards}


def acpc_item_dicts(batch: bytes) -> list[dict[str, object]]:
    """``item_dicts`` with only the fields the ACPC bridge reads (``dealer.connect.acpc_view``): a
    request's id and minimum raise, an event's type, seat, total and cards, a hand's number, button
    and hole cards, the cards shown, the seats. Read from the wire bytes directly (as
    ``dealer.connect.wire`` writes them), not through protobuf objects: every decision's batch is
    translated so, and the objects' attributes cost more than the rest of the bridge's work."""
    out: list[dict[str, object]] = []
    for number, at, end in _fields(batch, 0, len(batch)):
        if number != 1 or end < 0:
            continue
        table, kind, body = 0, "", {}
        for field, value, stop in _fields(batch, at, end):
            if field == 1 and stop < 0:
                table = value
            elif stop >= 0 and field in _KINDS:
                kind = _KINDS[field]
                body = _acpc_body(kind, batch, value, stop)
        if not kind:
            raise ValueError("an Item holding none of its kinds")
        out.append({"type": kind, "table": table, kind: body})
    return out


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


def reply_message(replies: list[tuple[int, int, str, int]]) -> pb.BotMessage:
    """Replies (table, request_id, action name as in the stdio contract, amount) as one BotMessage."""
    return pb.BotMessage(
        actions=[
            pb.ActionReply(table=table, request_id=request_id, type=ACTION_TYPES[action], amount=amount)
            for table, request_id, action, amount in replies
        ]
    )
