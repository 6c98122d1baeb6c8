"""The web view and report.html: what may be shown, and the page in headless Chromium.

The browser tests drive Debian's chromium (``make setup`` installs it) through Playwright; they
watch one league live, then open its report.html from file://.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
import yarl
from playwright.sync_api import Browser, Page, sync_playwright

from conftest import PY_BOTS, ROOT, SHOTS
from dealer.config.league_file import LeagueConfig, game_config, parse_league
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.league.report import LeagueReport, Progress
from dealer.web.server import WebView
from dealer.web.view import LeagueView, replay

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEALER = Path(sys.executable).parent / "dealer"
PACED = ROOT / "tests" / "bots" / "paced.py"
SEED = "s3cr3t-seed-b7f1"
DOCS = SHOTS  # the README's screenshots, saved by the tests that show them
DOCS.mkdir(exist_ok=True)


def test_hands_are_shown_only_once_every_seat_rotation_has_played_them(tmp_path: Path) -> None:
    """A duplicate match deals the same cards at two tables: a hand is passed on only when both
    have finished it, so no one sees cards a table is still playing."""
    published: list[tuple[int, int]] = []  # (rotation, hand) in the order passed on

    async def play() -> None:
        names = ["a", "b"]
        plan = MatchPlan("m", plan_tables(names, duplicate=True, tables=1), game_config(), hands=12, seed=SEED)
        entries = {n: MatchBot(n, (sys.executable, str(PY_BOTS / "random_bot.py"))) for n in names}
        async with DealerServer("127.0.0.1:0") as server:
            match = Match(
                plan, server, entries, out=tmp_path, base=ROOT, on_hand=lambda match_id, text: on_hand(match, text)
            )
            await match.run()

    def on_hand(match: Match, text: str) -> None:
        hand = replay(text)
        rotation = int(re.search(r"_rotation = (\d+)", text)[1])  # type: ignore[index]
        # Both tables have finished this hand: the other has recorded it, the one ending it now is about to.
        finished = match.result.hands + 1
        assert finished >= 2 * (hand["hand"] + 1), (rotation, hand["hand"], finished)
        published.append((rotation, hand["hand"]))

    asyncio.run(play())
    assert sorted(published) == [(r, h) for r in range(2) for h in range(12)]
    assert [h for _, h in published] == [h for h in range(12) for _ in range(2)]  # in hand order, both together


HAND = """\
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [20000, 20000]
actions = ["d dh p1 3cAd", "d dh p2 3hAh", "p1 cbr 300", "p2 cc", "d db 7hKh8c", "p2 cc", "p1 cbr 500", "p2 f"]
finishing_stacks = [20300, 19700]
players = ["a", "b"]
hand = 0
_match = "hu/0000"
_table = "hu/0000"
_rotation = 0
"""


SHOWDOWN = HAND.replace(
    '"p2 f"]', '"p2 cc", "d db 2c", "d db 9d", "p1 cc", "p2 cc", "p1 sm 3cAd", "p2 sm 3hAh"]'
).replace("hand = 0", "hand = 1")


def _config() -> LeagueConfig:
    return parse_league(f"""\
name: t
seed: {SEED}
bots:
  - {{name: a, command: [{sys.executable}, -c, pass]}}
  - {{name: b, command: [{sys.executable}, -c, pass]}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 5}}
