#!/usr/bin/env bash
# Regenerate the Python stubs from proto/ (needs the `codegen` extra: pip install -e '.[codegen]').
# The stubs are committed; CI runs this and fails if the result differs from what is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. proto/poker/v1/dealer.proto
