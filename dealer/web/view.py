"""What the web view and report.html show, as one JSON-ready snapshot of the league.

The snapshot is the league report's dict (``dealer.league.report``, folded once per finished match by the
league and shared with every view) without the seed (it is secret until the end and the page
never needs it), plus progress, each bot's cumulative winnings per finished match (raw and all-in
adjusted, with a 95% band: one point per match, so nothing grows with the hands played), and
replays of finished hands, and what plays now (``dealer.web.live``: roster, schedule, running
scores and provisional standings, from the first second). Hands come from ``Match``'s ``on_hand``
hook, which only passes a hand once every table dealt the same cards has finished it (see
``Match._publish``), or from the hand histories a finished match wrote; a hand in play is never in
a snapshot. The live view shows only the hole cards shown down (a bot may read the page: folded
hands would tell it how its opponents play); report.html, written once the event is over, shows
every hand's.
"""

from __future__ import annotations

import collections
import math
import re
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer.config.league_file import LeagueConfig
from dealer.league.report import LeagueReport, Progress, Share
from dealer.stats.records import MatchResult
from dealer.stats.stats import Z95
from dealer.web.live import LiveBoard, Scheduled, hand_result, provisional

HANDS_KEPT = 40  # replays in a snapshot: recent finished hands
TAKEN_PER_SNAPSHOT = 2  # new hands a snapshot takes at most (the biggest pots, showdowns first): its delta stays small
WAITING_KEPT = 256  # hands passed on since the last snapshot that it chooses from
HANDS_PER_MATCH = 3  # hands read from a finished match's histories when none came live


@dataclass(frozen=True)
class _Totals:
    """One bot's figures over one match, in big blinds: hands, won, all-in adjusted, sum of squares."""

    hands: int
    raw: float
    adjusted: float
    squares: float


def match_totals(result: MatchResult) -> dict[str, _Totals]:
    """Each bot's totals over one match (what the winnings chart adds up)."""
    return {name: _Totals(t.hands, t.raw, t.adjusted, t.squares) for name, t in sorted(result.tally.bots.items())}


class Winnings:
    """Cumulative big blinds per bot after each match: ``x`` the league's hands so far, per bot
    ``raw``, ``adjusted`` and the 95% band ``low``/``high`` of the raw line (+/- 1.96 s sqrt(n)).
    Each match adds one point to every line, so a snapshot never sums the league again."""

    def __init__(self) -> None:
        self.x = [0]
        self.bots: dict[str, dict[str, list[float]]] = {}
        self.running: dict[str, list[float]] = {}  # by bot: hands, raw, adjusted, squares
        self._shown: dict[str, Any] | None = None  # as_json's copy, until the next match

    def add(self, hands: int, per_bot: dict[str, _Totals]) -> None:
        """One finished match: its hands and each of its bots' totals."""
        for name in per_bot.keys() - self.bots.keys():  # a newcomer's line is flat at 0 until now
            flat = [0.0] * len(self.x)
            self.bots[name] = {"raw": flat, "adjusted": list(flat), "low": list(flat), "high": list(flat)}
            self.running[name] = [0, 0.0, 0.0, 0.0]
        self._shown = None
        self.x.append(self.x[-1] + hands)
        for name, line in self.bots.items():
            acc = self.running[name]
            if name in per_bot:
                t = per_bot[name]
                acc[0] += t.hands
                acc[1] += t.raw
                acc[2] += t.adjusted
                acc[3] += t.squares
            n, raw, adjusted, squares = acc
            spread = Z95 * math.sqrt(max(squares - raw * raw / n, 0.0)) if n else 0.0
            line["raw"].append(round(raw, 2))
            line["adjusted"].append(round(adjusted, 2))
            line["low"].append(round(raw - spread, 2))
            line["high"].append(round(raw + spread, 2))

    def as_json(self) -> dict[str, Any]:
        """The chart's data, bots by name: a copy made once per match (a shown snapshot is
        compared with the next one, so it must not change under it)."""
        if self._shown is None:
            bots = {name: {k: list(v) for k, v in lines.items()} for name, lines in sorted(self.bots.items())}
            self._shown = {"x": list(self.x), "bots": bots}
        return self._shown

    def totals(self) -> dict[str, tuple[int, float]]:
        """Each bot's hands and big blinds won over the finished matches."""
        return {name: (int(acc[0]), acc[1]) for name, acc in self.running.items()}


