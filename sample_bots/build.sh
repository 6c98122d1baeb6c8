#!/usr/bin/env bash
# Build the C, Java and Rust stdio sample bots into OUT (default: beside their sources), standard
# library only: gcc, javac and rustc. Used by `make setup` and by the test run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
mkdir -p "$out/c" "$out/java" "$out/rust"
for tool in gcc javac rustc; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool is not installed (needed for the $tool sample bot)" >&2; exit 1; }
done
gcc -O2 -Wall -Werror -o "$out/c/bot" "$here/c/bot.c"
javac -d "$out/java/build" "$here/java/Bot.java"
rustc -O --edition 2021 -o "$out/rust/bot" "$here/rust/bot.rs"
