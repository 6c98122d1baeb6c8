"""The Python SDK's own CPU per decision (``pokerbot``), on the dealer's real messages, without gRPC.

Plays heads-up no-limit tables through ``Match`` as ``benchmarks/dealer_core.py`` does, but each
batch the dealer sends goes through the SDK as a bot process would see it off the stream: the bytes
parsed as a DealerMessage, every request answered by ``pokerbot.answers`` with a sample bot's
``decide`` (the call bot's, the random bot's), the BotMessage serialized; the dealer then parses
those bytes and routes the replies. Prints the SDK's CPU µs per decision (what it costs a bot
beyond its ``decide`` and its gRPC stream) and the dealer's per hand, median of ``--repeats``.

    python benchmarks/sdk.py [--hands 10000] [--tables 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import game_config
from dealer.connect.server import BotSession, DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan, instance_label
from dealer.runtime import tune_gc
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sample_bots" / "python"))
import call_bot  # noqa: E402 - the sample bots import pokerbot from the repository
import random_bot  # noqa: E402

import pokerbot  # noqa: E402

Decide = Callable[[pb.ActionRequest], pokerbot.Decision]


class Bot:
    """One seat's bot in this process: the SDK's work on each batch, timed on its own."""

    def __init__(self, decide: Decide) -> None:
        self.decide = decide
        self.cpu = 0.0  # seconds in the SDK (and ``decide``)
        self.decisions = 0

    async def serve(self, session: BotSession) -> None:
        """Take each batch the dealer sends, as bytes, and answer it through the SDK."""
        while session.live:
            await session.link.wait_batch()
            if not session.live:
                break
            data, _ = session.link.take_batch()
            start = time.process_time()
            message = pb.DealerMessage.FromString(data)
            replies, _, _ = pokerbot.answers(message, self.decide)
            out = replies.SerializeToString()
            self.cpu += time.process_time() - start
            self.decisions += len(replies.actions)
            if replies.actions:
                await session.link.receive(pb.BotMessage.FromString(out))


async def play(server: DealerServer, out: Path, hands: int, tables: int, decide: Decide) -> tuple[float, float, int]:
    """Play ``hands`` hands over ``tables`` tables, both seats deciding with ``decide``; return
    (the SDK's CPU seconds per decision, the dealer's per hand, hands)."""
    game = game_config(
        variant="no-limit",
        blinds=(50, 100),
        stack=20000,
        time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 20000},
    )
    plan = MatchPlan("sdk", plan_tables(("a", "b"), duplicate=False, tables=tables), game, hands // tables, seed=1)
    sessions = {instance_label(name, 0): server.session(name) for name in ("a", "b")}
    bots = [Bot(decide) for _ in sessions]
    for session in sessions.values():
        session.link._attach(object(), "in-process")  # live, with no stream: served here
    pumps = [asyncio.create_task(bot.serve(s)) for bot, s in zip(bots, sessions.values(), strict=True)]
    entries = {s.name: MatchBot(s.name, token=s.token) for s in sessions.values()}
    start = time.process_time()
    result = await Match(plan, server, entries, out=out, base=ROOT, sessions=sessions).run()
    cpu = time.process_time() - start
    for session in sessions.values():
        session.link._detach()
    await asyncio.gather(*pumps)
    if any(result.faults.values()):
        raise RuntimeError(f"bots faulted: {result.faults}")
    sdk, decisions = sum(b.cpu for b in bots), sum(b.decisions for b in bots)
    return sdk / decisions, (cpu - sdk) / result.hands, result.hands


async def main(hands: int, tables: int, repeats: int) -> None:
    server = DealerServer("127.0.0.1:0", local_socket=False)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, decide in (("call_bot.py", call_bot.decide), ("random_bot.py", random_bot.decide)):
            runs = [await play(server, Path(tmp) / f"{name}{k}", hands, tables, decide) for k in range(repeats)]
            sdk = statistics.median(r[0] for r in runs) * 1e6
            dealer = statistics.median(r[1] for r in runs) * 1e6
            rows.append([name, f"{sdk:,.2f}", f"{dealer:,.1f}", runs[0][2]])
    print(
        tabulate(
            rows,
            headers=[
                f"{tables} heads-up tables, median of {repeats}",
                "SDK CPU µs per decision",
                "dealer CPU µs per hand",
                "hands",
            ],
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tune_gc()  # as the ``dealer`` command does
    asyncio.run(main(args.hands, args.tables, args.repeats))
