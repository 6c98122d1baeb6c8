"""The arena's pages in Debian's chromium (Playwright), on one arena served by ``dealer arena serve``
for the whole module (builds are real: the sandbox, then the smoke match against the house bot).

A team logs in with its token, drops the Python sample bot's archive on its page and watches it
build and pass its smoke test; a second team cannot open the first's logs; markup in a bot's
manifest and log (``<img onerror>``, ``</script><script>``) shows as text and runs nothing on any
page (every page is watched for dialogs, script errors and console errors, CSP reports included).
Screenshots go to a temporary folder, or to docs/ (the README's) with ``DEALER_SCREENSHOTS=1``.
"""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
import tarfile
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from conftest import ROOT, SHOTS
from dealer.arena.pages import SCRIPTS
from test_web import CHROMIUM, CHROMIUM_ARGS

DEALER = Path(sys.executable).parent / "dealer"
XSS = "<img src=x onerror=alert(1)>"
SCRIPT_END = "</script><script>alert(2)</script>"
API_ROUNDING = 0.0005 + 1e-9  # the API rounds its figures to 3 decimals: half a unit off, and a float's noise


def _tar(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


SAMPLE_BOT = _tar(  # the Python sample bot, as the README's demo submits it
    {
        "bot.yaml": b"protocol: grpc\nrun: python3 strength_bot.py\n",
        "strength_bot.py": (ROOT / "sample_bots" / "python" / "strength_bot.py").read_bytes(),
    }
)
NOISY_BOT = _tar(  # markup in its manifest and in what it prints, build and bot logs alike
    {
        "bot.yaml": f"protocol: stdio\nbuild: echo '{XSS}' '{SCRIPT_END}'\nrun: python3 noisy.py '{XSS}'\n".encode(),
        "noisy.py": (
            "import os, runpy, sys\n"
            f"print({SCRIPT_END!r}, {XSS!r}, file=sys.stderr, flush=True)\n"
            "runpy.run_path(os.path.join(os.path.dirname(__file__), 'bot.py'), run_name='__main__')\n"
        ).encode(),
        "bot.py": (ROOT / "sample_bots" / "python" / "stdio_bot.py").read_bytes(),
    }
)


@dataclass
class Arena:
    """The running arena: its URL, its teams' tokens, and where screenshots go."""

    url: str
    tokens: dict[str, str]
    shots: Path
    config: Path
    versions: dict[str, int] = field(default_factory=dict)
    match: str = ""  # a match alpha played


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    folder = tmp_path_factory.mktemp("arena")
    config = folder / "arena.yaml"
    config.write_text(
        "listen: 127.0.0.1:0\nbuild: {smoke_hands: 5}\nladder: {jobs: 1, hands: 10}\n"
        "game: {time: {per_action_ms: 3000, startup_ms: 30000}}\n",
        encoding="utf-8",
    )

    def cli(*args: str) -> str:
        return subprocess.run(
            [DEALER, "arena", *args, "-c", str(config)], capture_output=True, text=True, check=True
        ).stdout

    cli("migrate")
    tokens = {name: cli("team", "add", name).strip() for name in ("alpha", "beta", "mallory")}
    tokens["organiser"] = cli("organiser-token").strip()
    log = open(folder / "serve.log", "wb")  # noqa: SIM115 (closed below)
    server = subprocess.Popen([DEALER, "arena", "serve", str(config)], stderr=log, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (
            found := re.search(r"arena on (\S+)/api/v1\narena pages on .*\n", (folder / "serve.log").read_text())
        ):
            assert server.poll() is None and time.monotonic() < deadline, (folder / "serve.log").read_text()
            time.sleep(0.1)
        said = (folder / "serve.log").read_text()  # both addresses: the API's and the pages'
        assert f"arena pages on {found[1]}/leaderboard (teams log in at {found[1]}/login" in said, said
        assert f"the API's OpenAPI document: {found[1]}/api/v1/openapi.yaml" in said
        SHOTS.mkdir(exist_ok=True)
        yield Arena(found[1], tokens, SHOTS, config)
    finally:
        server.terminate()
        server.wait(30)
        log.close()
    served = (folder / "arena" / "arena.log").read_text()
    assert "web login: team mallory" in served, "the server's log lost its lines"
    assert not re.search(r"(team|org)_[A-Za-z0-9_-]{20,}", served), "a token in the server's log"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make setup` installs Debian's chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Watched:
    """A browser context whose pages' dialogs, uncaught errors and console errors are all recorded."""

    def __init__(self, browser: Browser, url: str, **options: object) -> None:
        self.context: BrowserContext = browser.new_context(base_url=url, **options)  # type: ignore[arg-type]
        self.problems: list[str] = []
        self.page = self.context.new_page()
        self.page.on("dialog", lambda dialog: (self.problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
        self.page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        self.page.on(
            "console",
            lambda message: (
                self.problems.append(f"console: {message.text} {message.location}") if message.type == "error" else None
            ),
        )

    def login(self, token: str) -> Page:
        page = self.page
        page.goto("/login")
        page.get_by_label("Your team's token").fill(token)
        page.get_by_role("button", name="Log in").click()
        return page

    def close(self) -> None:
        self.context.close()


def _drop(page: Page, data: bytes, name: str) -> None:
    """Drop a file on the upload zone as a user's drag and drop would (a DataTransfer in a drop event)."""
    page.evaluate(
        """([b64, name]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type: "application/gzip" }));
            const zone = document.querySelector('[data-testid="drop"]');
            for (const type of ["dragenter", "dragover", "drop"])
                zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
        }""",
        [base64.b64encode(data).decode(), name],
    )


def _ready(page: Page, label: str, timeout_s: float = 120) -> set[str]:
    """Wait for version ``label`` to be ready on the team's page; the other states the page showed meanwhile."""
    state, seen = page.get_by_test_id("versions").locator(f'tr[data-version="{label}"]').get_by_test_id("state"), set()
    deadline = time.monotonic() + timeout_s
    while (shown := state.inner_text()) != "ready" and time.monotonic() < deadline:
        seen.add(shown)
        assert shown != "failed", page.get_by_test_id("log-text").inner_text()
        page.wait_for_timeout(100)
    assert shown == "ready", seen
    return seen


def test_a_team_uploads_the_sample_bot_and_watches_it_build_and_pass_its_smoke_test(
    browser: Browser, arena: Arena
) -> None:
    alpha = Watched(browser, arena.url, viewport={"width": 1280, "height": 900})
    page = alpha.login(arena.tokens["alpha"])
    expect(page).to_have_url(f"{arena.url}/team")
    assert arena.tokens["alpha"] not in page.url
    expect(page.get_by_test_id("team-name")).to_contain_text("Logged in as alpha")
    _drop(page, SAMPLE_BOT, "strength_bot.tar.gz")
    expect(page.get_by_role("status").filter(has_text="v1 stored")).to_be_visible()
    row = page.get_by_test_id("versions").locator('tr[data-version="v1"]')
    expect(row.get_by_test_id("state")).to_have_text(re.compile("queued|building…|ready"))
    seen = _ready(page, "v1")
    assert seen & {"queued", "building…"}, seen  # the page followed the build as it ran
    expect(row.get_by_test_id("smoke")).to_contain_text("passed: 10 hands, no fault")
    log = page.get_by_test_id("log-text")  # the new version's build log is open, updated live
    expect(log).to_contain_text("[arena] smoke test passed: 10 hands, no fault")
    row.get_by_role("button", name="bot log").click()
    expect(page.get_by_role("heading", name="v1: the bot's log in its smoke match")).to_be_visible()
    row.get_by_role("button", name="make active").click()
    expect(page.get_by_test_id("team-name")).to_contain_text("active: v1")
    page.screenshot(path=str(arena.shots / "arena-team.png"), full_page=True)
    page.goto("/leaderboard")  # the ladder plays alpha's v1 against the house bot: alpha is rated
    line = page.locator('tr[data-team="alpha"]')
    expect(line.locator("td").first).to_have_text(re.compile(r"^\d+$"), timeout=120_000)
    expect(line).to_contain_text("v1")
    expect(line.locator("td").nth(4)).to_have_text(re.compile(r"^[1-9]\d*$"))  # matches played
    page.screenshot(path=str(arena.shots / "arena-leaderboard.png"), full_page=True)
    page.get_by_label("search teams").fill("alp")
    expect(page.locator("tbody tr")).to_have_count(1)
    line.get_by_role("link", name="alpha").click()
    expect(page.get_by_role("heading", name="alpha", exact=True)).to_be_visible()
    expect(page.get_by_test_id("rating-chart").locator("canvas")).to_have_count(1)
    page.screenshot(path=str(arena.shots / "arena-team-public.png"), full_page=True)
    match = page.locator("tr[data-match]").filter(has_text="applied").first
    expect(match.get_by_test_id("seats")).to_have_text(
        re.compile(r"^(alpha v1 [+-]\d+ vs house v1 [+-]\d+|house v1 [+-]\d+ vs alpha v1 [+-]\d+)$")
    )
    link = match.get_by_role("link", name=re.compile(r"^#\d+$"))
    match_url = link.get_attribute("href")
    link.click()
    expect(page.get_by_role("heading", name="Result per duplicate group")).to_be_visible()
    label = page.get_by_test_id("step-label")
    expect(label).to_contain_text("step 1/")
    page.get_by_test_id("step-next").click()
    expect(label).to_contain_text("step 2/")
    page.get_by_test_id("step-next").click()
    expect(label).to_contain_text("step 3/")
    expect(page.get_by_test_id("seat")).to_have_count(2)
    page.screenshot(path=str(arena.shots / "arena-match.png"), full_page=True)
    phh = page.locator('a[href*="/hands/"]').first.get_attribute("href")
    assert phh is not None and page.request.get(arena.url + phh).text().startswith("[1]")
    arena.match = str(match_url)
    page.goto("/team")  # its own page: the ladder's figures and its bot's log in that match
    expect(page.get_by_test_id("ladder").locator('tr[data-version="v1"]')).to_contain_text("playing")
    page.get_by_test_id("ladder").locator(f'tr[data-match="{match_url.rsplit("/", 1)[1]}"]').get_by_role(
        "button"
    ).click()
    expect(page.get_by_test_id("log-text")).to_contain_text("[arena] alpha-v1.")
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(f"{arena.url}/leaderboard")
    assert page.goto("/team").url.endswith("/login")
    assert alpha.problems == []
    alpha.close()
    arena.versions["alpha"] = 1


def test_a_second_team_cannot_open_the_first_teams_logs(browser: Browser, arena: Arena) -> None:
    if "alpha" not in arena.versions:
        pytest.fail("the upload test did not leave alpha a version")
    beta = Watched(browser, arena.url)
    page = beta.login(arena.tokens["beta"])
    expect(page.get_by_test_id("versions")).to_contain_text("No version yet")
    for path in ("/api/v1/versions/1/build", "/api/v1/versions/1/bot-log", "/api/v1/versions/v1"):
        response = page.goto(path)
        assert response is not None and response.status == 404, path
        assert "smoke test" not in page.content() and "strength_bot" not in page.content()
    response = page.goto("/organiser")
    assert response is not None and response.status == 403
    page.goto(arena.match)  # a match of alpha's: its result, never its hands
    expect(page.get_by_test_id("hands-hidden")).to_contain_text("shown to the teams that played it")
    assert page.get_by_test_id("replayer").count() == 0
    file = arena.match + "/hands/x.phhs"
    assert page.request.get(arena.url + file).status == 404
    beta.close()


def test_markup_from_a_team_runs_no_script_on_any_page(browser: Browser, arena: Arena) -> None:
    mallory = Watched(browser, arena.url, viewport={"width": 390, "height": 844})  # a phone
    page = mallory.login(arena.tokens["mallory"])
    page.locator("#archive").set_input_files(
        files=[{"name": "noisy.tar.gz", "mimeType": "application/gzip", "buffer": NOISY_BOT}]
    )
    _ready(page, "v1")
    row = page.get_by_test_id("versions").locator('tr[data-version="v1"]')
    expect(row).to_contain_text(f"echo '{XSS}' '{SCRIPT_END}'")
    expect(page.get_by_test_id("log-text")).to_contain_text(f"{XSS} {SCRIPT_END}")
    row.get_by_role("button", name="bot log").click()
    expect(page.get_by_test_id("log-text")).to_contain_text(f"{SCRIPT_END} {XSS}")
    row.get_by_role("button", name="make active").click()
    expect(page.get_by_test_id("team-name")).to_contain_text("active: v1")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "wider than a phone"
    assert page.locator("img").count() == 0 and page.locator("script").count() == len(SCRIPTS)
    for path in ("/leaderboard", "/teams/mallory", "/teams/alpha", "/matches", arena.match, "/finals"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
        assert page.locator("img").count() == 0
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (path, "wider than a phone")
    page.get_by_role("button", name="Log out").click()
    organiser = mallory.login(arena.tokens["organiser"])
    expect(organiser.locator('tr[data-team="mallory"]')).to_contain_text("v1")
    house = organiser.locator('tr[data-team="house"]')  # the arena's own bot: no token to give, no rename
    expect(house).to_contain_text("the arena's house bot")
    expect(house.get_by_role("button")).to_have_count(0)
    organiser.get_by_label("display name of mallory").fill(XSS)  # a team named <img src=x onerror=...>
    organiser.locator('tr[data-team="mallory"]').get_by_role("button", name="rename").click()
    expect(organiser.locator('tr[data-team="mallory"]').get_by_role("link")).to_have_text(XSS)
    for path in ("/leaderboard", "/teams/mallory", "/matches", "/organiser"):
        organiser.goto(path)
        organiser.wait_for_load_state("networkidle")
        assert organiser.locator("img").count() == 0, path
    organiser.goto("/leaderboard")
    expect(organiser.locator('tr[data-team="mallory"]').get_by_role("link")).to_have_text(XSS)
    organiser.goto("/teams/mallory")
    expect(organiser.get_by_role("heading", level=1)).to_have_text(XSS)
    assert mallory.problems == [], mallory.problems
    mallory.close()


def _phh_bb100(storage: Path, match_ids: list[int], bot: str) -> tuple[float, int]:
    """``bot``'s big blinds per 100 hands over these matches, and its hands, straight from the hand
    histories the matches wrote (chips won over hands played over each hand's big blind, times 100)."""
    won_bb, hands = 0.0, 0
    for match_id in match_ids:
        for path in sorted((storage / "matches" / str(match_id) / "hands").glob("*.phhs")):
            for hand in tomllib.loads(path.read_text(encoding="utf-8")).values():
                if bot in hand["players"]:
                    seat = hand["players"].index(bot)
                    chips = hand["finishing_stacks"][seat] - hand["starting_stacks"][seat]
                    won_bb += chips / max(hand["blinds_or_straddles"])
                    hands += 1
    return 100 * won_bb / hands, hands


def test_the_leaderboards_bb_per_100_is_what_the_stored_hands_give_and_stays_once_frozen(
    browser: Browser, arena: Arena
) -> None:
    """Issue 33 (2): the leaderboard's bb/100 was divided by the big blind twice. After the freeze the
    ladder picks no more ranked matches; once those in play are applied, the figure on the page and
    the API's ``versions/N/ladder`` (over all opponents, and against each) equal the hand histories'."""
    if "alpha" not in arena.versions:
        pytest.fail("the upload test did not leave alpha a version")
    frozen = subprocess.run([DEALER, "arena", "freeze", str(arena.config)], capture_output=True, text=True)
    assert frozen.returncode == 0, frozen.stderr
    watched = Watched(browser, arena.url)
    page = watched.page
    deadline = time.monotonic() + 120
    while page.request.get(arena.url + "/data/matches").json()["queue"]:
        assert time.monotonic() < deadline, "the matches picked before the freeze never ended"
        page.wait_for_timeout(200)
    storage = arena.config.parent / "arena"
    ids = sorted(int(p.name) for p in (storage / "matches").iterdir())
    states = {n: page.request.get(f"{arena.url}/data/matches/{n}").json() for n in ids}
    deadline = time.monotonic() + 60
    while any(m["state"] not in ("applied", "void") for m in states.values()):  # results still being applied
        assert time.monotonic() < deadline, states
        page.wait_for_timeout(200)
        states = {n: page.request.get(f"{arena.url}/data/matches/{n}").json() for n in ids}
    played = [n for n, m in states.items() if m["state"] == "applied" and any(s["team"] == "alpha" for s in m["seats"])]
    expected, hands = _phh_bb100(storage, played, "alpha-v1")
    assert hands >= 20, hands
    page.wait_for_timeout(2500)  # the ladder picks nothing more once frozen
    assert sorted(int(p.name) for p in (storage / "matches").iterdir()) == ids, "a ranked match after the freeze"
    page.goto("/leaderboard")
    shown = page.locator('tr[data-team="alpha"]').locator("td").nth(3)
    expect(shown).to_have_text(re.compile(r"^[+-]\d+\.\d"))
    figure = float(shown.inner_text().split()[0].replace("\u2212", "-"))
    assert abs(figure - expected) <= 0.05 + 1e-9, (shown.inner_text(), expected)  # shown to 0.1
    line = next(t for t in page.request.get(arena.url + "/data/leaderboard").json()["teams"] if t["team"] == "alpha")
    assert line["bb100"]["mean"] == pytest.approx(expected, rel=1e-9)
    api = page.request.get(
        f"{arena.url}/api/v1/versions/1/ladder", headers={"Authorization": f"Bearer {arena.tokens['alpha']}"}
    ).json()
    assert api["bb_per_100"] == pytest.approx(expected, abs=API_ROUNDING), "the API's figure is the leaderboard's"
    low, high = api["ci95"]
    assert low < api["bb_per_100"] < high and [low, high] == pytest.approx(
        [line["bb100"]["low"], line["bb100"]["high"]], abs=API_ROUNDING
    )
    for opponent in api["opponents"]:  # against each opponent: the same from that opponent's matches alone
        theirs = [n for n in played if any(s["team"] == opponent["team"] for s in states[n]["seats"])]
        assert opponent["bb_per_100"] == pytest.approx(_phh_bb100(storage, theirs, "alpha-v1")[0], abs=API_ROUNDING)
    assert watched.problems == []
    watched.close()
