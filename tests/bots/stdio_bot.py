"""A stdio bot (docs/bots-stdio.md) with a behaviour chosen by argv[1]:

* ``call`` (default): checks or calls every request;
* ``raise``: the minimum raise when one is allowed, else check/call;
* ``record``: as ``call``, and writes every line it receives to the file argv[2];
* ``malformed``: one misdeed at each of its first odd-numbered requests, a good answer at the
  others (so that the timeouts are never three in a row), then calls: a line that is not JSON,
  a JSON array, an unknown action, a string request id (each a protocol fault, and nothing else
  is sent for that request: it times out), then a raise out of range (well formed: an illegal
  action);
* ``silent``: reads everything and never answers;
* ``slow``: answers every request after time_ms + argv[2] ms (default 250);
* ``crash``: exits with status 3 at its first request;
* ``long``: writes one line longer than the dealer accepts;
* ``junk``: at its first request writes 2,100 lines that are no reply, then idles (it reads no
  more and keeps its output open);
* ``idle``: idles from the start: reads nothing, writes nothing, keeps its output open;
* ``meet``: first tries to meet its sibling instances on the loopback (it listens on a fixed
  port, or dials it when another process already listens), logs "met via loopback" or "met 0
  times" after 3 s, then plays as ``call``.
It logs to stderr (its log) and exits at goodbye or at the end of its input.
"""

import contextlib
import json
import socket
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "call"
MISDEEDS = [
    b"this is not json\n",
    b"[1, 2, 3]\n",
    b'{"table": %d, "request_id": %d, "action": "all_in", "amount": 0}\n',
    b'{"table": %d, "request_id": "%d", "action": "check_call", "amount": 0}\n',
    b'{"table": %d, "request_id": %d, "action": "bet_raise", "amount": 1}\n',
]


def answer(message: dict, out) -> None:
    request = message["request"]
    table, request_id = message["table"], request["request_id"]
    action, amount = "check_call", 0
    if MODE == "raise" and request["min_raise_to"]:
        action, amount = "bet_raise", request["min_raise_to"]
    out.write(json.dumps({"table": table, "request_id": request_id, "action": action, "amount": amount}) + "\n")


def meet(port: int = 47312) -> str:
    server = socket.socket()
    try:
        server.bind(("127.0.0.1", port))
    except OSError:  # a sibling listens: dial it
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return "met via loopback (dialled)"
    server.listen(4)
    server.settimeout(3)
    try:
        server.accept()
        return "met via loopback (listened)"
    except TimeoutError:
        return "met 0 times"


def main() -> None:
    out = sys.stdout
    if MODE == "idle":
        time.sleep(3600)
    if MODE == "meet":  # before it reads: its first request's clock runs meanwhile
        print(meet(), file=sys.stderr, flush=True)
    with open(sys.argv[2], "w") if MODE == "record" else contextlib.nullcontext() as record:
        requests = 0
        print(f"stdio bot {MODE} started", file=sys.stderr, flush=True)
        for line in sys.stdin:
            if record is not None:
                record.write(line)
                record.flush()
            message = json.loads(line)
            if message["type"] == "goodbye":
                break
            if message["type"] == "notice":
                print("notice", message["notice"]["reason"], message["notice"]["detail"], file=sys.stderr, flush=True)
            if message["type"] != "request":
                continue
            requests += 1
            if MODE == "silent":
                continue
            if MODE == "crash":
                sys.exit(3)
            if MODE == "junk":
                out.write("junk\n" * 2100)
                out.flush()
                time.sleep(3600)
            if MODE == "long":
                out.write("x" * 100_000 + "\n")
                out.flush()
                continue
            if MODE == "slow":
                extra = int(sys.argv[2]) if len(sys.argv) > 2 else 250
                time.sleep((message["request"]["time_ms"] + extra) / 1000)
            if MODE == "malformed" and requests % 2 == 1 and requests // 2 < len(MISDEEDS):
                misdeed = MISDEEDS[requests // 2]
                if b"%d" in misdeed:
                    misdeed = misdeed % (message["table"], message["request"]["request_id"])
                out.write(misdeed.decode())
                out.flush()
                continue
            answer(message, out)
            out.flush()
    print("stdio bot done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