""")


@pytest.mark.parametrize("page", ["page.html", "seat.html"])
def test_each_page_names_its_icon_so_the_browser_asks_for_no_favicon(page: str) -> None:
    """No /favicon.ico request (a 404 in the browser's console): the icon is an empty data: URL."""
    html = (ROOT / "dealer" / "web" / "static" / page).read_text(encoding="utf-8")
    assert '<link rel="icon" href="data:,">' in html.split("</head>")[0]


def test_snapshot_holds_no_seed_and_replays_a_hand() -> None:
    view = LeagueView(_config(), 1)
    view.on_hand("hu/0000", HAND)
    view.on_progress(Progress(0, 1, 1, 1.0, 1.0, LeagueReport(view.config, 1)))
    snapshot = view.snapshot()
    assert SEED not in json.dumps(snapshot) and "seed" not in snapshot
    (hand,) = snapshot["hands"].values()
    steps = hand["steps"]
    assert [s["action"] for s in steps] == [
        "blinds and antes",
        "a raises to 300",
        "b calls 200",
        "board 7hKh8c",
        "b checks",
        "a raises to 500",
        "b folds",
        "a wins the pot of 1100",
    ]
    assert [s["pot"] for s in steps] == [150, 400, 600, 600, 600, 1100, 1100, 1100]
    assert steps[-1]["stacks"] == [20300, 19700] and hand["cards"] == ["", ""]  # b folded: unshown
    assert hand["winners"] == ["a"] and hand["won"] == [300, -300] and not hand["showdown"]


def test_the_live_view_needs_its_key_and_shows_only_cards_shown_down() -> None:
    """A bot on the host network can reach the port: without the key every route answers 403 and
    nothing else; with it, a hand that ended in a fold shows no hole cards while the event runs."""
    view = LeagueView(_config(), 2)
    view.on_hand("hu/0000", HAND)  # b folds: no one's cards were shown
    view.on_hand("hu/0000", SHOWDOWN)  # both show down

    async def visit() -> tuple[dict[str, tuple[int, str]], dict[str, tuple[int, str]], str]:
        web, other = WebView(view, "127.0.0.1:0"), WebView(view, "127.0.0.1:0")  # two dealers on one host
        url, other_url = yarl.URL(await web.start()), yarl.URL(await other.start())
        key = url.query["key"]
        assert len(key) >= 40 and url.path == "/"
        base = url.with_query(None)
        routes = ("", "state", "events", "static/app.js")
        try:
            async with aiohttp.ClientSession() as stranger:
                refused = {r: await _get(stranger, base / r) for r in routes}
                wrong = ("y" if key.startswith("x") else "x") + key[1:]  # one character off, never the key itself
                refused["bad key"] = await _get(stranger, (base / "state").with_query(key=wrong))
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as organiser:  # on an IP
                served = {"": await _get(organiser, url)}  # the key in the URL, then the cookie
                served["other"] = await _get(organiser, other_url)  # cookies ignore ports: each keeps its own
                served |= {r: await _get(organiser, base / r) for r in ("state", "static/app.js")}
                served["other state"] = await _get(organiser, other_url.with_query(None) / "state")
                async with organiser.get(base / "events") as response:
                    first = (await response.content.readuntil(b"\n\n")).decode()
        finally:
            await web.stop()
            await other.stop()
        return refused, served, first

    refused, served, event = asyncio.run(visit())
    assert all(status == 403 and "3c" not in body and "hands" not in body for status, body in refused.values())
    assert all(status == 200 for status, _ in served.values()), {r: status for r, (status, _) in served.items()}
    assert event.startswith("event: state\ndata: ")
    for text in (served["state"][1], event.removeprefix("event: state\ndata: ")):
        hands = {h["hand"]: h for h in json.loads(text)["hands"].values()}
        assert hands[0]["cards"] == ["", ""] and "3cAd" not in json.dumps(hands[0])  # folded: unrevealed
        assert hands[1]["cards"] == ["3cAd", "3hAh"]  # shown down
    after = LeagueView(_config(), 2, reveal=True)  # report.html's view, once the event is over: every hand whole
    after.on_hand("hu/0000", HAND)
    assert [h["cards"] for h in after.snapshot()["hands"].values()] == [["3cAd", "3hAh"]]


async def _get(session: aiohttp.ClientSession, url: yarl.URL) -> tuple[int, str]:
    async with session.get(url) as response:
        return response.status, await response.text()


# ------------------------------------------------------------------------------ in the browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make setup` installs Debian's chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _league(folder: Path) -> Path:
    path = folder / "web.yaml"
    path.write_text(
        f"""\
name: web league
seed: {SEED}
jobs: 1
out: {folder / "out"}
bots:
  - {{name: paced, command: [{sys.executable}, {PACED}, "15"]}}
  - {{name: caller, command: [{sys.executable}, {PY_BOTS / "call_bot.py"}]}}
  - {{name: random, command: [{sys.executable}, {PY_BOTS / "random_bot.py"}]}}
game: {{time: {{per_action_ms: 3000, startup_ms: 30000}}}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 30}}
  - {{name: final, format: freezeout, table_size: 3, blind_levels: [[50, 100], [400, 800]], hands_per_level: 10,
     max_hands: 40}}
""",
        encoding="utf-8",
    )
    return path


BOTS = ("caller", "random", "paced")


def _check_page(page: Page, *, live: bool) -> None:
    """Every bot in the standings, a chart per bot drawn, and the hand view steps through a hand
    (live, only the cards shown down; in the report every hand's hole cards)."""
    for name in BOTS:
        page.locator(f'[data-testid=overall] tr[data-bot="{name}"]').wait_for()
    page.locator(".chart canvas").first.wait_for()
    assert page.locator(".chart").count() == len(BOTS) and page.locator(".chart canvas").count() >= len(BOTS)
    label = page.get_by_test_id("step-label")
    assert label.inner_text().startswith("step 1/")
    page.get_by_test_id("step-next").click()
    page.get_by_test_id("step-next").click()
    assert label.inner_text().startswith("step 3/"), label.inner_text()
    if not live:
        assert page.locator("[data-testid=tableview] .seat .card").count() >= 4  # the finished hand's hole cards
    assert SEED not in page.content()


def _first_seconds(page: Page) -> None:
    """Before the first match ends: every bot named (roster and live standings), what plays now,
    and a hand count that rises; the standings marked provisional. Screenshot for the README."""
    for name in BOTS:
        page.locator(f'[data-testid=roster] [data-bot="{name}"]').wait_for()
    page.wait_for_function("() => current.progress.done === 0 && current.progress.hands > 0")
    first = page.evaluate("current.progress.hands")
    page.wait_for_function("n => current.progress.done === 0 && current.progress.hands > n", arg=first)
    assert page.get_by_test_id("provisional").inner_text() == "provisional"
    assert page.locator("[data-testid=now] .match").count() >= 1
    assert page.locator("[data-testid=live-standings] tr[data-bot]").count() == len(BOTS)
    assert re.match(r"0/4 matches · [1-9][\d,]* hands", page.get_by_test_id("progress").inner_text())
    if page.evaluate("current.progress.done") == 0:
        page.screenshot(path=str(DOCS / "web-live.png"))


def _reconnect(page: Page) -> None:
    """The page got the state once, then deltas; reconnected, it gets the state once more, then deltas."""
    sent = page.evaluate("dealerStream")
    assert sent["state"] == 1 and sent["patch"] >= 1, sent
    page.evaluate("dealerReconnect()")
    page.wait_for_function("n => dealerStream.state === 2 && dealerStream.patch > n + 1", arg=sent["patch"])
    sent = page.evaluate("dealerStream")
    patches = sent["patchBytes"]
    print(f"state {sent['stateBytes']} bytes; {len(patches)} patches, mean {sum(patches) / len(patches):.0f} bytes")
    assert sum(patches) / len(patches) < sent["stateBytes"] / 3


def test_live_page_and_report(browser: Browser, tmp_path: Path) -> None:
    yaml = _league(tmp_path)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    dealer = subprocess.Popen(
        [str(DEALER), "run", str(yaml), "--web", "127.0.0.1:0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = dealer.stdout.readline()  # type: ignore[union-attr]
        url = re.fullmatch(r"web view on ((http://127\.0\.0\.1:\d+/)\?key=[\w-]{43})\n", line)
        assert url is not None, line + dealer.stderr.read()  # type: ignore[union-attr]
        assert page.request.get(url[2]).status == 403  # no key yet
        page.goto(url[1])
        page.get_by_test_id("status").filter(has_text="live").wait_for()
        _first_seconds(page)
        _reconnect(page)
        first = page.get_by_test_id("progress").inner_text()
        page.wait_for_function("t => document.querySelector('[data-testid=progress]').innerText !== t", arg=first)
        assert page.get_by_test_id("status").inner_text() == "live"  # it changed while the league played
        _check_page(page, live=True)
        state = json.loads(page.request.get(url[2] + "state").text())  # the key's cookie, set by the page
        assert SEED not in json.dumps(state) and "seed" not in state
        for hand in state["hands"].values():  # hole cards only where shown down
            shown = [step["action"].split()[-1] for step in hand["steps"] if " shows " in step["action"]]
            assert all(cards in shown for cards in hand["cards"] if cards), hand
        _, err = dealer.communicate(timeout=240)
    finally:
        if dealer.poll() is None:
            dealer.kill()
            dealer.wait()
    assert dealer.returncode == 0, err[-3000:]
    assert page.get_by_test_id("status").inner_text().startswith("final")

    report = tmp_path / "out" / "report.html"
    offline = browser.new_page(viewport={"width": 1400, "height": 1000})
    offline.on("pageerror", lambda error: errors.append(str(error)))
    offline.on("request", lambda request: errors.append(request.url) if not request.url.startswith("file:") else None)
    offline.goto(report.as_uri())
    assert offline.get_by_test_id("status").inner_text() == "report"
    _check_page(offline, live=False)
    assert offline.get_by_test_id("progress").inner_text().startswith("4/4 matches")
    assert errors == []


def test_bots_named_like_object_members_keep_their_charts_table_view_and_log_tails(
    browser: Browser, tmp_path: Path
) -> None:
    """Names are data in the page's script too: bots named ``constructor``, ``__proto__`` and
    ``toString`` (the name pattern allows them) get their standings, charts, head-to-head cells,
    table view and fault log tails, as any other bot does."""
    names = ("constructor", "__proto__", "toString")
    dies = tmp_path / "dies.py"
    dies.write_text("import sys\nsys.exit('toString: no model file')\n", encoding="utf-8")
    commands = {"constructor": PY_BOTS / "call_bot.py", "__proto__": PY_BOTS / "random_bot.py", "toString": dies}
    yaml = tmp_path / "names.yaml"
    bots = "".join(f"  - {{name: '{n}', command: [{sys.executable}, {commands[n]}]}}\n" for n in names)
    yaml.write_text(
        f"name: names\nseed: {SEED}\nout: {tmp_path / 'out'}\nbots:\n{bots}"
        "game: {time: {per_action_ms: 3000, startup_ms: 30000}}\n"
        "events:\n  - {name: hu, format: round-robin, table_size: 2, hands: 6}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(DEALER), "run", str(yaml), "--keep-going"], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((tmp_path / "out" / "report.html").as_uri())
    page.get_by_test_id("status").filter(has_text="report").wait_for()
    for name in names:
        assert page.locator(f'[data-testid=overall] tr[data-bot="{name}"]').count() == 1, name
        assert page.locator(f'.chart[data-bot="{name}"] canvas').count() >= 1, name
    assert page.locator("[data-testid=h2h] td[data-significant]").count() == 6  # each ordered pair of the three
    assert page.get_by_test_id("step-label").inner_text().startswith("step 1/")
    assert page.locator("[data-testid=faults] h3").filter(has_text="toString in hu/").count() == 2
    assert "no model file" in page.get_by_test_id("faults").inner_text()
    assert errors == []
