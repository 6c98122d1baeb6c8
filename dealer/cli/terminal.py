"""The terminal's progress displays: the league's (one line redrawn in place, rich; standings when
an event ends and every ``standings_every`` matches; plain lines when stderr is not a terminal, CI)
and a match's or comparison's (``HandsDisplay``: hands, hands/s, time left)."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
from rich.progress import Progress as Bar

from dealer.config.league_file import LeagueConfig
from dealer.league.report import Progress
from dealer.league.summary import event_text, overall_text


class LeagueDisplay:
    """Feed it each ``Progress`` (it is the ``on_progress`` callback); use it as a context manager."""

    def __init__(
        self, config: LeagueConfig, total: int, *, standings_every: int = 0, console: Console | None = None
    ) -> None:
        self.config = config
        self.every = standings_every
        self.console = console or Console(stderr=True, highlight=False)
        self.live = self.console.is_terminal
        self.bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("matches  {task.fields[status]}"),
            console=self.console,
            transient=True,
            disable=not self.live,
        )
        self.task = self.bar.add_task(escape(config.name), total=total, status="starting")

    def __enter__(self) -> LeagueDisplay:
        self.bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.bar.stop()

    def __call__(self, progress: Progress) -> None:
        """Show a finished match: the line, and the standings when they are due."""
        status = f"{progress.hands:,} hands, {progress.hands_per_s:,.0f} hands/s, about {progress.eta_s:,.0f} s left"
        self.bar.update(self.task, completed=progress.done, status=status)
        if not self.live:
            match = progress.result.match_id if progress.result is not None else ""
            self.console.print(
                f"[{progress.done}/{progress.total}] {match} done; {status}", markup=False, soft_wrap=True
            )
        due = self.every > 0 and progress.done % self.every == 0 and progress.done < progress.total
        if progress.event_done is None and not due:
            return
        data = progress.report.data()
        if progress.event_done is not None:
            self.console.print("\n" + event_text(data, progress.event_done) + "\n", markup=False, soft_wrap=True)
        if due:
            self.console.print("\n" + overall_text(data) + "\n", markup=False, soft_wrap=True)


PLAIN_EVERY_S = 5.0  # a plain progress line (stderr no terminal, --progress) at most this often
REDRAW_EVERY_S = 0.2  # the line on a terminal is redrawn at most this often (a hand takes ~1 ms)


class HandsDisplay:
    """``dealer match``'s and ``dealer compare``'s progress: hands played of those planned, hands/s
    and the time left, and ``status()`` beside them (compare's running estimate). On a terminal one
    line redrawn in place (gone at the end); else, only with ``plain`` (``--progress``), a plain
    line every PLAIN_EVERY_S; else nothing, so a pipe or a log never gets a redrawn line.
    Call it once per finished hand; use it as a context manager."""

    def __init__(
        self,
        total: int,
        *,
        plain: bool = False,
        status: Callable[[], str] | None = None,
        console: Console | None = None,
    ) -> None:
        self.total = total
        self.status = status
        self.console = console or Console(stderr=True, highlight=False)
        self.live = self.console.is_terminal
        self.plain = plain and not self.live
        self.bar = Bar(
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("hands  {task.fields[status]}"),
            console=self.console,
            transient=True,
            disable=not self.live,
        )
        self.task = self.bar.add_task("", total=total, status="starting")
        self.hands = 0
        self.started = time.monotonic()
        self.shown = self.started  # when the line was last drawn or printed

    def __enter__(self) -> HandsDisplay:
        self.bar.start()
        self.started = self.shown = time.monotonic()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.bar.stop()

    def __call__(self, *_: object) -> None:
        """A hand finished (its record, if given, is not read)."""
        self.add(1)

    def add(self, hands: int) -> None:
        """``hands`` hands finished (a worker process says so now and then)."""
        self.hands += hands
        if not (self.live or self.plain):
            return
        now = time.monotonic()
        if now - self.shown < (REDRAW_EVERY_S if self.live else PLAIN_EVERY_S):
            return
        self.shown = now
        line = self.line(now)
        if self.live:
            self.bar.update(self.task, completed=self.hands, status=line)
        else:
            self.console.print(f"{self.hands:,}/{self.total:,} hands, {line}", markup=False, soft_wrap=True)

    def line(self, now: float) -> str:
        """hands/s and the time left at this pace (the planned hands: a verdict may come sooner), and the status."""
        rate = self.hands / max(now - self.started, 1e-9)
        left = max(self.total - self.hands, 0) / rate if rate > 0 else 0.0
        text = f"{rate:,.0f} hands/s, about {left:,.0f} s left"
        return f"{text}; {self.status()}" if self.status is not None else text
