"""One table of a match: deal, ask, apply, settle, hand after hand.

Bot answers drive play: each answer (or its time running out) is applied to the rules engine
and play goes on synchronously until a bot must answer, the hand ends or a seat needs seeing to,
with no task switch per decision or per hand. Hand ``h`` is dealt from the deck keyed
``<seed>/<deal_set>/<h>`` (``dealer.league.seeds.deal_key``), with the button at seat ``h % n``. A
timeout or an illegal answer: the dealer checks for the bot if it can, else folds (a fold when a
check is free is a check, not a fault); three timeouts in a row fail the seat. Each finished hand
goes to its history, to ``on_hand`` and, as a record, to ``on_record``. The table launches no
process: a seat in need (a lost connection, a restart) is the roster's (``dealer.league.roster``).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dealer.connect import wire
from dealer.connect.session import BotSession
from dealer.connect.wire import BET_RAISE, CHECK_CALL, FOLD, Reply
from dealer.engine.equity import adjusted_net
from dealer.engine.history import Fields, PhhsWriter, phh_text
from dealer.engine.rules import Acted, Hand, Legal, TableConfig, Variant
from dealer.engine.scheduler import Seating
from dealer.errors import IllegalActionError
from dealer.league.plan import MatchPlan
from dealer.league.seeds import SEEDS_PER_BLOCK, DecisionSeeds, deal_key, decision_key
from dealer.stats.aivat import Cache, Decision, chance_terms, decision_luck, read_strategy
from dealer.stats.faults import Fault
from dealer.stats.luck_features import luck_features
from dealer.stats.records import HandRecord, MatchResult
from dealer.stats.tilted_deals import dealt

if TYPE_CHECKING:  # the roster is passed in: the table imports nothing that launches a process
    from dealer.league.roster import Roster, Seat

STRIKES: Final = 3  # consecutive timeouts after which a bot is treated as failed
LOGGER: Final = logging.getLogger("dealer.league.match")  # the match's log, as before the table was a module of its own


class Table:
    """A table's state over the match and over the hand in play, and the play of its hands."""

    history: PhhsWriter  # its PHH file, written as hands end (from the start of ``play``: see ``started``)
    encoder: wire.HandWire  # the hand in play
    over: asyncio.Future[list[Seat]]  # what stopped play: see ``_deal``

    def __init__(
        self,
        plan: MatchPlan,
        index: int,
        seats: list[Seat],
        roster: Roster,
        result: MatchResult,
        *,
        secret: str,
        trusted: set[str],
        stopped: Callable[[], bool],
        on_record: Callable[[HandRecord], None],
        on_hand: Callable[[str, int, str], None] | None = None,
    ) -> None:
        """The plan's table ``index``, played by ``seats`` (by table seat). ``secret`` keys the deals;
        ``trusted``: bots whose reported strategies are used (shared by the match's tables);
        ``stopped``: whether the match stops after the hands in play; ``on_hand(deal_set, table,
        phh_text)`` sees each finished hand."""
        self.plan = plan
        self.spec: Seating = plan.tables[index]
        self.id = plan.first_table + index
        self.seats = seats
        self._sessions = [seat.session for seat in seats]  # by table seat: a seat keeps its session (a restart too)
        self._roster = roster
        self.result = result
        self.secret = secret
        self._decision_seeds = DecisionSeeds(decision_key(secret))
        self._weight = 1.0  # the current hand's weight (dealer.stats.tilted_deals)
        self._deal_point = ""  # the current hand's deal key: its decisions' seeds are keyed by it
        self._seed_blocks: list[list[int]] = []  # by engine seat, its current block of seeds (DecisionSeeds.block)
        self._seed_block_numbers: list[int] = []  # and that block's number (-1: none yet)
        self._trusted = trusted
        self._stopped = stopped
        self._on_record = on_record
        self._on_hand = on_hand
        self.chips = [plan.game.stack] * len(seats)  # by table seat, carried over between hands in freezeouts
        self.net = [0] * len(seats)  # by table seat, over the match
        self.started = False
        self.button = -1
        self.played = 0
        self.live: list[int] = []  # table seats dealt in, by engine seat
        self.decisions: dict[int, Decision] = {}  # known strategies by Acted record index
        # hands' configurations, made once, with what their hands encode alike (by stacks, button, stakes, seats;
        # by button alone where nothing else changes)
        self._configs: dict[object, tuple[TableConfig, wire.Kept]] = {}
        game, self._freezeout, self._restart = plan.game, plan.mode == "freezeout", plan.fault_policy == "restart"
        self._hands, self._attempt = plan.hands, plan.attempt  # what a deal reads of the plan, read once
        self._deals, self._deal_set, self._names = plan.deals, self.spec.deal_set, self.spec.seats
        self._luck, self._features, self._chip_unit = plan.luck, plan.features, plan.chip_unit  # and a hand's end
        varying = game.variant == "mixed" or (self._freezeout and plan.blind_levels)  # stakes that change by hand
        self._stakes = None if varying else (game.small_blind, game.big_blind, game.ante, str(game.variant))
        self._same_rules = self._stakes is not None and not self._freezeout  # every seat, stack and stake each hand
        time = game.time  # the clock's settings, read once here rather than at every decision
        self._per_action_ms, self._grace_ms = time.per_action_ms, time.grace_ms
        self._free_s = (time.per_action_ms + time.grace_ms - 0.5) / 1000  # answers sooner never touch the bank
        self._fields = Fields(self._phh_fields())  # our fields in its hands' PHH, checked and written once

    def _hand_config(self, number: int, live: list[int], button: int) -> tuple[TableConfig, wire.Kept]:
        """The rules of hand ``number`` with the table seats ``live`` dealt in and this button (an engine
        seat), and what its hands encode alike (``wire.Kept``)."""
        if self._same_rules:  # only the button changes
            found = self._configs.get(button)
            if found is not None:
                return found
        chips = self.chips
        stacks = tuple([chips[s] for s in live])
        stakes = self._stakes or self._hand_stakes(number, len(stacks))
        key: object = button if self._same_rules else (stacks, button, stakes, tuple(live))
        found = self._configs.get(key)
        if found is None:  # the same few configurations come back hand after hand: validate each once
            if len(self._configs) >= 4096:
                self._configs.clear()
            game, (small, big, ante, variant) = self.plan.game, stakes
            config = TableConfig(
                stacks=stacks,
                button=button,
                small_blind=small,
                big_blind=big,
                variant=Variant(variant),
                ante=ante,
                rake_bps=round(game.rake_percent * 100),
                rake_cap=game.rake_cap or None,
            )
            self._configs[key] = found = (config, wire.Kept())
        return found

    def _hand_stakes(self, number: int, seats: int) -> tuple[int, int, int, str]:
        """Hand ``number``'s small and big blind, ante and variant: the variant's block in mixed
        games, the blind level in freezeouts."""
        game = self.plan.game
        small, big, ante = game.small_blind, game.big_blind, game.ante
        variant: str = game.variant
        if variant == "mixed":
            assert game.mixed is not None
            block = game.mixed.block_hands or seats
            limit_block = (number // block) % 2 == 0
            variant = "fixed-limit" if limit_block else "no-limit"
            small, big = game.mixed.fixed_limit_blinds if limit_block else game.mixed.no_limit_blinds
        if self._freezeout and self.plan.blind_levels:
            level = min(number // max(self.plan.hands_per_level, 1), len(self.plan.blind_levels) - 1)
            small, big, ante = self.plan.blind_levels[level]
        return small, big, ante, variant

    async def play(self, folder: Path) -> None:
        """Play the table's hands, its history written into ``folder``: bot answers drive play
        (``_advance``), from hand to hand, and this task only sees to lost connections and restarts
        between hands."""
        spec = self.spec
        game = self.plan.game
        for s, seat in enumerate(self.seats):
            start = wire.match_start(
                self.id,
                self.plan.match_id,
                s,
                spec.seats,
                self.plan.hands,
                self.plan.mode,
                game.variant,
                game.stack,
                game.time.per_action_ms,
                game.time.bank_ms,
            )
            seat.match_starts.append(start)
            seat.session.send_framed(start)
        self.history = PhhsWriter(
            folder / f"table-{self.id:03d}-{spec.deal_set.replace('/', '-')}-r{spec.rotation}.phhs"
        )
        self.started = True
        loop = asyncio.get_running_loop()
        waiting = self._deal()
        while waiting != []:
            if waiting is None:  # dealt: play on until the table is over or needs seeing to
                self.over = loop.create_future()
                self._advance()
                waiting = await self.over
            else:
                await asyncio.gather(*(self._roster.before_hand(seat, self.id) for seat in waiting))
                waiting = self._deal(checked=True)
        n, chips = len(spec.seats), self.chips
        if self.plan.mode == "freezeout":
            standing = sorted((s for s in range(n) if chips[s] > 0), key=lambda s: -chips[s])
            self.result.places[:0] = [spec.seats[s] for s in standing]
        for seat in self.seats:
            seat.session.send_framed(wire.match_end(self.id, self.plan.match_id, self.net, self.played), flush=True)

    def _deal(self, *, checked: bool = False) -> list[Seat] | None:
        """Deal the table's next hand and send its HandStarts; None once dealt. Otherwise what
        stops it: ``[]`` when the table is over, or (unless ``checked``) the seats to see to first
        (a lost connection, a restart)."""
        seats, chips, number = self.seats, self.chips, self.played
        n = len(seats)
        freezeout, restart, sessions = self._freezeout, self._restart, self._sessions
        live = [s for s in range(n) if chips[s] > 0] if freezeout else list(range(n))
        if self._stopped() or number >= self._hands or len(live) < 2:
            return []
        if not checked:
            attention = [seats[s] for s in live if not sessions[s].live or (restart and seats[s].failed)]
            if attention:
                return attention
        if freezeout:
            self.button = next(s for s in itertools.chain(range(self.button + 1, n), range(n)) if s in live)
        else:
            self.button = number % n
        config, kept = self._hand_config(number, live, live.index(self.button))
        key = deal_key(self.secret, self._deal_set, number, self._attempt)
        deck, self._weight = dealt(key, 2 * n + 8, self._deals)  # the shuffle's, or tilted and weighted
        hand = Hand(config, deck[: 2 * n + 8])  # the cards dealt from: the hand checks each (not a whole deck's)
        self._deal_point = deal_key("", self._deal_set, number, self._attempt)  # public: the seed left out
        self._seed_blocks, self._seed_block_numbers = [[]] * len(live), [-1] * len(live)
        self.live = live
        self.decisions = {}
        self.encoder = wire.HandWire(self.id, hand, number, live, n, kept)
        for engine_seat, s in enumerate(live):
            if not seats[s].failed:  # a failed seat is sent no more hands
                sessions[s].send_framed(self.encoder.hand_start(engine_seat))
        return None

    def _phh_fields(self) -> dict[str, str | int]:
        """Our fields in a hand's PHH: what ``dealer verify`` re-deals it from, beside the seed, and
        the table's number (``MatchPlan.first_table``)."""
        spec, table_id = self.spec, self.id
        fields: dict[str, str | int] = {
            "_match": self.plan.match_id,
            "_table": spec.deal_set,
            "_rotation": spec.rotation,
            "_table_id": table_id,
        }
        if self.plan.attempt:
            fields["_attempt"] = self.plan.attempt
        return fields

    def _advance(self, answer: tuple[Legal, Seat, Reply | None] | None = None) -> None:
        """Apply ``answer`` (to the request asked of a seat: what was legal, the seat, its reply
        or None), publish new public events and play on, dealing hand after hand, until a bot
        must answer, the table is over or a seat needs seeing to (``_deal``).

        Runs synchronously, from the table's task and then from the answer (or its time running
        out) to each request: no task switch per decision or per hand. An error here ends the
        table's task with that error, never the bot's stream.
        """
        try:
            encoder, seats, live, sessions = self.encoder, self.seats, self.live, self._sessions
            hand = encoder.hand
            if answer is not None:
                legal, seat, reply = answer
                index, bet = len(hand.events), hand.bets[hand.actors[0]]
                self._apply(hand, legal, seat, reply)
                if reply is not None and reply.strategy and seat.entry.name in self._trusted:
                    self._note_strategy(seat, legal, bet, index, reply)
            while True:
                published = encoder.publish()
                if published:
                    for s in live:
                        if not seats[s].failed:
                            sessions[s].send_framed(published)
                actor = hand.actor
                if actor is None:
                    self._end_hand()
                    waiting = self._deal()
                    if waiting is not None:  # the table's task takes over
                        self.over.set_result(waiting)
                        return
                    encoder, live = self.encoder, self.live
                    hand = encoder.hand
                    continue
                legal = hand.legal()
                # (the fields, not the can_raise property: compiled, a property of a NamedTuple is a Python call)
                if legal.call == 0 and legal.max_to == 0:
                    hand.check_call()  # the only legal action: no need to ask
                    continue
                s = live[actor]
                seat = seats[s]
                if not seat.failed and sessions[s].live:
                    self._ask(legal, seat, sessions[s])
                    return
                self._apply(hand, legal, seat, None)
        except BaseException as error:  # noqa: BLE001 - handed to the table's task, which raises it
            if not self.over.done():
                self.over.set_exception(error)

    def _ask(self, legal: Legal, seat: Seat, session: BotSession) -> None:
        """Send the actor (``seat``, with its ``session``) its request; its answer (or the lack of one)
        continues the table in ``_advance``."""
        per_action_ms, grace_ms, free_s = self._per_action_ms, self._grace_ms, self._free_s
        request_id = session.next_request_id()
        bank = seat.bank
        bank_ms = bank.ms
        hand = self.encoder.hand
        seed = self._decision_seed(hand)
        framed = self.encoder.request(request_id, legal, per_action_ms, bank_ms, seed)
        allowance = (per_action_ms + bank_ms + grace_ms) / 1000

        def answered(reply: Reply | None, elapsed: float) -> None:
            if elapsed >= free_s:  # past the per-action limit: the bank pays
                used_ms = max(0, round(elapsed * 1000) - grace_ms)
                bank.ms = max(0, bank.ms - max(0, used_ms - per_action_ms))
            if reply is None:
                if session.live:
                    seat.strikes += 1
                    if not seat.failed:
                        session.notice(Fault.TIMEOUT, "no answer in time", request_id)
                if seat.strikes >= STRIKES or not session.live:
                    self._roster.fail(seat)
            else:
                seat.strikes = 0
            self._advance((legal, seat, reply))

        session.request(request_id, framed, allowance, answered, table=self.id)

    def _decision_seed(self, hand: Hand) -> int:
        """The seed of the actor's decision (``dealer.league.seeds.decision_seed``): its index is the
        actor's actions so far, as the hand's encoder counted them publishing them (``HandWire.acted``:
        every record is published before a seat is asked); one hash gives a block of eight of its seeds."""
        seat = hand.actors[0]
        index = self.encoder.acted[seat]
        block = index // SEEDS_PER_BLOCK
        if self._seed_block_numbers[seat] != block:
            self._seed_blocks[seat] = self._decision_seeds.block(self._deal_point, seat, block)
            self._seed_block_numbers[seat] = block
        return self._seed_blocks[seat][index % SEEDS_PER_BLOCK]

    def _apply(self, hand: Hand, legal: Legal, seat: Seat, reply: Reply | None) -> None:
        """Apply the bot's answer, or the policy's default (check, else fold) when it has none or
        its answer breaks the rules."""
        kind = None if reply is None else reply.action
        if kind == CHECK_CALL:
            hand.check_call()
            return
        if kind == BET_RAISE:
            assert reply is not None
            try:
                hand.raise_to(reply.amount)  # the engine owns the raise range and says why it refuses
                return
            except IllegalActionError as error:
                detail = str(error)
            seat.session.fault(Fault.ILLEGAL, detail, table=reply.table, request_id=reply.request_id)
            seat.session.notice(Fault.ILLEGAL, detail, reply.request_id)
        elif reply is not None and kind != FOLD:
            detail = f"unknown action type {kind}"
            seat.session.fault(Fault.ILLEGAL, detail, table=reply.table, request_id=reply.request_id)
            seat.session.notice(Fault.ILLEGAL, detail, reply.request_id)
        if legal.fold:
            hand.fold()
        else:
            hand.check_call()

    def _note_strategy(self, seat: Seat, legal: Legal, bet: int, index: int, reply: Reply) -> None:
        """Keep the strategy a bot reported with its answer for the hand's decision terms
        (``dealer.stats.aivat``); a strategy that cannot be used is logged and the bot's later ones ignored."""
        acted = self.encoder.hand.events[index]  # the record of the answer just applied
        assert isinstance(acted, Acted)
        got = read_strategy(reply.strategy, legal, bet, acted)
        if isinstance(got, str):
            name = seat.entry.name
            self._trusted.discard(name)
            self.result.strategies_refused[name] = got
            LOGGER.warning(
                "strategy of bot %s ignored from now on in match %s (table %d, request %d): %s; its "
                "decisions count as a black box's",
                name,
                self.plan.match_id,
                reply.table,
                reply.request_id,
                got,
            )
            return
        self.decisions[index] = got

    def _end_hand(self) -> None:
        """Settle a finished hand: chips, freezeout places, HandEnd to every seat, the record, the PHH."""
        hand, live, names, n = self.encoder.hand, self.live, self._names, len(self.seats)
        number = self.played  # hands are numbered from 0 in the order played
        stacks, final = hand.config.stacks, hand.final_stacks()
        net = [0] * n
        for engine_seat, s in enumerate(live):
            net[s] = final[engine_seat] - stacks[engine_seat]
            self.net[s] = self.net[s] + net[s]  # (not +=: compiled, that is generic arithmetic)
        if self._freezeout:
            for engine_seat, s in enumerate(live):
                self.chips[s] = final[engine_seat]
            busted = sorted((s for s in live if self.chips[s] == 0), key=lambda s: -stacks[live.index(s)])
            self.result.places[:0] = [names[s] for s in busted]
        end = self.encoder.hand_end(net)
        for s in live:
            if not self.seats[s].failed:
                self._sessions[s].send_framed(end)
        adjusted = adjusted_net(hand)
        luck, known, features = _luck(hand, self.decisions, self._features) if self._luck else _NO_LUCK
        self.played += 1
        text = phh_text(
            hand,
            names=[names[s] for s in live],
            hand_number=number,
            table_seats=live,
            seat_count=n,
            extra=self._fields,
        )
        self.history.add(text)
        if self._on_hand is not None:
            self._on_hand(self._deal_set, self.id, text)
        ev_net = None if adjusted is None else {names[s]: adjusted[k] for k, s in enumerate(live)}
        luck_net = None if luck is None else {names[s]: round(net[s] - luck[k], 2) for k, s in enumerate(live)}
        full_net = (
            None
            if luck is None or known is None or not self.decisions
            else {names[s]: round(net[s] - luck[k] - known[k], 2) for k, s in enumerate(live)}
        )
        by_name = (
            None
            if features is None
            else {names[s]: tuple(round(x, 2) for x in features[k]) for k, s in enumerate(live)}
        )
        # positional, in its fields' order: by keyword, a dataclass's interpreted __init__ takes twice as long
        record = HandRecord(
            self.id,
            self._deal_set,
            number,
            self._chip_unit or hand.config.big_blind,
            {names[s]: net[s] for s in live},
            ev_net,
            luck_net,
            full_net,
            by_name,
            self._weight,
        )
        self._on_record(record)


_NO_LUCK: Final = (None, None, None)  # a hand of a match that records no luck


def _luck(
    hand: Hand, decisions: dict[int, Decision], features: bool
) -> tuple[list[float], list[float], list[list[float]] | None]:
    """A finished hand's chance luck, decision luck (``dealer.stats.aivat``) and, if ``features``, its
    luck features (``dealer.stats.luck_features``) by engine seat, the showdown shares computed once for all."""
    cache: Cache = {}
    luck = [0.0] * hand.n
    for row in chance_terms(hand, cache):
        for s in range(hand.n):
            luck[s] += row[s]
    known = decision_luck(hand, decisions, cache) if decisions else [0.0] * hand.n
    return luck, known, luck_features(hand, cache) if features else None
