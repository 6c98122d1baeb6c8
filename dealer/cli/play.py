"""``dealer play``: a person against bots, from the browser. The person's seat is a connection like
any bot's (``dealer.connect.human`` over ``dealer.web.seat``): the match, its rules, clocks and fault policy
do not know a person sits there; the seat's session is kept outside the match, as a remote bot's is."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from pathlib import Path

import typer

from dealer.connect import human
from dealer.connect.server import DealerServer
from dealer.connect.session import BotSession
from dealer.league.match import Match, MatchBot, MatchPlan, instance_label
from dealer.stats.records import MatchResult
from dealer.web.seat import SeatDesk
from dealer.web.server import WebView

GOODBYE_S = 2.0  # for the seat's last items (the match's end) to reach the page


async def play_person(
    person: str, bots: Mapping[str, MatchBot], plan: MatchPlan, address: str, out: Path
) -> MatchResult:
    """Serve ``person``'s seat at ``address`` (the URL printed once, with its key) and play ``plan``."""
    desk = SeatDesk(person)
    session = BotSession(name=person, token=secrets.token_urlsafe(32))  # never registered: no bot can dial it
    web = WebView(None, address, seat=desk)
    async with DealerServer("127.0.0.1:0") as server:
        typer.echo(f"your seat on {await web.start()}")
        seat = asyncio.create_task(human.serve(session, desk))
        try:
            entries = {person: MatchBot(person), **bots}
            kept = {instance_label(person, 0): session}
            result = await Match(plan, server, entries, out=out, base=Path.cwd(), sessions=kept).run()
            session.goodbye("match over")
            await asyncio.wait({seat}, timeout=GOODBYE_S)
        finally:
            seat.cancel()
            await asyncio.wait({seat})
            await web.stop()
    return result
