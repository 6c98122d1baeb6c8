"""The live page's data from the first second (dealer.web.live) and its event stream of deltas
(dealer.web.delta): what plays now, counted only from hands safe to show, and a stream that sends
the whole state once, then only what changed."""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yarl

from conftest import PY_BOTS
from dealer.cli.league import LeagueOptions, play_league
from dealer.config.league_file import load_league
from dealer.web import server as web_server
from dealer.web.delta import apply, diff
from dealer.web.live import LiveBoard, Scheduled
from dealer.web.server import WebView
from dealer.web.view import LeagueView
from test_web import HAND, SHOWDOWN, _config

SCHEDULE = [Scheduled("hu/0000", "hu", ((1, ("a", "b")),), 5), Scheduled("hu/0001", "hu", ((2, ("b", "a")),), 5)]


def _hand(number: int, text: str = HAND) -> str:
    return text.replace("hand = 0", f"hand = {number}").replace("hand = 1", f"hand = {number}") + "_table_id = 1\n"


def test_what_plays_now_is_counted_from_hands_passed_on_and_shows_no_card() -> None:
    """Before any match ends: the roster, the match playing with its running score, the next one,
    the hands counted, and standings marked provisional; no hole or board card of those hands."""
    view = LeagueView(_config(), 2, schedule=SCHEDULE)
    first = view.snapshot()
    assert [b["name"] for b in first["live"]["roster"]] == ["a", "b"]
    assert [m["match"] for m in first["live"]["next"]] == ["hu/0000", "hu/0001"] and first["live"]["now"] == []
    view.on_start("hu/0000")
    view.on_hand("hu/0000", _hand(0))  # a wins 3 bb (b folds)
    view.on_hand("hu/0000", _hand(1, SHOWDOWN))
    live = view.snapshot()["live"]
    (now,) = live["now"]
    assert now["match"] == "hu/0000" and now["tables"] == [
        {"table": 1, "seats": ["a", "b"], "hands": 2, "bb": [6.0, -6.0]}
    ]
    assert [m["match"] for m in live["next"]] == ["hu/0001"]
    assert live["standings"]["provisional"] and [line["hands"] for line in live["standings"]["lines"]] == [2, 2]
    assert view.snapshot()["progress"]["hands"] == 2
    text = json.dumps(live)
    assert not any(card in text for card in ("3c", "Ad", "7h", "Kh", "2c", "9d"))


def test_a_freezeouts_running_score_counts_in_its_first_big_blind() -> None:
    """As the standings do (``MatchPlan.chip_unit``): 300 chips won when the blinds are 200/400
    are 3 big blinds of the first level (100), not 0.75 of that hand's."""
    board = LiveBoard([Scheduled("final/0000", "final", ((1, ("a", "b")),), 40, unit=100)], [])
    board.start("final/0000")
    board.hand("final/0000", _hand(0).replace("[50, 100]", "[200, 400]"))
    (now,) = board.data()["now"]
    assert now["tables"] == [{"table": 1, "seats": ["a", "b"], "hands": 1, "bb": [3.0, -3.0]}]


def _null_free(value: Any) -> Any:
    """``value`` as a page holds it after patches: a key whose value is null is absent."""
    if isinstance(value, dict):
        return {k: _null_free(v) for k, v in value.items() if v is not None}
    return value


