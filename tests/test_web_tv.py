"""After the league and on the big screen: ``dealer view OUT`` serves a finished folder's page,
``dealer run --web --linger`` keeps serving until Ctrl-C, and TV mode (``/tv``) replays finished
hands by itself in headless Chromium (Playwright), at 1920x1080 as a projector shows it."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from conftest import PY_BOTS, ROOT
from dealer.web.final import folder_results
from test_web import DEALER, DOCS, SEED, browser  # noqa: F401  (the module's browser fixture)

# Records in the page each hand TV mode shows the winner of, as it happens (at sixteen times the
# room's pace a winner shows for about 220 ms, too short to be sure to catch by polling).
WINNERS = """
window.tvWinners = [];
document.addEventListener("DOMContentLoaded", () => {
  const table = document.querySelector("[data-testid=tv-table]");
  new MutationObserver(() => {
    const winner = table.querySelector("[data-testid=tv-winner]")?.innerText ?? "";
    if (winner !== "" && window.tvWinners.at(-1)?.[0] !== table.dataset.hand) {
      window.tvWinners.push([table.dataset.hand, winner]);
    }
  }).observe(table, { childList: true, subtree: true, characterData: true });
});
"""
URL = re.compile(r"web view on ((http://127\.0\.0\.1:\d+/)\?key=([\w-]{43}))\n")


def _league(folder: Path, hands: int = 12) -> Path:
    path = folder / "tv.yaml"
    path.write_text(
        f"""\
name: tv night
seed: {SEED}
out: {folder / "out"}
bots:
  - {{name: caller, command: [{sys.executable}, {PY_BOTS / "call_bot.py"}]}}
  - {{name: random, command: [{sys.executable}, {PY_BOTS / "random_bot.py"}]}}
game: {{time: {{per_action_ms: 3000, startup_ms: 30000}}}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: {hands}, duplicate: true}}
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished league's output folder."""
    folder = tmp_path_factory.mktemp("tv")
    done = subprocess.run([str(DEALER), "run", str(_league(folder))], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "out"


@contextlib.contextmanager
def _serving(args: list[str]) -> Iterator[tuple[subprocess.Popen[str], re.Match[str]]]:
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        url = URL.fullmatch(line)
        assert url is not None, line + process.stderr.read()  # type: ignore[union-attr]
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _stop(process: subprocess.Popen[str]) -> str:
    """Ctrl-C: the server stops cleanly (exit 0)."""
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err[-3000:]
    return out


def test_dealer_view_serves_a_finished_folder_and_tv_mode_plays_hands_by_itself(
    browser: Browser,  # noqa: F811
    finished: Path,
) -> None:
    """The same page, final, from the folder alone; /tv deals, bets and names the winner of at
    least three hands with no click (sixteen times faster than the room's pace)."""
    with _serving([str(DEALER), "view", str(finished), "--web", "127.0.0.1:0"]) as (process, url):
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url[1])
        page.get_by_test_id("status").filter(has_text="final").wait_for()
        for name in ("caller", "random"):
            page.locator(f'[data-testid=overall] tr[data-bot="{name}"]').wait_for()
        assert page.get_by_test_id("progress").inner_text().startswith("1/1 match · 24 hands")
        page.add_init_script(WINNERS)
        page.goto(f"{url[2]}tv?key={url[3]}&speed=16")
        page.wait_for_function("window.tvWinners.length >= 2", timeout=20000)
        page.screenshot(path=str(DOCS / "web-tv.png"))
        page.wait_for_function("window.tvWinners.length >= 3", timeout=20000)
        shown = page.evaluate("window.tvWinners")[:3]  # [hand, winner] of each of the first three
        hands, winners = {hand for hand, _ in shown}, [winner for _, winner in shown]
        assert len(hands) == 3, hands
        assert all(re.fullmatch(r"(caller|random)( wins|, \w+ split) the pot of \d+", w) for w in winners), winners
        assert page.locator("#leaderboard tr[data-bot]").count() == 2 and page.locator("#tv").is_visible()
        assert not page.locator("#h2h").is_visible()  # TV mode: the leaderboard and the table only
        assert errors == []
        assert "final page" not in _stop(process)


def test_dealer_view_reads_a_folder_given_by_a_relative_path(finished: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``dealer view out/thursday`` from the repository, as the README says it (the journal's URI
    was made from the path as given, and a relative path has none)."""
    monkeypatch.chdir(finished.parent)
    data, results = folder_results(Path(finished.name))
    assert data["matches"] == {"finished": 1, "total": 1} and [r.hands for r in results] == [24]


def test_dealer_view_refuses_a_folder_that_is_not_a_league_s(tmp_path: Path) -> None:
    done = subprocess.run([str(DEALER), "view", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'results.json'}: not found: {tmp_path} is not the output folder of a league (dealer run)"
    ]


def test_linger_keeps_the_final_page_until_ctrl_c(tmp_path: Path) -> None:
    yaml = _league(tmp_path, hands=4)
    with _serving([str(DEALER), "run", str(yaml), "--web", "127.0.0.1:0", "--linger"]) as (process, url):
        for line in process.stdout:  # type: ignore[union-attr]
            if "served until Ctrl-C" in line:
                break
        with urllib.request.urlopen(f"{url[2]}state?key={url[3]}", timeout=10) as response:
            state = json.load(response)
        assert state["finished"] and state["progress"]["done"] == 1 and "seed" not in state
        assert (tmp_path / "out" / "report.html").is_file()  # written before lingering
        out = _stop(process)
        assert "tv night: 1 match, 8 hands" in out
