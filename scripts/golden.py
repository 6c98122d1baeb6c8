"""Fixed-seed outputs of a checkout, fingerprinted, so a restructuring can show it changed nothing.

    python scripts/golden.py --repo CHECKOUT OUT      # plays every scenario with CHECKOUT's dealer
    python scripts/golden.py --diff OUT_A OUT_B       # the files whose bytes differ

The scenarios: a match of gRPC, stdio and ACPC bots; ``dealer compare`` with each estimator; a league
with every event kind, run locally and on Dask. Each writes results.json, standings.txt,
compare.json, hand histories and a journal; the manifest is the SHA-256 of each (the journal as its
rows sorted, since matches finish in any order). Logs and dealer.log are timing and not compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

SEED = "golden-seed-for-restructuring-0123456789"
LEAGUE = """\
name: golden
seed: {seed}
jobs: 2
out: {out}
bots:
  - {{name: strength, command: python {repo}/sample_bots/python/strength_bot.py}}
  - {{name: random,   command: python {repo}/sample_bots/python/random_bot.py}}
  - {{name: caller,   command: python {repo}/sample_bots/python/call_bot.py}}
  - {{name: cbot,     command: {repo}/sample_bots/c/bot, protocol: stdio}}
game: {{variant: no-limit, blinds: [50, 100], stack: 20000, time: {{per_action_ms: 2000, bank_ms: 30000}}}}
events:
  - {{name: rr, format: round-robin, table_size: 2, hands: 40, duplicate: true}}
  - {{name: three, format: round-robin, table_size: 3, hands: 36, duplicate: true}}
  - {{name: gauntlet, format: gauntlet, table_size: 2, challenger: strength, hands: 40, duplicate: true}}
  - {{name: fo, format: freezeout, table_size: 3, blind_levels: [[50, 100], [200, 400]], hands_per_level: 20,
      max_hands: 60}}
  - {{name: cmp, format: compare, new: strength, old: caller, hands: 200}}
"""


def play(repo: Path, out: Path) -> None:
    """Every scenario with ``repo``'s dealer into ``out``."""
    dealer = str(repo / ".venv" / "bin" / "dealer")
    env = {**os.environ, "DEALER_SEED": SEED}
    acpc = out / "acpc_client"
    subprocess.run(["gcc", "-O2", "-o", acpc, repo / "tests" / "bots" / "acpc_client.c"], check=True)
    py = f"python {repo}/sample_bots/python"

    def run(*args: str, stdout: Path | None = None) -> None:
        done = subprocess.run([dealer, *args], env=env, capture_output=True, text=True, cwd=out, timeout=1800)
        if stdout is not None:
            stdout.write_text(done.stdout)
        print(f"dealer {' '.join(args[:2])}: exit {done.returncode} {done.stderr.strip()[-300:]}", flush=True)

    run("match", f"{py}/strength_bot.py", f"stdio:{repo}/sample_bots/c/bot", f"acpc:{acpc} {{game}} {{host}} {{port}}",
        "--hands", "60", "--out", str(out / "match"))  # fmt: skip
    for estimator in ("full", "aivat", "all-in", "raw"):
        folder = out / f"compare-{estimator}"
        folder.mkdir()
        run("compare", f"{py}/mixed_bot.py", f"{py}/strength_bot.py", "--hands", "400", "--estimator", estimator,
            "--json", "--out", str(folder / "out"), stdout=folder / "compare.json")  # fmt: skip
    for executor in ("local", "dask"):
        league = out / f"league-{executor}.yaml"
        league.write_text(LEAGUE.format(seed=SEED, out=out / f"league-{executor}", repo=repo))
        run("run", str(league), "--executor", executor)


def _journal_rows(path: Path) -> str:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return json.dumps({t: sorted(map(list, db.execute(f"SELECT * FROM {t}"))) for t in tables})


def manifest(out: Path) -> dict[str, str]:
    """The SHA-256 of every compared file under ``out``, by its path there."""
    found = {}
    for path in sorted(out.rglob("*")):
        name = str(path.relative_to(out))
        if path.name == "journal.sqlite":
            found[name] = hashlib.sha256(_journal_rows(path).encode()).hexdigest()
        elif path.name in ("results.json", "standings.txt", "compare.json") or path.suffix == ".phhs":
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, help="the checkout whose .venv/bin/dealer plays")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("OUT_A", "OUT_B"))
    parser.add_argument("out", nargs="?", type=Path)
    options = parser.parse_args()
    if options.diff:
        a, b = (json.loads((d / "manifest.json").read_text()) for d in options.diff)
        differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        print("\n".join(differ) or f"identical: {len(a)} files")
        sys.exit(1 if differ else 0)
    options.out.mkdir(parents=True)
    play(options.repo.resolve(), options.out.resolve())
    (options.out / "manifest.json").write_text(json.dumps(manifest(options.out), indent=1))
    print(f"{len(manifest(options.out))} files fingerprinted in {options.out / 'manifest.json'}")


if __name__ == "__main__":
    main()
