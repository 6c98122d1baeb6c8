#!/usr/bin/env bash
# The arena's demo (README): an arena in a temporary folder, three teams, and three submissions:
# the Python sample bot, the C stdio bot (built by the arena) and a bot whose build fails.
# Run from the checkout after `make setup`: bash scripts/arena-demo.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dealer="${DEALER:-$here/.venv/bin/dealer}"
demo="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" && wait "$server"; chmod -R u+w "$demo"; rm -rf "$demo"' EXIT

printf 'listen: 127.0.0.1:0\nbuild: {smoke_hands: 10}\n' > "$demo/arena.yaml"
"$dealer" arena migrate -c "$demo/arena.yaml"
for team in python c broken; do
    "$dealer" arena team add "$team" -c "$demo/arena.yaml" > "$demo/$team.token"
done
"$dealer" arena serve "$demo/arena.yaml" 2> "$demo/serve.log" &
server=$!
until grep -q '^arena on ' "$demo/serve.log"; do sleep 0.2; done
url="$(sed -n 's|^arena on \(.*\)/api/v1$|\1|p' "$demo/serve.log")"

mkdir "$demo/python" "$demo/c" "$demo/broken"
cp "$here/sample_bots/python/strength_bot.py" "$demo/python/"
printf 'protocol: grpc\nrun: python3 strength_bot.py\n' > "$demo/python/bot.yaml"
cp "$here/sample_bots/c/bot.c" "$demo/c/"
printf 'protocol: stdio\nbuild: cc -O2 -o bot bot.c\nrun: ./bot\n' > "$demo/c/bot.yaml"
printf 'int main(void) { return missing; }\n' > "$demo/broken/bot.c"
printf 'protocol: stdio\nbuild: cc -o bot bot.c\nrun: ./bot\n' > "$demo/broken/bot.yaml"

for team in python c broken; do
    echo "== team $team submits"
    "$dealer" arena submit "$demo/$team" --server "$url" --token "$(cat "$demo/$team.token")"
done
for team in python c broken; do
    while "$dealer" arena versions --server "$url" --token "$(cat "$demo/$team.token")" | grep -qE 'queued|building'; do
        sleep 1
    done
    echo "== team $team's versions"
    "$dealer" arena versions --server "$url" --token "$(cat "$demo/$team.token")"
done
echo "== team python makes its v1 the one the arena plays"
"$dealer" arena activate v1 --server "$url" --token "$(cat "$demo/python.token")"
"$dealer" arena versions --server "$url" --token "$(cat "$demo/python.token")"
echo "== team broken's build log"
"$dealer" arena log v1 --server "$url" --token "$(cat "$demo/broken.token")"
