"""Does the mixed pair draw its actions from the probabilities it reports, and do `full`'s decision
terms average to zero? (issue 35: `full - raw` on the mixed pair of compare_verdicts.py read +0.7 to
+2.4 standard errors on four pools.)

Plays mixed_bot against loose_mixed_bot in this process (the SDK, the dealer's table and its
corrections, as compare_verdicts.py plays its pools, without the baseline's tables) and prints:

* for every kind of strategy entry the SDK sent (fold, check/call, a raise at the top of the range,
  at its bottom or between; and how many entries the strategy had), the times it was the action taken
  minus the sum of its probabilities, with the standard deviation of that sum if the draws follow the
  probabilities (z beyond about 3 says they do not; the mixed bots seed each draw from the
  situation, so the two versions draw alike where they stand alike, and the sd of an entry both
  versions share, a raise above all, understates by up to a factor of 1.4);
* per duplicate deal, in big blinds of the new version: the chance terms, the decision terms and
  `full - raw`, each with its standard error (each must have mean zero).

    cd benchmarks && nice -n 19 ../.venv/bin/python strategy_draws.py --deals 24000 --seed bias49-a
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import math
import statistics
import tempfile
from pathlib import Path

import compare_verdicts as cv

import pokerbot  # (compare_verdicts puts the SDK and the sample bots on the path)

KINDS = {pokerbot.FOLD: "fold", pokerbot.CHECK_CALL: "check_call", pokerbot.BET_RAISE: "raise"}


class Draws:
    """The SDK's replies with a strategy, tallied by entry: (count, sum of taken - p, sum of p(1 - p))."""

    def __init__(self) -> None:
        self.tally: dict[tuple[str, int], list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
        self.replies = 0
        self.mismatched = 0  # replies whose action is not exactly one entry of their strategy

    def add(self, request, reply) -> None:
        entries = [(s.type, s.amount, s.probability) for s in reply.strategy]
        taken = [i for i, (t, a, _) in enumerate(entries) if (t, a) == (reply.type, reply.amount)]
        self.replies += 1
        self.mismatched += len(taken) != 1
        for i, (t, a, p) in enumerate(entries):
            kind = KINDS.get(t, str(t))
            if t == pokerbot.BET_RAISE:
                where = {request.max_raise_to: "@max", request.min_raise_to: "@min"}
                kind += where.get(a, "@mid")
            row = self.tally[(kind, len(entries))]
            row[0] += 1
            row[1] += (i in taken) - p
            row[2] += p * (1 - p)


async def play(deals: int, seed: str, dealing: str, draws: Draws) -> cv.MatchResult:
    """The mixed pair on ``deals`` duplicate deals (8 tables), every SDK reply with a strategy tallied."""
    answer = pokerbot.answer

    def tallied(decide, table, request):
        reply = answer(decide, table, request)
        if reply.strategy:
            draws.add(request, reply)
        return reply

    pokerbot.answer = tallied  # compare_verdicts._answer looks it up at each call
    game = cv.game_config(time={"per_action_ms": 60_000, "bank_ms": 0})
    tables = cv.plan_tables(["new", "old"], duplicate=True, tables=8)
    plan = cv.MatchPlan(
        "draws",
        tables,
        game,
        hands=deals // 8,
        seed=seed,
        luck=True,
        strategies=("new", "old"),
        sealed=False,
        deals=dealing,
    )
    server = cv.DealerServer("127.0.0.1:0", local_socket=False)
    sessions = {cv.instance_label(name, 0): server.session(name) for name in ("new", "old")}
    for session in sessions.values():
        session.link._attach(object(), "in-process")
    decides = dict(zip(("new", "old"), cv.PAIRS["mixed"], strict=True))
    pumps = [asyncio.create_task(cv._answer(s, decides[s.name])) for s in sessions.values()]
    bots = {s.name: cv.MatchBot(s.name, token=s.token) for s in sessions.values()}
    with tempfile.TemporaryDirectory() as out:
        match = cv.Match(plan, server, bots, out=Path(out), base=cv.ROOT, sessions=sessions, records=True)
        result = await match.run()
    for session in sessions.values():
        session.link._detach()
    await asyncio.gather(*pumps)
    pokerbot.answer = answer
    return result


def per_deal(result: cv.MatchResult) -> list[tuple[float, float]]:
    """Per duplicate deal, the new version's (chance terms, decision terms) in big blinds, weighted."""
    deals: dict[tuple[str, int], list[float]] = collections.defaultdict(lambda: [0.0, 0.0])
    for r in result.records or []:
        luck = r.luck_net["new"] if r.luck_net else r.net["new"]
        full = r.full_net["new"] if r.full_net else luck
        row = deals[(r.deal_set, r.hand)]
        row[0] += (r.net["new"] - luck) / r.big_blind * r.weight
        row[1] += (luck - full) / r.big_blind * r.weight
    return [(a, b) for a, b in deals.values()]


def mean_se(xs: list[float]) -> str:
    m, se = statistics.fmean(xs), statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{m:+.4f} ± {se:.4f} (z {m / se if se else 0.0:+.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", default="strategy-draws")
    parser.add_argument(
        "--tilted", action="store_true", help="the cards drawn by dealer.stats.tilted_deals, hands weighted"
    )
    args = parser.parse_args()
    draws = Draws()
    result = asyncio.run(play(args.deals, args.seed, "tilted" if args.tilted else "plain", draws))
    print(f"{result.hands} hands, faults {result.faults}, strategies refused {result.strategies_refused or 'none'}")
    print(f"{draws.replies} replies with a strategy; action not exactly one entry: {draws.mismatched}")
    print("entry (kind, entries)        n   taken - p      sd       z")
    for key, (n, residual, var) in sorted(draws.tally.items()):
        z = residual / math.sqrt(var) if var else 0.0
        print(f"{key[0]:>12} {key[1]} {int(n):9d} {residual:+10.2f} {math.sqrt(var):8.2f} {z:+7.2f}")
    rows = per_deal(result)
    print(f"per deal, new's big blinds, {len(rows)} deals:")
    print("  chance terms   ", mean_se([a for a, _ in rows]))
    print("  decision terms ", mean_se([b for _, b in rows]))
    print("  full - raw     ", mean_se([-(a + b) for a, b in rows]))


if __name__ == "__main__":
    main()