class _Table:
    """The table a replayed hand is played on: what it shows after each action."""

    def __init__(self, phh: dict[str, Any], reveal: bool) -> None:
        self.players: list[str] = phh["players"]
        n = len(self.players)
        stacks = list(phh["starting_stacks"])
        antes, blinds = phh.get("antes", [0] * n), phh.get("blinds_or_straddles", [0] * n)
        self.bets = [min(b, s - a) for a, b, s in zip(antes, blinds, stacks, strict=True)]
        self.stacks = [s - a - b for s, a, b in zip(stacks, antes, self.bets, strict=True)]
        self.pot = sum(antes)
        self.cards = [""] * n
        self.board: list[str] = []
        self.folded = [False] * n
        self.reveal = reveal
        self.steps: list[dict[str, Any]] = []

    def step(self, text: str) -> None:
        """Record what the table shows after ``text`` happened."""
        self.steps.append(
            {
                "action": text,
                "board": list(self.board),
                "bets": list(self.bets),
                "stacks": list(self.stacks),
                "pot": self.pot + sum(self.bets),
                "folded": list(self.folded),
            }
        )

    def deal(self, words: list[str]) -> None:
        """A dealer's action: hole cards (kept only when revealed) or board cards (the bets go to the pot)."""
        if words[1] == "dh":
            if self.reveal:
                self.cards[int(words[2][1:]) - 1] = words[3]
        else:
            self.pot += sum(self.bets)
            self.bets = [0] * len(self.players)
            self.board += [words[2][k : k + 2] for k in range(0, len(words[2]), 2)]
            self.step(f"board {words[2]}")

    def act(self, words: list[str]) -> None:
        """A player's action: fold, check or call, bet or raise, show down."""
        seat = int(words[0][1:]) - 1
        who, bets, stacks = self.players[seat], self.bets, self.stacks
        if words[1] == "f":
            self.folded[seat] = True
            self.step(f"{who} folds")
        elif words[1] == "cc":
            owed = min(max(bets) - bets[seat], stacks[seat])
            bets[seat] += owed
            stacks[seat] -= owed
            self.step(f"{who} calls {owed}" if owed else f"{who} checks")
        elif words[1] == "cbr":
            to = int(words[2])
            paid = min(to - bets[seat], stacks[seat])
            bets[seat] += paid
            stacks[seat] -= paid
            self.step(f"{who} raises to {to}")
        elif words[1] == "sm":
            if len(words) > 2:
                self.cards[seat] = words[2]
            self.step(f"{who} shows {words[2] if len(words) > 2 else ''}".rstrip())


def replay(hand: str | dict[str, Any], *, reveal: bool = True) -> dict[str, Any]:
    """One finished hand (PHH text or its parsed table) as the steps the table view shows: board,
    bets, pot and stacks after each action. Without ``reveal`` (the live page) a seat's cards are
    shown only if it showed them down: a folded or mucked hand stays unknown, as at a real table."""
    phh = tomllib.loads(hand) if isinstance(hand, str) else hand
    table = _Table(phh, reveal)
    table.step("blinds and antes")
    for action in phh["actions"]:
        words = action.split()
        if words[0] == "d" and words[1] in ("dh", "db"):
            table.deal(words)
        else:
            table.act(words)
    pot = table.pot + sum(table.bets)
    finish = phh.get("finishing_stacks")
    won = [end - start for start, end in zip(phh["starting_stacks"], finish or phh["starting_stacks"], strict=True)]
    winners = [name for name, net in zip(table.players, won, strict=True) if net > 0]
    if finish is not None:
        n = len(table.players)
        over = {"action": _award(winners, pot), "board": list(table.board), "bets": [0] * n, "stacks": list(finish)}
        table.steps.append({**over, "pot": pot, "folded": list(table.folded), "winners": winners})
    return {
        "match": phh.get("_match", ""),
        "table": phh.get("_table_id", 0),  # as bots and logs number it (0: an older history without it)
        "hand": phh.get("hand", 0),
        "players": table.players,
        "cards": table.cards,
        "start": phh["starting_stacks"],
        "steps": table.steps,
        "pot": pot,
        "won": won,
        "winners": winners,
        "showdown": any(" sm" in action for action in phh["actions"]),
    }


def interest(text: str) -> float:
    """How much a finished hand is worth watching: the big blinds that changed hands, doubled at a showdown."""
    _, nets = hand_result(text)
    won = sum(net for net in nets.values() if net > 0)
    return won * (2 if re.search(r'"p\d+ sm ', text) else 1)


def _award(winners: list[str], pot: int) -> str:
    """The last step's words: who takes the pot."""
    if not winners:
        return f"pot {pot} returned"
    if len(winners) == 1:
        return f"{winners[0]} wins the pot of {pot}"
    return f"{', '.join(winners)} split the pot of {pot}"


def match_hands(out: Path, limit: int = HANDS_PER_MATCH) -> list[dict[str, Any]]:
    """The last ``limit`` hands of a finished match's first table, from its hand histories."""
    files = sorted((out / "hands").glob("*.phhs"))
    if not files:
        return []
    tables = tomllib.loads(files[0].read_text(encoding="utf-8"))
    return [tables[key] for key in sorted(tables, key=int)[-limit:]]


