"""The league on a screen: the live web view (``server``) and the self-contained report.html.

Both render the same snapshot (``view``) with the same page and script (``static/``); uPlot is
vendored from npm into ``static/vendor/`` by setup.py at every build and install (wheel and sdist carry it).
"""

from __future__ import annotations

from pathlib import Path

from dealer.files import write_atomically
from dealer.league.report import LeagueReport
from dealer.web.server import page
from dealer.web.view import league_snapshot


def write_report(report: LeagueReport) -> Path:
    """Write ``report.html`` to the output folder: the page with its scripts and data inlined,
    so it opens offline from the file."""
    path = report.config.out / "report.html"
    write_atomically(path, page(league_snapshot(report)))
    return path
