"""The league's journal: finished matches in SQLite (one row per match, committed atomically),
the seed a league drew, and the attempt each cut-off match is at, so that ``--resume`` goes on
from them; rows of older formats are still read."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from dealer.errors import RunError
from dealer.league.seeds import draw_seed
from dealer.stats.paired import PairedTally
from dealer.stats.records import HandRecord, MatchResult, Tally, result_of


class Journal:
    """Finished matches in SQLite: one row per match, committed atomically."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)  # it holds a drawn seed: readable by the dealer's user only (SQLite's
        os.chmod(path, 0o600)  # -wal and -shm files take the database file's mode)
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS matches (match_id TEXT PRIMARY KEY, event TEXT, result TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS attempts (match_id TEXT PRIMARY KEY, attempt INTEGER)")
        row = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        elif row[0] != fingerprint:
            raise RunError(
                f"{path}: the journal belongs to a different league configuration; "
                "use another output folder or run without --resume"
            )
        self.fingerprint = fingerprint
        self.path = path

    def seed(self) -> str:
        """The seed drawn for a league without one: the one drawn when the journal began (so that a
        resumed run deals what the first part would have), else a fresh one, kept here."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()
        if row is not None:
            return str(row[0])
        seed = draw_seed()
        with self.db:
            self.db.execute("INSERT INTO meta VALUES ('seed', ?)", (seed,))
        return seed

    def done(self) -> dict[str, MatchResult]:
        """The results of every match already finished (a journal of an older format is read too)."""
        rows = self.db.execute("SELECT match_id, result FROM matches").fetchall()
        results = []
        for match_id, text in rows:
            try:
                results.append(result_from_json(json.loads(text)))
            except ValueError as error:
                raise RunError(
                    f"{self.path}: match {match_id}: {error}; use another output folder or run without --resume"
                ) from None
        return {r.match_id: r for r in results}

    def attempts(self) -> dict[str, int]:
        """The attempt each cut-off match is at (matches never cut off are at 0, not listed)."""
        return dict(self.db.execute("SELECT match_id, attempt FROM attempts").fetchall())

    def cut_off(self, match_id: str, attempt: int) -> None:
        """Record that ``match_id`` was cut off and is played next as ``attempt`` (atomic)."""
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO attempts VALUES (?, ?)", (match_id, attempt))

    def commit(self, event: str, result: MatchResult) -> None:
        """Record a finished match (atomic)."""
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO matches VALUES (?, ?, ?)",
                (result.match_id, event, json.dumps(result_to_json(result))),
            )

    def close(self) -> None:
        """Close the database."""
        self.db.close()


def finished_count(path: Path) -> int:
    """How many finished matches the journal at ``path`` keeps (0 without one), read only: what an
    interrupted run says it keeps for ``--resume``."""
    if not path.is_file():
        return 0
    with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)) as db:
        return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])


JOURNAL_FORMAT = 3
"""A journal row's ``format``: 3 keeps a match's tally (``dealer.stats.records.Tally``, no row per hand) and
a comparison's paired sums at each look (``dealer.stats.paired.PairedTally``); format 2 rows (a comparison's
hand records listed) and rows without a format (1: every hand listed) are still read."""


def result_to_json(result: MatchResult) -> dict[str, object]:
    return {
        "format": JOURNAL_FORMAT,
        "match_id": result.match_id,
        "bots": list(result.bots),
        "tally": result.tally.as_json(),
        "faults": result.faults,
        "forfeited": result.forfeited,
        "places": result.places,
        "log_tails": result.log_tails,
        "unstarted": result.unstarted,
        "strategies_refused": result.strategies_refused,
        "paired": None if result.paired is None else result.paired.as_json(),
        **({"attempt": result.attempt} if result.attempt else {}),
    }


def result_from_json(data: dict[str, Any]) -> MatchResult:
    """A journal row's result; ValueError for a format this dealer does not read. A comparison's
    match of format 1 or 2 keeps its hand records: its comparison pairs them as they are read."""
    version = data.pop("format", 1)
    records = data.pop("records", None)
    paired = data.pop("paired", None)
    rows = records if version == 2 else data.pop("hands", None) if version == 1 else None
    if version not in (1, 2, JOURNAL_FORMAT) or (version == 1 and rows is None):
        raise ValueError(f"journal row format {version!r} is not one this dealer reads (1 to {JOURNAL_FORMAT})")
    hands = None if rows is None else [HandRecord(*row) for row in rows]  # [table, deal_set, hand, bb, net, ...]
    fields = {**data, "bots": tuple(data["bots"])}
    if version == 1:  # every hand listed: fold them as the match did (comparisons keep them)
        keep = any(h.luck_net is not None for h in hands or ())
        return result_of(fields.pop("match_id"), fields.pop("bots"), hands or [], keep=keep, **fields)
    tally = Tally.from_json(data["tally"])
    pairs = None if paired is None else PairedTally.from_json(paired, data["match_id"])
    return MatchResult(**{**fields, "tally": tally, "records": hands, "paired": pairs})