class LeagueView:
    """The league as the web page sees it; ``snapshot()`` is what is pushed to browsers."""

    def __init__(
        self, config: LeagueConfig, total: int, *, reveal: bool = False, schedule: Sequence[Scheduled] = ()
    ) -> None:
        """``reveal``: every hand's hole cards (report.html, once the event is over); else only
        the cards shown down (the live page: bots may be watching it). ``schedule``: the league's
        matches in the order they are played (what the page lists as next)."""
        self.config = config
        roster = [(bot.name, [e.name for e in config.events if bot.name in e.bots]) for bot in config.bots]
        self.board = LiveBoard(schedule, roster)
        self.total = total
        self.reveal = reveal
        self.report = LeagueReport(config, total)  # the league's, from the first finished match on
        self.added = 0  # the report's matches this view has taken (winnings, hands)
        self.winnings = Winnings()
        self.hands: collections.deque[tuple[int, str | dict[str, Any]]] = collections.deque(maxlen=HANDS_KEPT)
        self.live_matches: set[str] = set()
        self.progress: dict[str, Any] = {"done": 0, "total": total, "hands": 0, "hands_per_s": 0.0, "eta_s": None}
        self.shown: tuple[int, dict[str, Any]] | None = None  # the report's matches and data last shown
        self.share = Share()  # reading the report may grow costly (dealer.league.report): pushes read it so
        self._replays: dict[int, dict[str, Any]] = {}  # by the number of a hand in ``hands``
        self.waiting: collections.deque[str] = collections.deque(maxlen=WAITING_KEPT)
        self.seq = 0  # hands taken so far: each one's number is its place in the order they came

    def on_start(self, match_id: str) -> None:
        """A match begins (the league's executor says so): it plays now."""
        self.board.start(match_id)

    def on_hand(self, match_id: str, text: str) -> None:
        """A finished hand that is safe to show (called by ``Match``: keep it cheap)."""
        self.waiting.append(text)
        self.board.hand(match_id, text)
        self.live_matches.add(match_id)

    def on_progress(self, progress: Progress) -> None:
        """A finished match: take the league's report and add the match's point to the chart."""
        self.follow(progress.report)
        self.progress = {
            "done": progress.done,
            "total": progress.total,
            "hands": progress.hands,
            "hands_per_s": round(progress.hands_per_s, 1),
            "eta_s": round(progress.eta_s),
        }

    def follow(self, report: LeagueReport, order: Sequence[MatchResult] | None = None) -> None:
        """Show ``report``, taking the matches it finished since the last call (those of the journal
        first, on a resume): their totals, and hands from their histories when none came live."""
        self.report = report
        for result in order if order is not None else report.finished[self.added :]:
            self.winnings.add(result.hands, match_totals(result))
            self.board.finish(result.match_id)
            if result.match_id not in self.live_matches:
                for hand in match_hands(self.config.out / "matches" / result.match_id):
                    self.seq += 1
                    self.hands.append((self.seq, hand))
        self.added = len(report.finished)

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows, JSON-ready. Hands are keyed ``match|table|hand`` (with ``seq``,
        their order of arrival), so that a delta adds and drops hands instead of re-sending them."""
        self._take_waiting()
        replays = {seq: self._replays.get(seq) or self._replay(seq, hand) for seq, hand in self.hands}
        self._replays = replays
        rate = self.board.rate(time.monotonic())
        finished = {bot.name: (0, 0.0) for bot in self.config.bots} | self.winnings.totals()
        live = self.board.live_totals()
        progress = {**self.progress, "hands": self.progress["hands"] + self.board.live_hands()}
        if rate is not None and self.added < self.total:
            progress["hands_per_s"] = rate
        return {
            **self._report(),
            "progress": progress,
            "finished": self.added == self.total,
            "winnings": self.winnings.as_json(),
            "hands": {f"{r['match']}|{r['table']}|{r['hand']}": r for r in replays.values()},
            "live": {**self.board.data(), "standings": provisional(finished, live)},
        }

    def _replay(self, seq: int, hand: str | dict[str, Any]) -> dict[str, Any]:
        return {**replay(hand, reveal=self.reveal), "seq": seq}

    def _take_waiting(self) -> None:
        """Take the most interesting of the hands passed on since the last snapshot (big pots, then
        showdowns; at most TAKEN_PER_SNAPSHOT, in the order they came): at thousands of hands a second
        every hand kept would be new each push, and each delta as large as the whole state."""
        waiting = list(self.waiting)
        self.waiting.clear()
        chosen = sorted(range(len(waiting)), key=lambda k: -interest(waiting[k]))[:TAKEN_PER_SNAPSHOT]
        for k in sorted(chosen):
            self.seq += 1
            self.hands.append((self.seq, waiting[k]))

    def _report(self) -> dict[str, Any]:
        """The report's data without the seed: read again when it changed and a read is due (always
        once every match has finished)."""
        began, done = time.monotonic(), len(self.report.finished)
        if self.shown is None or (self.shown[0] != done and (done == self.total or self.share.due(began))):
            self.shown = done, {key: value for key, value in self.report.data().items() if key != "seed"}
            self.share.took(began, time.monotonic())
        return self.shown[1]


def league_snapshot(report: LeagueReport) -> dict[str, Any]:
    """The snapshot of a league's finished matches (for report.html), its chart in match_id order."""
    view = LeagueView(report.config, report.total, reveal=True)
    view.follow(report, sorted(report.finished, key=lambda r: r.match_id))
    view.progress = {
        "done": len(report.finished),
        "total": report.total,
        "hands": sum(r.hands for r in report.finished),
        "hands_per_s": None,
        "eta_s": 0,
    }
    return view.snapshot()