def test_the_stream_sends_the_state_once_then_deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page gets ``event: state`` once, then ``event: patch`` messages that, merged, give the
    state ``/state`` serves; a second page (a reconnect) gets the whole state again. Each delta is
    a fraction of the state (bytes per update printed)."""
    monkeypatch.setattr(web_server, "PUSH_S", 0.02)
    view = LeagueView(_config(), 2, schedule=SCHEDULE)

    async def watch() -> tuple[list[tuple[str, str]], list[tuple[str, str]], dict[str, Any]]:
        web = WebView(view, "127.0.0.1:0")
        url = yarl.URL(await web.start())
        events: list[tuple[str, str]] = []
        again: list[tuple[str, str]] = []
        stream_url = url.with_path("/events").with_query(key=url.query["key"])
        try:
            async with aiohttp.ClientSession() as page, page.get(stream_url) as stream:
                reader = asyncio.create_task(_collect(stream, events))
                view.on_start("hu/0000")
                for number in range(30):
                    view.on_hand("hu/0000", _hand(number, SHOWDOWN if number % 3 else HAND))
                    await asyncio.sleep(0.03)
                async with page.get(stream_url) as second:  # a page that reconnects
                    first = await _event(second)
                    assert first is not None
                    again.append(first)
                view.on_hand("hu/0000", _hand(30))
                await asyncio.sleep(0.1)
                await web.stop()  # the last patch, then the end of the stream
                await reader
        finally:
            await web.stop()  # again, if the test failed before (a second stop does nothing)
        return events, again, json.loads(json.dumps(web.state))

    events, again, state = asyncio.run(watch())
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "state" and set(kinds[1:]) == {"patch"} and len(kinds) >= 10, kinds
    merged = json.loads(events[0][1])
    for _, data in events[1:]:
        merged = apply(merged, json.loads(data))
    assert _null_free(merged) == _null_free(state)
    assert again[0][0] == "state" and len(json.loads(again[0][1])["hands"]) >= 20
    whole, patches = len(again[0][1]), [len(data) for _, data in events[1:]]
    print(
        f"state {whole} bytes; {len(patches)} patches, mean {sum(patches) / len(patches):.0f}, max {max(patches)} bytes"
    )
    assert max(patches) < whole / 2 and sum(patches) / len(patches) < whole / 5


async def _collect(stream: aiohttp.ClientResponse, into: list[tuple[str, str]]) -> None:
    """Every event until the stream ends."""
    while event := await _event(stream):
        into.append(event)


async def _event(stream: aiohttp.ClientResponse) -> tuple[str, str] | None:
    """One Server-Sent Event: its kind and data (None at the end of the stream)."""
    block = (await stream.content.readuntil(b"\n\n")).decode().strip()
    if not block:
        return None
    fields = dict(line.split(": ", 1) for line in block.split("\n"))
    return fields["event"], fields["data"]


def test_a_merge_patch_adds_changes_and_removes_keys() -> None:
    old = {"a": 1, "b": {"c": [1, 2], "d": "x"}, "gone": True}
    new = {"a": 1, "b": {"c": [1, 2, 3], "d": "x"}, "new": {"e": None}}
    patch = diff(old, new)
    assert patch == {"gone": None, "b": {"c": [1, 2, 3]}, "new": {"e": None}}
    assert apply(old, patch) == {"a": 1, "b": {"c": [1, 2, 3], "d": "x"}, "new": {}}
    assert diff(new, new) == {}


def test_with_a_drawn_seed_the_live_page_names_the_bots_that_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``seed: random`` (the shipped tournaments.yaml): the page's schedule is seated with the drawn
    seed, so "now playing" names the bots dealer.log says each match launched, and each 3-player
    table's running score gives each seat's chips (as the hand histories, read as TOML, total them)
    to the bot that won them."""
    bots_by_name = [("a", "call"), ("b", "random"), ("c", "call"), ("d", "random")]
    now: dict[str, dict[int, list[str]]] = {}  # match -> table -> seats, as the page lists them
    final: dict[str, dict[int, dict[str, float]]] = {}  # match -> table -> bot -> bb, as the page totals them
    start, finish = LiveBoard.start, LiveBoard.finish

    def started(board: LiveBoard, match_id: str) -> None:
        start(board, match_id)
        shown = next(m for m in board.data()["now"] if m["match"] == match_id)
        now[match_id] = {t["table"]: t["seats"] for t in shown["tables"]}

    def finished(board: LiveBoard, match_id: str) -> None:
        for shown in board.data()["now"]:
            if shown["match"] == match_id:  # (a match is in the report once: finished once)
                final[match_id] = {t["table"]: dict(zip(t["seats"], t["bb"], strict=True)) for t in shown["tables"]}
        finish(board, match_id)

    monkeypatch.setattr(LiveBoard, "start", started)
    monkeypatch.setattr(LiveBoard, "finish", finished)
    out = tmp_path / "out"
    bots = "".join(
        f"  - {{name: {n}, command: [{sys.executable}, {PY_BOTS / f'{b}_bot.py'}]}}\n" for n, b in bots_by_name
    )
    yaml = tmp_path / "random.yaml"
    yaml.write_text(
        f"name: drawn\nseed: random\njobs: 2\nout: {out}\nbots:\n{bots}"
        "events:\n  - {name: three, format: round-robin, table_size: 3, hands: 3}\n",
        encoding="utf-8",
    )
    try:
        play_league(load_league(yaml), False, None, LeagueOptions(web="127.0.0.1:0"))
    finally:
        for handler in list(logging.getLogger("dealer").handlers):
            logging.getLogger("dealer").removeHandler(handler)
            handler.close()
    launched = dict(
        re.findall(r"match (\S+): \d+ tables?, .*?, bots (.*), fault policy", (out / "dealer.log").read_text())
    )
    assert len(launched) == 4 and sorted(now) == sorted(launched)
    for match_id, tables in now.items():
        assert {name for seats in tables.values() for name in seats} == set(launched[match_id].split(", "))
        for path in (out / "matches" / match_id / "hands").glob("*.phhs"):
            hands = tomllib.loads(path.read_text(encoding="utf-8")).values()
            number = next(iter(hands))["_table_id"]
            won = collections.Counter[str]()
            for hand in hands:
                assert set(hand["players"]) == set(now[match_id][number])  # the page's table is this table
                for name, before, after in zip(
                    hand["players"], hand["starting_stacks"], hand["finishing_stacks"], strict=True
                ):
                    won[name] += (after - before) / max(hand["blinds_or_straddles"])
            assert final[match_id][number] == pytest.approx(
                {name: won[name] for name in now[match_id][number]}, abs=0.051
            )
