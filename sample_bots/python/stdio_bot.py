"""A stdio bot in Python (docs/bots-stdio.md), standard library only: checks or calls every request.

Run: dealer match "stdio:python sample_bots/python/stdio_bot.py" ...
"""

import json
import sys


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "goodbye":
            break
        if message["type"] == "request":
            request = message["request"]
            reply = {"table": message["table"], "request_id": request["request_id"], "action": "check_call"}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
