"""The README's pictures of the web view, taken from the league in tournaments.yaml.

    .venv/bin/python scripts/screenshots.py       # writes docs/web-live.png and docs/web-report.png

It plays the league into a temporary folder with ``--web 127.0.0.1:0``, opens the printed URL (its
key included) in Debian's chromium through Playwright, shoots the live page once half the matches
have finished, then report.html when the league is over.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
VIEWPORT = {"width": 1400, "height": 1000}


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        league = yaml.safe_load((ROOT / "tournaments.yaml").read_text(encoding="utf-8"))
        league["out"] = str(Path(scratch) / "out")
        for bot in league["bots"]:  # paths are read from the league file's folder: make them absolute
            bot["command"] = bot["command"].replace("sample_bots/", f"{ROOT}/sample_bots/")
        config = Path(scratch) / "league.yaml"
        config.write_text(yaml.safe_dump(league), encoding="utf-8")
        dealer = Path(sys.executable).with_name("dealer")
        run = subprocess.Popen(
            [dealer, "run", config, "--web", "127.0.0.1:0"], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        assert run.stdout is not None
        found = re.search(r"(http://\S+)", run.stdout.readline())
        if found is None:
            sys.exit("dealer run did not print the web view's URL")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(found[1])
            page.wait_for_function(
                """() => { const m = /(\\d+)\\/(\\d+) matches/.exec(
                       document.querySelector('[data-testid=progress]')?.innerText || '');
                   return m && 2 * Number(m[1]) >= Number(m[2]); }""",
                timeout=600_000,
            )
            page.wait_for_timeout(1500)  # the charts draw after the numbers
            page.screenshot(path=ROOT / "docs" / "web-live.png", full_page=True)
            run.communicate(timeout=1800)
            report = browser.new_page(viewport=VIEWPORT)
            report.goto((Path(league["out"]) / "report.html").as_uri())
            report.wait_for_timeout(1500)
            report.screenshot(path=ROOT / "docs" / "web-report.png", full_page=True)
            browser.close()
    print("docs/web-live.png and docs/web-report.png written")


if __name__ == "__main__":
    main()
