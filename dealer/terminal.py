"""The league's terminal display: one progress line redrawn in place (rich), standings when an
event ends and every ``standings_every`` matches; plain lines when stderr is not a terminal (CI)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
from rich.progress import Progress as Bar

from dealer.config import LeagueConfig
from dealer.report import Progress
from dealer.summary import event_text, overall_text


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
