"""A seat for a person (``dealer play``): their browser is a connection like any bot's
(dealer.connect.human, dealer.web.seat), under the same rules, clocks and fault policy. Driven in headless
Chromium through Playwright: ten hands against the call bot, then read back from the histories."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import Browser

from conftest import PY_BOTS, ROOT
from test_web import DEALER, DOCS, browser  # noqa: F401  (the module's browser fixture)

SEAT = re.compile(r"your seat on ((http://127\.0\.0\.1:\d+/)seat\?key=[\w-]{43})\n")
OVER = "document.querySelector('[data-testid=seat-status]').innerText === 'match over'"
CALLER = f"python {PY_BOTS / 'call_bot.py'}"


@contextlib.contextmanager
def _play(out: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    args = [str(DEALER), "play", CALLER, "--web", "127.0.0.1:0", "--out", str(out), *options]
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        url = SEAT.fullmatch(line)
        assert url is not None, line + process.stderr.read()  # type: ignore[union-attr]
        yield process, url[1]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _hands(out: Path) -> list[dict[str, object]]:
    (history,) = (out / "hands").glob("*.phhs")
    tables = tomllib.loads(history.read_text(encoding="utf-8"))
    return [tables[key] for key in sorted(tables, key=int)]


def test_a_person_plays_ten_hands_against_the_call_bot_from_the_browser(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Their cards, the board, the legal actions (a raise by the slider's box, a fold, calls and
    checks) and their clock; each hand's result; the ten hands in the match's histories."""
    out = tmp_path / "out"
    with _play(out, "--hands", "10", "--name", "ada") as (process, url):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        status, actions = page.get_by_test_id("seat-status"), []
        while True:
            page.wait_for_function(f"() => document.body.dataset.request || {OVER}")
            if status.inner_text() == "match over":
                break
            assert page.locator("[data-testid=my-seat] .card:not(.back)").count() == 2  # my hole cards
            assert page.locator("[data-testid=my-seat] b").inner_text() == "ada (you)"
            assert re.fullmatch(r"your turn: \d+\.\d s", page.get_by_test_id("seat-clock").inner_text())
            asked = page.evaluate("document.body.dataset.request")
            played = int(page.get_by_test_id("seat-score").get_attribute("data-played") or 0)
            raise_ = page.get_by_test_id("act-raise")
            if played == 1 and not actions and raise_.count():
                page.get_by_test_id("raise-amount").fill("300")
                page.screenshot(path=str(DOCS / "web-seat.png"))
                raise_.click()
                actions.append("raise")
            elif played >= 3 and page.get_by_test_id("act-fold").count() and "fold" not in actions:
                page.get_by_test_id("act-fold").click()
                actions.append("fold")
            else:
                page.get_by_test_id("act-call").click()
            page.wait_for_function("n => document.body.dataset.request !== n", arg=asked)
        assert page.get_by_test_id("seat-score").get_attribute("data-played") == "10"
        assert page.locator("[data-testid=seat-results] tr").count() == 11  # a header and ten hands
        assert errors == []
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err[-3000:]
    hands = _hands(out)
    assert len(hands) == 10 and all("ada" in h["players"] for h in hands)  # type: ignore[operator]
    moves = [a for h in hands for a in h["actions"] if not a.startswith("d ")]  # type: ignore[attr-defined]
    mine = {h["players"].index("ada") + 1 for h in hands}  # type: ignore[attr-defined]
    assert any(re.fullmatch(rf"p[{''.join(map(str, mine))}] cbr 300", m) for m in moves), moves
    assert any(m.endswith(" f") for m in moves)
    record = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert record["hands"] == 10 and {s["name"] for s in record["standings"]} == {"ada", "call_bot"}
    assert all(not s["faults"] for s in record["standings"]), record["standings"]


def test_a_person_who_walks_away_times_out_as_a_bot_would(tmp_path: Path) -> None:
    """No page opened: each request times out (the dealer checks or folds for the seat), and after
    three in a row the seat is failed under the fold policy; the match plays to its end."""
    out = tmp_path / "out"
    with _play(out, "--hands", "4", "--per-action-ms", "200", "--bank-ms", "0") as (process, _):
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err[-3000:]
    record = json.loads((out / "results.json").read_text(encoding="utf-8"))
    faults = {s["name"]: s["faults"] for s in record["standings"]}
    assert faults["you"] == {"timeout": 3} and faults["call_bot"] == {}, faults
    assert len(_hands(out)) == 4
