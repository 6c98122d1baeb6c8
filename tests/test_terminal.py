"""The progress line of ``dealer match`` and ``dealer compare`` (``terminal.HandsDisplay``): redrawn
in place on a terminal and gone at the end, plain lines in a pipe only when asked, else nothing."""

from __future__ import annotations

import io
import re
import time

import pytest
from rich.console import Console

from dealer.cli import terminal


def _shown(monkeypatch: pytest.MonkeyPatch, *, tty: bool, plain: bool) -> str:
    monkeypatch.setattr(terminal, "REDRAW_EVERY_S", 0.0)
    monkeypatch.setattr(terminal, "PLAIN_EVERY_S", 0.0)
    out = io.StringIO()
    console = Console(file=out, force_terminal=tty, width=160)
    with terminal.HandsDisplay(100, plain=plain, status=lambda: "new - old +1.0 bb/100", console=console) as shown:
        for _ in range(50):
            shown()
            time.sleep(0.005)
        time.sleep(0.25)  # the live line refreshes on its own clock
    return out.getvalue()


def test_on_a_terminal_one_line_is_redrawn_then_erased(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _shown(monkeypatch, tty=True, plain=False)
    assert re.search(r"50/100.*hands  [\d,]+ hands/s, about [\d,]+ s left; new - old \+1\.0 bb/100\r", text), text
    assert text.endswith("\x1b[2K")  # transient: the line is gone when the match ends


def test_a_pipe_gets_plain_lines_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _shown(monkeypatch, tty=False, plain=False) == ""
    lines = _shown(monkeypatch, tty=False, plain=True).splitlines()
    assert lines and all(
        re.fullmatch(r"\d+/100 hands, [\d,]+ hands/s, about [\d,]+ s left; new - old \+1\.0 bb/100", line)
        for line in lines
    ), lines
    assert not any("\x1b" in line or "\r" in line for line in lines)
