"""One match: a roster of bots + tables that play hands -> a match result.

A match is the join of its roster (``dealer.league.roster``: the bots, their instances, processes and
the fault policy) and its tables (``dealer.league.table``: deal, ask, apply, settle). It launches (or
waits for) its bots, plays one or more tables at once over the same bot connections, and
records every hand. Tables of a duplicate group share a ``deal_set`` and so the
same cards: hand ``h`` of a table is dealt from the deck keyed ``<seed>/<deal_set>/<h>`` (a
secret random key replaces the seed when none is given; ``dealer.league.seeds.deal_key``: a match played
again after a kill, ``MatchPlan.attempt``, is dealt afresh), with the button at seat ``h % n``.

Sealed rotations (the default): tables that share a deal set are never played by one bot
process. Each bot runs one *instance* per table it has in a deal set (``MatchPlan.instances``,
planned by ``dealer.engine.scheduler.sealed_instances``); instance ``k`` plays the bot's ``k``-th table
of every deal set, with its own token, process, scratch folder ``scratch/<bot>.<k>`` and log
``logs/<bot>.<k>.log``. Hands, faults (summed over instances) and standings stay by bot name,
and a bot's time bank is shared by its instances, as it was by its tables.

Fault policy (what happens when a bot misbehaves; every event is counted by reason):

* timeout or an illegal answer: the dealer checks for the bot if it can, else folds; a fold
  when a check is free is taken as a check and is not a fault;
* three timeouts in a row, a disconnect or a crash: under ``fold`` (the default) the bot checks
  or folds without being asked for the rest of the match; under ``forfeit`` the match stops
  after the current hands and the bot is marked as forfeiting; under ``restart`` the bot's
  process is started again before its next hand (a remote bot may reconnect); every table
  waiting on it waits for that one restart.

One reason per event: a lost connection whose process then turns out to have crashed (or run
out of memory) is counted as that crash, not also as a disconnect; a bot is disqualified once
per failure. A failed bot still connected is sent only what it needs: no more hands of the
match, only its MatchEnd (and Goodbye). Errors of the dealer's own stop the match loudly.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import secrets
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from dealer.connect.server import DealerServer
from dealer.connect.session import BotSession
from dealer.errors import DealerError
from dealer.league.plan import MatchBot, MatchPlan, instance_label
from dealer.league.roster import Roster, Seat
from dealer.league.table import STRIKES, Table
from dealer.stats.records import HandRecord, MatchResult, Tally

LOGGER = logging.getLogger(__name__)

# The plan's names and STRIKES are imported from here too, as before dealer.league.plan and .table.
__all__ = ["STRIKES", "Match", "MatchBot", "MatchPlan", "instance_label"]


class Match:
    """Plays a ``MatchPlan`` on a running ``DealerServer``; ``await Match(...).run()``."""

    def __init__(
        self,
        plan: MatchPlan,
        server: DealerServer,
        bots: Mapping[str, MatchBot],
        *,
        out: Path,
        base: Path,
        sessions: Mapping[str, BotSession] | None = None,
        on_hand: Callable[[str, str], None] | None = None,
        records: bool = False,
        stop_unstarted: bool = False,
        on_record: Callable[[HandRecord], None] | None = None,
        stop: Callable[[], bool] | None = None,
        on_halt: Callable[[], None] | None = None,
    ) -> None:
        """``sessions`` are remote bots' sessions by instance label, that outlive the match (a
        league's ``serve``); ``on_hand(match_id, phh_text)`` sees each finished hand once it is safe
        to show (``_publish``); ``records`` keeps every hand's record in the result (memory that grows
        with the match: tests and analyses of a pool of deals); ``stop_unstarted``: a bot whose first
        launch never connects stops the match at once (``dealer match``: its command is broken);
        ``on_record`` sees each hand's record while the match goes on, and after it ``stop`` says
        whether the match should stop after the hands in play (a comparison's verdict); ``on_halt``
        hears of a stop of its own (a forfeit, an unstarted bot: ``dealer.league.workers`` stops the other parts)."""
        self.plan = plan
        self.server = server
        self.out = out
        self.secret = str(plan.seed) if plan.seed is not None else secrets.token_hex(16)
        self._deal_tables = collections.Counter(spec.deal_set for spec in plan.tables)  # tables per deal set
        self.result = MatchResult(
            plan.match_id,
            tuple(sorted({n for t in plan.tables for n in t.seats})),
            Tally(dict(self._deal_tables)),
            records=[] if records else None,
            attempt=plan.attempt,
        )
        self.stop = False  # the match stops after the hands in play (a forfeit, an unstarted bot, a verdict)
        self.roster = Roster(
            plan,
            server,
            bots,
            self.result,
            out=out,
            base=base,
            sessions=sessions,
            stop_unstarted=stop_unstarted,
            stopped=lambda: self.stop,
            halt=self._halt,
        )
        self.seats: dict[str, Seat] = self.roster.seats  # by instance label
        self.tables: list[Table] = []
        self.on_hand = on_hand
        self._on_record = on_record
        self._stop_when = stop
        self._on_halt = on_halt
        self._private: Path | None = None
        self._unshown: dict[str, dict[int, list[str]]] = collections.defaultdict(dict)  # deal set -> table id -> PHH
        self._trusted = set(plan.strategies) if plan.luck else set()  # bots whose strategies are used

    def _halt(self) -> None:
        """Stop the match after the hands in play."""
        self.stop = True
        if self._on_halt is not None:
            self._on_halt()

    async def run(self) -> MatchResult:
        """Connect the bots, play every table, then say goodbye and stop every process.

        An error of the dealer's own (here or while serving a stream: ``server.failed``) stops
        the match and is raised, never charged to a bot."""
        self.out.mkdir(parents=True, exist_ok=True)
        plan = self.plan
        LOGGER.info(
            "match %s: %d tables, %d hands each, bots %s, fault policy %s",
            plan.match_id,
            len(plan.tables),
            plan.hands,
            ", ".join(self.result.bots),
            plan.fault_policy,
        )
        # Histories are streamed into a folder of the dealer's own (mode 0700) and moved into
        # ``hands/`` once the match is over: no bot reads a deal while another rotation of it is played.
        self._private = Path(tempfile.mkdtemp(prefix=".hands-", dir=self.out))
        play = asyncio.ensure_future(self._play())
        try:
            failed = self.server.failed
            waits: set[asyncio.Future[Any]] = {play} if failed is None else {play, failed}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if not play.done():
                assert failed is not None
                play.cancel()
                await asyncio.wait({play})
                raise RuntimeError(
                    f"match {plan.match_id} stopped: the dealer failed (see its log)"
                ) from failed.result()
            try:
                play.result()
            except DealerError as error:  # raised on purpose by the engine, but the match's input is checked
                raise RuntimeError(f"match {plan.match_id} stopped: the dealer failed") from error
        finally:
            if not play.done():
                play.cancel()
                await asyncio.wait({play})
            await self.roster.shutdown()
            self._publish_histories()
            self.result.tally.close()
        LOGGER.info(
            "match %s over: %d hands, faults %s",
            plan.match_id,
            self.result.hands,
            {name: reasons for name, reasons in self.result.faults.items() if reasons} or "none",
        )
        return self.result

    async def _play(self) -> None:
        await self.roster.connect()
        self.tables = [
            Table(
                self.plan,
                index,
                self.roster.table_seats(index),
                self.roster,
                self.result,
                secret=self.secret,
                trusted=self._trusted,
                stopped=lambda: self.stop,
                on_record=self._record,
                on_hand=None if self.on_hand is None else self._publish,
            )
            for index in range(len(self.plan.tables))
        ]
        folder = self._private
        assert folder is not None
        await asyncio.gather(*(table.play(folder) for table in self.tables))

    def _publish_histories(self) -> None:
        """Move each started table's PHH file from the private folder into ``hands/``."""
        assert self._private is not None
        folder = self.out / "hands"
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # the deals of an event in progress: only the dealer's user may read them
        for history in (table.history for table in self.tables if table.started):
            history.flush()
            os.replace(history.path, folder / history.path.name)
        self._private.rmdir()

    def _publish(self, deal_set: str, table_id: int, text: str) -> None:
        """Pass on the hands of a deal set that every table dealt its cards has finished: a hand
        still in play in another seat rotation would show that table's cards."""
        unshown = self._unshown[deal_set]
        unshown.setdefault(table_id, []).append(text)
        if len(unshown) < self._deal_tables[deal_set]:
            return  # a table of these cards has not started: it has played none of them
        ready = min(len(texts) for texts in unshown.values())
        for number in range(ready):
            for texts in unshown.values():
                self.on_hand(self.plan.match_id, texts[number])  # type: ignore[misc]
        for texts in unshown.values():
            del texts[:ready]

    def _record(self, record: HandRecord) -> None:
        """Fold a finished hand's record into the result, then, while the match goes on, hand it to
        ``on_record`` and ask ``stop`` (a hook too: ``compare``'s match feeds its sequential test here)."""
        self.result.tally.add(record)
        if self.result.records is not None:
            self.result.records.append(record)
        if not self.stop and self._on_record is not None:
            self._on_record(record)
        if not self.stop and self._stop_when is not None and self._stop_when():
            self.stop = True
