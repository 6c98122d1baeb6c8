"""Looks for seat tokens where it should not find any, then plays check/call.

Reads the environment it was given, the environment and command line of every process it can see in
/proc (the dealer's, the launcher's, the other bots'), and every file under the dealer's output
folder it can read (argv[1], if given). Logs "own token: <token>" (its own log is its business),
"env keys: ...", "readable environ: N", and "found token <where> sha256:<16 hex digits>" for each
token that is not its own; "seed on a command line: N" (command lines with ``--seed``/``--seed-file``);
then "found 0 other tokens" or "found N other tokens".
"""

import hashlib
import re
import sys
from pathlib import Path

import botlib

import pokerbot

botlib.record_pid()
own = botlib.token()
botlib.say(f"own token: {own}")
given = Path("/proc/self/environ").read_bytes().split(b"\0")  # as given (Python may add LC_CTYPE)
botlib.say("env keys:", " ".join(sorted(e.split(b"=", 1)[0].decode() for e in given if b"=" in e)))
pattern = re.compile(rb"POKER_TOKEN=([^\0\n]+)")
found = set()
readable = 0
seeds = 0
for entry in Path("/proc").iterdir():
    if not entry.name.isdigit():
        continue
    for name in ("environ", "cmdline"):
        try:
            data = (entry / name).read_bytes()
        except OSError:
            continue
        if name == "environ":
            readable += 1
        elif any(arg.startswith(b"--seed") for arg in data.split(b"\0")):
            seeds += 1
        for match in pattern.finditer(data):
            token = match.group(1).decode(errors="replace")
            if token != own:
                found.add(token)
                digest = hashlib.sha256(match.group(1)).hexdigest()[:16]
                botlib.say(f"found token /proc/{entry.name}/{name} sha256:{digest}")
botlib.say(f"readable environ: {readable}")
botlib.say(f"seed on a command line: {seeds}")
if sys.argv[1:]:
    for path in Path(sys.argv[1]).rglob("*"):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for token in re.findall(r"[A-Za-z0-9_-]{43}", text):
            if token != own:
                found.add(token)
                botlib.say(f"found token {path} sha256:{hashlib.sha256(token.encode()).hexdigest()[:16]}")
botlib.say(f"found {len(found)} other tokens")
pokerbot.run(lambda request: pokerbot.check_call(), name="env-reader", argv=[])
