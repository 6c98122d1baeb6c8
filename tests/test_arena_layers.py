"""The arena's layers, read from the source and from what importing loads: the model is pure (the
standard library and dealer.errors alone), and the API, the storage and the archive checks load
neither the match runner, the launcher, the sandbox nor gRPC; only the builder plays."""

from __future__ import annotations

import subprocess
import sys

from test_layers import DEALER, _imports

RUNNER = ("dealer.runner", "dealer.match", "dealer.server", "dealer.processes", "dealer.sandbox", "grpc")


def test_the_model_imports_nothing_but_the_standard_library_and_the_errors() -> None:
    imported = {
        name.split(".")[0] if not name.startswith("dealer") else name
        for name in _imports(DEALER / "arena" / "model.py")
    }
    ours = {name for name in imported if name.startswith("dealer")}
    assert ours == {"dealer.errors.DealerError"}, ours
    assert imported - ours <= set(sys.stdlib_module_names) | {"__future__"}, imported - ours


def test_the_api_storage_and_archives_do_not_load_the_runner() -> None:
    code = (
        "import sys, dealer.arena.http, dealer.arena.repository, dealer.arena.archive, dealer.arena.client; "
        f"print(sorted(m for m in sys.modules if any(m == r or m.startswith(r + '.') for r in {RUNNER!r})))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded
    # The same check sees the runner where it is loaded: the builder plays smoke matches.
    builder = code.replace("dealer.arena.client;", "dealer.arena.client, dealer.arena.builds;")
    loaded = subprocess.run([sys.executable, "-c", builder], capture_output=True, text=True, check=True).stdout
    assert "dealer.runner" in loaded and "dealer.processes" in loaded
