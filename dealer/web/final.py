"""A finished output folder as the page shows it (``dealer view OUT``): its results.json (the report,
without the seed, as the live page shows it), its journal's matches (the winnings chart) and hands
from its histories, every hole card shown (the league is over, as in report.html). Read once."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dealer.errors import ConfigError
from dealer.league.journal import result_from_json
from dealer.stats.records import MatchResult
from dealer.web.live import provisional
from dealer.web.view import HANDS_KEPT, Winnings, match_hands, match_totals, replay


def folder_results(out: Path) -> tuple[dict[str, Any], list[MatchResult]]:
    """results.json and the journal's matches of an output folder (read only: the journal is not
    opened for writing, so a folder in use by a run is never changed); ConfigError, one line, if
    either is missing or unreadable."""
    report, journal = out / "results.json", out / "journal.sqlite"
    for path in (report, journal):
        if not path.is_file():
            raise ConfigError(f"{path}: not found: {out} is not the output folder of a league (dealer run)")
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
        with sqlite3.connect(f"{journal.absolute().as_uri()}?mode=ro", uri=True) as db:  # as_uri: absolute only
            rows = db.execute("SELECT result FROM matches ORDER BY match_id").fetchall()
        results = [result_from_json(json.loads(text)) for (text,) in rows]
    except (OSError, ValueError, sqlite3.Error) as error:
        raise ConfigError(f"{out}: cannot read its results: {error}") from None
    return data, results


class FinalView:
    """The snapshot of a finished (or stopped) league's folder; ``snapshot()`` never changes."""

    def __init__(self, out: Path, data: dict[str, Any], results: Sequence[MatchResult]) -> None:
        winnings = Winnings()
        hands: list[dict[str, Any]] = []
        for result in results:  # in match_id order, as report.html draws the chart
            winnings.add(result.hands, match_totals(result))
            hands += [replay(h, reveal=True) for h in match_hands(out / "matches" / result.match_id)]
        hands = hands[-HANDS_KEPT:]
        matches = data.get("matches", {})
        done, total = matches.get("finished", len(results)), matches.get("total", len(results))
        events: dict[str, list[str]] = {}
        for event, lines in data.get("events", {}).items():
            for line in lines:
                events.setdefault(line["name"], []).append(event)
        totals = winnings.totals()
        self.state = {
            **{key: value for key, value in data.items() if key != "seed"},
            "progress": {"done": done, "total": total, "hands": sum(r.hands for r in results), "hands_per_s": None},
            "finished": done == total,
            "winnings": winnings.as_json(),
            "hands": {f"{h['match']}|{h['table']}|{h['hand']}": {**h, "seq": k} for k, h in enumerate(hands)},
            "live": {
                "roster": [{"name": name, "events": names} for name, names in events.items()],
                "now": [],
                "next": [],
                "standings": provisional(totals, {}),
            },
        }

    def snapshot(self) -> dict[str, Any]:
        """The page's data."""
        return self.state
