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
from collections.abc import Awaitable, Callable
from pathlib import Path

from tabulate import tabulate

from dealer.connect.server import BotSession, DealerServer
from dealer.runtime import tune_gc
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sample_bots" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import call_bot  # noqa: E402 - the sample bots import pokerbot from the repository
import dealer_core  # noqa: E402 - the match every benchmark here drives in-process
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
    """Play ``hands`` hands over ``tables`` tables (``dealer_core``'s match), both seats deciding with
    ``decide`` through the SDK; return (the SDK's CPU seconds per decision, the dealer's per hand, hands)."""
    bots: list[Bot] = []

    def serve(session: BotSession) -> Awaitable[None]:
        bots.append(Bot(decide))
        return bots[-1].serve(session)

    cpu, played, _ = await dealer_core.play(server, out, hands, tables, False, serve)
    sdk, decisions = sum(b.cpu for b in bots), sum(b.decisions for b in bots)
    return sdk / decisions, (cpu - sdk) / played, played


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
