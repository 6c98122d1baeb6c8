from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_TYPE_UNSPECIFIED: _ClassVar[ActionType]
    ACTION_TYPE_FOLD: _ClassVar[ActionType]
    ACTION_TYPE_CHECK_CALL: _ClassVar[ActionType]
    ACTION_TYPE_BET_RAISE: _ClassVar[ActionType]

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_NO_LIMIT: _ClassVar[Variant]
    VARIANT_POT_LIMIT: _ClassVar[Variant]
    VARIANT_FIXED_LIMIT: _ClassVar[Variant]

class Street(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STREET_UNSPECIFIED: _ClassVar[Street]
    STREET_PREFLOP: _ClassVar[Street]
    STREET_FLOP: _ClassVar[Street]
    STREET_TURN: _ClassVar[Street]
    STREET_RIVER: _ClassVar[Street]

class MatchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_MODE_UNSPECIFIED: _ClassVar[MatchMode]
    MATCH_MODE_RESET: _ClassVar[MatchMode]
    MATCH_MODE_FREEZEOUT: _ClassVar[MatchMode]

class MatchVariant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_VARIANT_UNSPECIFIED: _ClassVar[MatchVariant]
    MATCH_VARIANT_NO_LIMIT: _ClassVar[MatchVariant]
    MATCH_VARIANT_POT_LIMIT: _ClassVar[MatchVariant]
    MATCH_VARIANT_FIXED_LIMIT: _ClassVar[MatchVariant]
    MATCH_VARIANT_MIXED: _ClassVar[MatchVariant]

class EventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_TYPE_UNSPECIFIED: _ClassVar[EventType]
    EVENT_TYPE_ANTE: _ClassVar[EventType]
    EVENT_TYPE_SMALL_BLIND: _ClassVar[EventType]
    EVENT_TYPE_BIG_BLIND: _ClassVar[EventType]
    EVENT_TYPE_FOLD: _ClassVar[EventType]
    EVENT_TYPE_CHECK: _ClassVar[EventType]
    EVENT_TYPE_CALL: _ClassVar[EventType]
    EVENT_TYPE_BET: _ClassVar[EventType]
    EVENT_TYPE_RAISE: _ClassVar[EventType]
    EVENT_TYPE_BOARD: _ClassVar[EventType]
    EVENT_TYPE_RETURNED: _ClassVar[EventType]

class FaultReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_REASON_UNSPECIFIED: _ClassVar[FaultReason]
    FAULT_REASON_TIMEOUT: _ClassVar[FaultReason]
    FAULT_REASON_ILLEGAL_ACTION: _ClassVar[FaultReason]
    FAULT_REASON_UNEXPECTED_REPLY: _ClassVar[FaultReason]
    FAULT_REASON_PROTOCOL: _ClassVar[FaultReason]
    FAULT_REASON_DISQUALIFIED: _ClassVar[FaultReason]
ACTION_TYPE_UNSPECIFIED: ActionType
ACTION_TYPE_FOLD: ActionType
ACTION_TYPE_CHECK_CALL: ActionType
ACTION_TYPE_BET_RAISE: ActionType
VARIANT_UNSPECIFIED: Variant
VARIANT_NO_LIMIT: Variant
VARIANT_POT_LIMIT: Variant
VARIANT_FIXED_LIMIT: Variant
STREET_UNSPECIFIED: Street
STREET_PREFLOP: Street
STREET_FLOP: Street
STREET_TURN: Street
STREET_RIVER: Street
MATCH_MODE_UNSPECIFIED: MatchMode
MATCH_MODE_RESET: MatchMode
MATCH_MODE_FREEZEOUT: MatchMode
MATCH_VARIANT_UNSPECIFIED: MatchVariant
MATCH_VARIANT_NO_LIMIT: MatchVariant
MATCH_VARIANT_POT_LIMIT: MatchVariant
MATCH_VARIANT_FIXED_LIMIT: MatchVariant
MATCH_VARIANT_MIXED: MatchVariant
EVENT_TYPE_UNSPECIFIED: EventType
EVENT_TYPE_ANTE: EventType
EVENT_TYPE_SMALL_BLIND: EventType
EVENT_TYPE_BIG_BLIND: EventType
EVENT_TYPE_FOLD: EventType
EVENT_TYPE_CHECK: EventType
EVENT_TYPE_CALL: EventType
EVENT_TYPE_BET: EventType
EVENT_TYPE_RAISE: EventType
EVENT_TYPE_BOARD: EventType
EVENT_TYPE_RETURNED: EventType
FAULT_REASON_UNSPECIFIED: FaultReason
FAULT_REASON_TIMEOUT: FaultReason
FAULT_REASON_ILLEGAL_ACTION: FaultReason
FAULT_REASON_UNEXPECTED_REPLY: FaultReason
FAULT_REASON_PROTOCOL: FaultReason
FAULT_REASON_DISQUALIFIED: FaultReason

class BotMessage(_message.Message):
    __slots__ = ("hello", "actions")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    actions: _containers.RepeatedCompositeFieldContainer[ActionReply]
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., actions: _Optional[_Iterable[_Union[ActionReply, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "name", "version", "protocol_version")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    version: str
    protocol_version: int
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("table", "request_id", "type", "amount", "strategy")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    table: int
    request_id: int
    type: ActionType
    amount: int
    strategy: _containers.RepeatedCompositeFieldContainer[ActionProbability]
    def __init__(self, table: _Optional[int] = ..., request_id: _Optional[int] = ..., type: _Optional[_Union[ActionType, str]] = ..., amount: _Optional[int] = ..., strategy: _Optional[_Iterable[_Union[ActionProbability, _Mapping]]] = ...) -> None: ...

class ActionProbability(_message.Message):
    __slots__ = ("type", "amount", "probability")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    type: ActionType
    amount: int
    probability: float
    def __init__(self, type: _Optional[_Union[ActionType, str]] = ..., amount: _Optional[int] = ..., probability: _Optional[float] = ...) -> None: ...

class DealerMessage(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Item]
    def __init__(self, items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ...) -> None: ...

class Item(_message.Message):
    __slots__ = ("table", "welcome", "match_start", "hand_start", "event", "request", "hand_end", "match_end", "notice", "goodbye")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    HAND_START_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    HAND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    table: int
    welcome: Welcome
    match_start: MatchStart
    hand_start: HandStart
    event: Event
    request: ActionRequest
    hand_end: HandEnd
    match_end: MatchEnd
    notice: Notice
    goodbye: Goodbye
    def __init__(self, table: _Optional[int] = ..., welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., hand_start: _Optional[_Union[HandStart, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ..., request: _Optional[_Union[ActionRequest, _Mapping]] = ..., hand_end: _Optional[_Union[HandEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("name", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    protocol_version: int
    def __init__(self, name: _Optional[str] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "seat", "players", "hands", "mode", "variant_name", "starting_stack", "per_action_ms", "bank_ms", "match_mode", "variant")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_NAME_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    PER_ACTION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MATCH_MODE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    players: _containers.RepeatedScalarFieldContainer[str]
    hands: int
    mode: str
    variant_name: str
    starting_stack: int
    per_action_ms: int
    bank_ms: int
    match_mode: MatchMode
    variant: MatchVariant
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., hands: _Optional[int] = ..., mode: _Optional[str] = ..., variant_name: _Optional[str] = ..., starting_stack: _Optional[int] = ..., per_action_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., match_mode: _Optional[_Union[MatchMode, str]] = ..., variant: _Optional[_Union[MatchVariant, str]] = ...) -> None: ...

class HandStart(_message.Message):
    __slots__ = ("hand", "button", "seat", "hole_cards", "stacks", "variant", "small_blind", "big_blind", "ante", "small_bet", "big_bet", "cap")
    HAND_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HOLE_CARDS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SMALL_BLIND_FIELD_NUMBER: _ClassVar[int]
    BIG_BLIND_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    CAP_FIELD_NUMBER: _ClassVar[int]
    hand: int
    button: int
    seat: int
    hole_cards: _containers.RepeatedScalarFieldContainer[str]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    variant: Variant
    small_blind: int
    big_blind: int
    ante: int
    small_bet: int
    big_bet: int
    cap: int
    def __init__(self, hand: _Optional[int] = ..., button: _Optional[int] = ..., seat: _Optional[int] = ..., hole_cards: _Optional[_Iterable[str]] = ..., stacks: _Optional[_Iterable[int]] = ..., variant: _Optional[_Union[Variant, str]] = ..., small_blind: _Optional[int] = ..., big_blind: _Optional[int] = ..., ante: _Optional[int] = ..., small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., cap: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("type", "seat", "amount", "to", "all_in", "cards", "street", "hand")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    type: EventType
    seat: int
    amount: int
    to: int
    all_in: bool
    cards: _containers.RepeatedScalarFieldContainer[str]
    street: Street
    hand: int
    def __init__(self, type: _Optional[_Union[EventType, str]] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., to: _Optional[int] = ..., all_in: _Optional[bool] = ..., cards: _Optional[_Iterable[str]] = ..., street: _Optional[_Union[Street, str]] = ..., hand: _Optional[int] = ...) -> None: ...

class ActionRequest(_message.Message):
    __slots__ = ("request_id", "hand", "street", "seat", "hole_cards", "board", "stacks", "bets", "folded", "pot", "can_fold", "call_amount", "min_raise_to", "max_raise_to", "time_ms", "bank_ms", "variant", "big_blind", "button", "decision_seed")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HOLE_CARDS_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    BETS_FIELD_NUMBER: _ClassVar[int]
    FOLDED_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    CAN_FOLD_FIELD_NUMBER: _ClassVar[int]
    CALL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    MIN_RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    MAX_RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    BIG_BLIND_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    DECISION_SEED_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    hand: int
    street: Street
    seat: int
    hole_cards: _containers.RepeatedScalarFieldContainer[str]
    board: _containers.RepeatedScalarFieldContainer[str]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    bets: _containers.RepeatedScalarFieldContainer[int]
    folded: _containers.RepeatedScalarFieldContainer[bool]
    pot: int
    can_fold: bool
    call_amount: int
    min_raise_to: int
    max_raise_to: int
    time_ms: int
    bank_ms: int
    variant: Variant
    big_blind: int
    button: int
    decision_seed: int
    def __init__(self, request_id: _Optional[int] = ..., hand: _Optional[int] = ..., street: _Optional[_Union[Street, str]] = ..., seat: _Optional[int] = ..., hole_cards: _Optional[_Iterable[str]] = ..., board: _Optional[_Iterable[str]] = ..., stacks: _Optional[_Iterable[int]] = ..., bets: _Optional[_Iterable[int]] = ..., folded: _Optional[_Iterable[bool]] = ..., pot: _Optional[int] = ..., can_fold: _Optional[bool] = ..., call_amount: _Optional[int] = ..., min_raise_to: _Optional[int] = ..., max_raise_to: _Optional[int] = ..., time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., variant: _Optional[_Union[Variant, str]] = ..., big_blind: _Optional[int] = ..., button: _Optional[int] = ..., decision_seed: _Optional[int] = ...) -> None: ...

class ShownHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Pot(_message.Message):
    __slots__ = ("amount", "winners", "shares")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    amount: int
    winners: _containers.RepeatedScalarFieldContainer[int]
    shares: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, amount: _Optional[int] = ..., winners: _Optional[_Iterable[int]] = ..., shares: _Optional[_Iterable[int]] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("hand", "shown", "pots", "stacks", "net", "board", "rake")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    POTS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    RAKE_FIELD_NUMBER: _ClassVar[int]
    hand: int
    shown: _containers.RepeatedCompositeFieldContainer[ShownHand]
    pots: _containers.RepeatedCompositeFieldContainer[Pot]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    net: _containers.RepeatedScalarFieldContainer[int]
    board: _containers.RepeatedScalarFieldContainer[str]
    rake: int
    def __init__(self, hand: _Optional[int] = ..., shown: _Optional[_Iterable[_Union[ShownHand, _Mapping]]] = ..., pots: _Optional[_Iterable[_Union[Pot, _Mapping]]] = ..., stacks: _Optional[_Iterable[int]] = ..., net: _Optional[_Iterable[int]] = ..., board: _Optional[_Iterable[str]] = ..., rake: _Optional[int] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "net", "hands")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    net: _containers.RepeatedScalarFieldContainer[int]
    hands: int
    def __init__(self, match_id: _Optional[str] = ..., net: _Optional[_Iterable[int]] = ..., hands: _Optional[int] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("reason", "detail", "request_id")
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    reason: FaultReason
    detail: str
    request_id: int
    def __init__(self, reason: _Optional[_Union[FaultReason, str]] = ..., detail: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...
