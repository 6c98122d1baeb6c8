"""A sandboxed Python bot reads this project's packages read-only, so it cannot write their bytecode:
whatever of them ``make setup`` does not compile, every bot instance compiles again at its start."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from dealer.isolation import sandbox

ROOT = Path(__file__).resolve().parent.parent
BOTS = sorted((ROOT / "sample_bots" / "python").glob("*.py"))

# Imports every sample Python bot as its script would (its folder first on sys.path), writing no
# bytecode, and prints each module of this project (not of the venv) it loaded whose compiled file is missing.
UNCOMPILED = """
import importlib, importlib.util, os, sys
sys.dont_write_bytecode = True
root, folder, names = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, folder)
for name in names:
    importlib.import_module(name)
for module in list(sys.modules.values()):
    path = getattr(module, "__file__", None) or ""
    script = os.path.dirname(os.path.realpath(path)) == folder and module.__name__ in names
    ours = os.path.realpath(path).startswith(root + os.sep) and not path.startswith(sys.prefix + os.sep)
    if path.endswith(".py") and ours and not script:  # pip compiled the venv's packages
        if not os.path.exists(importlib.util.cache_from_source(path)):
            print(os.path.relpath(path, root))
"""


def setup_compiles() -> list[str]:
    """The folders ``make setup`` byte-compiles (its ``compileall`` line in the Makefile)."""
    for line in (ROOT / "Makefile").read_text().splitlines():
        if "-m compileall" in line:
            words = shlex.split(line.split("#", 1)[0])
            return [w for w in words[words.index("compileall") + 1 :] if not w.startswith("-")]
    raise AssertionError("the Makefile has no compileall step")


def test_setup_compiles_every_module_of_ours_a_sample_python_bot_imports(tmp_path: Path) -> None:
    """A bot's script is compiled at each start (Python never caches the main script); nothing else
    of ours: pokerbot, poker's generated code, the dealer's packages a bot may import (strength_bot)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache")}  # the tree's own caches ignored
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    folders = setup_compiles()
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], cwd=ROOT, env=env, check=True)
    folder = str(ROOT / "sample_bots" / "python")
    names = [bot.stem for bot in BOTS]
    done = subprocess.run(
        [sys.executable, "-c", UNCOMPILED, str(ROOT), folder, *names],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert names and done.stdout.split() == []
    assert set(sandbox._PUBLIC_PACKAGES) <= set(folders)  # whatever a sandbox exposes to bots is compiled
