"""The README's arena demo, run as written (``scripts/arena-demo.sh``, the README's block to the
byte): an arena, three teams, the Python sample bot and the C stdio bot ready with their smoke
tests, and a bot whose build fails, failed with the compiler's error in its log."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_docs import blocks

SCRIPT = ROOT / "scripts" / "arena-demo.sh"


def test_the_readme_shows_the_demo_script() -> None:
    assert f"# scripts/arena-demo.sh\n{SCRIPT.read_text(encoding='utf-8')}" in blocks(ROOT / "README.md", "sh")
    assert "bash scripts/arena-demo.sh" in (ROOT / "README.md").read_text(encoding="utf-8").split("## What it is")[0]


# slow; fast: test_the_readme_shows_the_demo_script (the script is the README's), test_arena_builds (the
# Python and C stdio bots built and smoke-tested in the sandbox, a broken C build failed with its log), test_arena_cli
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_arena_demo_builds_two_versions_and_fails_one_with_its_log(tmp_path: Path) -> None:
    dealer = Path(sys.executable).parent / "dealer"
    env = {**os.environ, "DEALER": str(dealer), "TMPDIR": str(tmp_path)}
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=840, env=env, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert len(re.findall(r"^v1 queued, sha256 [0-9a-f]{64}$", out, re.M)) == 3, out
    sections = dict(re.findall(r"^== team (\w+)'s versions\n(.*?)(?=^== )", out, re.M | re.S))
    for team in ("python", "c"):
        assert re.fullmatch(r"  v1  ready     20 hands, faults none  \S+\n", sections[team]), (team, out)
    assert re.fullmatch(r"  v1  failed    no smoke test  \S+\n", sections["broken"]), out
    assert "v1 is active\n* v1  ready     20 hands, faults none" in out
    log = out.split("== team broken's build log\n", 1)[1]
    assert log.startswith("[arena] build: cc -o bot bot.c\n") and "error: 'missing' undeclared" in log, log
    assert "[arena] build failed: exit code 1 after " in log
    assert not any(tmp_path.iterdir()), "the demo leaves nothing behind"
