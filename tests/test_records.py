"""The result records (dealer.records) and what reads them: pure, with no gRPC stack."""

from __future__ import annotations

import subprocess
import sys


def test_results_ratings_and_records_import_no_grpc():
    """Standings, ratings and the records load without the match machinery (gRPC, protobuf)."""
    code = ("import sys, dealer.records, dealer.results, dealer.ratings; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'poker') or m == 'dealer.match'))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
