"""The league report as text (``standings.txt``, the terminal): rendered from ``league.report``'s dict.

Sections: overall standings and each event's, each under the rule that ranks it; the head-to-head
table of heads-up results; failures by bot and reason; the log tails of failing bots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from dealer.text import counted, printable_lines


def _interval(pair: Sequence[float | None] | None, digits: int = 1, sign: str = "+") -> str:
    if not pair or pair[0] is None or pair[1] is None:
        return "-"
    return f"[{pair[0]:{sign}.{digits}f}, {pair[1]:{sign}.{digits}f}]"


def standings_block(lines: Sequence[Mapping[str, Any]], *, points: bool = False) -> str:
    """A standings table from the JSON lines of ``Standing.as_json``."""
    rated = any(line.get("rating") for line in lines)
    headers = [
        "#",
        "bot",
        *(["points"] if points else []),
        "hands",
        "chips",
        "bb/100",
        "95% CI",
        *(["rating", "95% CI"] if rated else []),
        "failures",
    ]
    rows = []
    for rank, s in enumerate(lines, 1):
        rating = s.get("rating")
        failures = ", ".join(f"{reason} {count}" for reason, count in sorted(s["faults"].items())) or "-"
        stopped = s.get("stopped", 0)  # what it is ranked by first (absent from older results)
        if stopped:
            failures = f"stopped in {stopped} match{'' if stopped == 1 else 'es'}: {failures}"
        rows.append(
            [
                rank,
                s["name"],
                *([s["points"]] if points else []),
                s["hands"],
                s["chips"],
                f"{s['bb_per_100']:+.1f}",
                _interval(s["ci95"]),
                *(
                    [f"{rating['mu']:.1f}", _interval(rating["ci95"], sign="")]
                    if rated and rating
                    else (["-", "-"] if rated else [])
                ),
                failures,
            ]
        )
    return tabulate(rows, headers=headers, disable_numparse=True)


def overall_text(data: Mapping[str, Any]) -> str:
    """The overall standings with the rule that ranks them."""
    return f"Overall standings: {data['ranking']}.\n{standings_block(data['standings'])}"


def event_text(data: Mapping[str, Any], event: str) -> str:
    """One event's standings with the rule that ranks it."""
    lines = data["events"][event]
    return (
        f"Event {event}: {data['event_rankings'][event]}.\n"
        f"{standings_block(lines, points=any(s['points'] for s in lines) or 'points' in data['event_rankings'][event])}"
    )


def head_to_head_text(data: Mapping[str, Any]) -> str:
    """The head-to-head table: bb/100 of the row bot against the column bot, * when significant."""
    table, intervals = data["head_to_head"], data["head_to_head_ci95"]
    if not table:
        return "Head to head: no heads-up matches."
    names = sorted(table)
    rows = []
    for a in names:
        row: list[str] = [a]
        for b in names:
            if b not in table[a]:
                row.append("")
                continue
            ci = intervals[a][b]
            mark = "*" if ci is not None and (ci[0] > 0 or ci[1] < 0) else ""
            row.append(f"{table[a][b]:+.1f}{mark}")
        rows.append(row)
    return (
        "Head to head (heads-up matches; bb/100 of the row bot against the column bot; "
        "* where the 95% interval excludes 0):\n" + tabulate(rows, headers=["", *names], disable_numparse=True)
    )


def failures_text(data: Mapping[str, Any]) -> str:
    """Failures by bot and reason, and the log tails of the matches where a bot failed."""
    failures = data["failures"]
    if not failures:
        return "Failures: none."
    reasons = sorted({r for counts in failures.values() for r in counts})
    rows = [[name, *(counts.get(r, "") for r in reasons)] for name, counts in failures.items()]
    parts = ["Failures by reason:\n" + tabulate(rows, headers=["bot", *reasons], disable_numparse=True)]
    if data["forfeits"]:
        parts.append("Forfeits: " + ", ".join(f"{bot} in {match}" for match, bot in data["forfeits"]))
    for match, tails in data["log_tails"].items():
        for bot, tail in sorted(tails.items()):
            body = "\n".join(f"    {line}" for line in printable_lines(tail.rstrip())[-10:])
            parts.append(f"Log tail of {bot} in {match}:\n{body}")
    return "\n\n".join(parts)


def summary_text(data: Mapping[str, Any]) -> str:
    """The whole report as text: what ``standings.txt`` holds."""
    done, total = data["matches"]["finished"], data["matches"]["total"]
    parts = [f"{data['league']}: {done} of {counted(total, 'match', 'matches')}", overall_text(data)]
    parts += [event_text(data, event) for event in data["events"]]
    for event, comparison in data["comparisons"].items():
        if "error" in comparison:
            parts.append(f"Comparison {event}: {comparison['error']}")
        else:
            fig = comparison[comparison["verdict_from"]]
            parts.append(
                f"Comparison {event}: {comparison['new']} - {comparison['old']} = {fig['bb_per_100']:+.2f} "
                f"bb/100 {comparison['verdict_from']}, interval {_interval(fig['ci'], 2)}, "
                f"verdict {comparison['verdict']} ({comparison['hands']} hands)"
            )
    parts += [head_to_head_text(data), failures_text(data)]
    return "\n\n".join(parts) + "\n"
