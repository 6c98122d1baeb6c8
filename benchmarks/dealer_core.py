"""The dealer's own CPU per hand, without gRPC or bot processes: where its time goes.

Plays heads-up no-limit tables through ``Match`` exactly as over the wire (engine, encoding,
sessions, batching, clocks, hand histories, the bots' messages read from their bytes), but each
batch's requests are answered in the same process with check/call, as soon as the batch is taken
(the CPU the stand-in bots spend writing their answers is not counted). Prints CPU µs per hand and per
decision, median of ``--repeats``; run under a profiler to see the split.

    python benchmarks/dealer_core.py [--hands 20000] [--tables 64] [--repeats 3] [--luck] [--learned] [--tilted]

``--luck`` records every hand's luck-corrected nets too (``dealer.stats.aivat``, as a comparison does):
check/call bots see every hand to the river, the most expensive case (all four chance nodes).
``--learned`` also records every hand's luck features, as a comparison whose verdict comes from
``learned`` does (``dealer.stats.luck_features``). ``--tilted``: the cards dealt as ``dealer compare --deals
tilted`` deals them (``dealer.stats.tilted_deals``: each deal's hole cards, flop, turn and river drawn from the
proposal).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import game_config
from dealer.connect.link import Link
from dealer.connect.server import BotSession, DealerServer, decode
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan, instance_label
from dealer.runtime import tune_gc
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent


BOT_CPU = [0.0]  # CPU seconds the stand-in bots spent writing their messages: the bots', not the dealer's


def check_calls(link: Link, requests: list[int]) -> bytes:
    """A bot's BotMessage answering ``requests`` with check/call, serialized as its stream carries it."""
    message = pb.BotMessage(
        actions=[
            pb.ActionReply(table=link._clocks.open[r].table, request_id=r, type=pb.ACTION_TYPE_CHECK_CALL)
            for r in requests
        ]
    )
    return message.SerializeToString()


async def answer(session: BotSession) -> None:
    """Stand in for a bot and its stream: take each batch, answer its requests with check/call in a
    message of bytes that the dealer reads as the gRPC server does (``decode``, then the link)."""
    loop = asyncio.get_running_loop()
    link = session.link
    while session.live:
        await link._wake.wait()
        requests = [request_id for request_id, _ in link._outbox.requests]
        link._take_batch(loop.time())
        if requests:
            start = time.process_time()
            data = check_calls(link, requests)
            BOT_CPU[0] += time.process_time() - start
            message = decode(data)  # a message of replies only: read from its bytes (wire_replies)
            assert isinstance(message, list), message
            link._receive_replies(message)


async def play(
    server: DealerServer,
    out: Path,
    hands: int,
    tables: int,
    luck: bool,
    serve: Callable[[BotSession], Awaitable[None]] = answer,
    features: bool = False,
    deals: str = "plain",
) -> tuple[float, int, int]:
    """Play ``hands`` hands over ``tables`` tables, each seat's batches answered in this process by
    ``serve`` (check/call by default); return (CPU seconds, hands, decisions). Raises if a bot faulted."""
    game = game_config(
        variant="no-limit",
        blinds=(50, 100),
        stack=20000,
        time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 20000},
    )
    plan = MatchPlan(
        "core",
        plan_tables(("a", "b"), duplicate=False, tables=tables),
        game,
        hands // tables,
        seed=1,
        luck=luck,
        features=features,
        deals=deals,
    )
    sessions = {instance_label(name, 0): server.session(name) for name in ("a", "b")}  # one instance each
    for session in sessions.values():
        session.link._attach(object(), "in-process")  # type: ignore[arg-type]  # live, with no stream: answered here
    pumps = [asyncio.create_task(serve(s)) for s in sessions.values()]
    bots = {s.name: MatchBot(s.name, token=s.token) for s in sessions.values()}
    start, BOT_CPU[0] = time.process_time(), 0.0
    result = await Match(plan, server, bots, out=out, base=ROOT, sessions=sessions).run()
    cpu = time.process_time() - start - BOT_CPU[0]
    for session in sessions.values():
        session.link._detach()
    await asyncio.gather(*pumps)
    if any(result.faults.values()):  # a faulted seat folds at twice the speed: no figure from it
        raise RuntimeError(f"bots faulted: {result.faults}")
    return cpu, result.hands, sum(s.requests for s in sessions.values())


async def main(hands: int, tables: int, repeats: int, luck: bool, features: bool, deals: str) -> None:
    server = DealerServer("127.0.0.1:0", local_socket=False)
    per_hand, per_decision = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(repeats):
            cpu, n, decisions = await play(
                server, Path(tmp) / f"r{k}", hands, tables, luck, features=features, deals=deals
            )
            per_hand.append(cpu / n)
            per_decision.append(cpu / decisions)
    rows = [
        ["CPU per hand (µs)", f"{statistics.median(per_hand) * 1e6:,.1f}"],
        ["CPU per decision (µs)", f"{statistics.median(per_decision) * 1e6:,.1f}"],
        ["hands/s of dealer CPU", f"{1 / statistics.median(per_hand):,.0f}"],
    ]
    what = ", luck corrected (aivat) with luck features" if features else ", luck corrected (aivat)" if luck else ""
    what += ", tilted deals" if deals == "tilted" else ""
    print(
        tabulate(
            rows,
            headers=[f"dealer core, {tables} heads-up tables{what}, in-process answers, median of {repeats}", "value"],
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--luck", action="store_true", help="record luck-corrected nets (dealer.stats.aivat)")
    parser.add_argument("--learned", action="store_true", help="with them, the luck features of estimator learned")
    parser.add_argument("--tilted", action="store_true", help="the cards dealt as dealer compare --deals tilted")
    args = parser.parse_args()
    tune_gc()  # as the ``dealer`` command does
    asyncio.run(
        main(
            args.hands,
            args.tables,
            args.repeats,
            args.luck or args.learned,
            args.learned,
            "tilted" if args.tilted else "plain",
        )
    )
