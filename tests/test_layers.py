"""The layering the README promises, read from the source: the generated protobuf classes are
imported only at the wire edge (``dealer/wire.py``, ``dealer/server.py``); every other module
of the dealer speaks the domain's own types."""

from __future__ import annotations

import ast
from pathlib import Path

DEALER = Path(__file__).resolve().parent.parent / "dealer"
PROTOBUF_EDGE = {"wire.py", "server.py"}
_IMPORTERS = {"import_module", "__import__"}  # importlib.import_module("poker.v1.dealer_pb2") counts too


def _protobuf_imports(path: Path) -> list[str]:
    """The modules of the generated stubs (package ``poker``) or of protobuf itself that ``path`` imports."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in _IMPORTERS and node.args and isinstance(node.args[0], ast.Constant):
                names.append(str(node.args[0].value))
    return [n for n in names if n.split(".")[0] == "poker" or n.startswith("google.protobuf")]


def test_only_wire_and_server_import_the_generated_protobuf() -> None:
    found = {
        path.relative_to(DEALER).as_posix(): _protobuf_imports(path)
        for path in sorted(DEALER.rglob("*.py"))
        if "node_modules" not in path.parts
    }
    offenders = {name: imports for name, imports in found.items() if imports and name not in PROTOBUF_EDGE}
    assert offenders == {}, f"protobuf outside the wire edge (convert in dealer/wire.py instead): {offenders}"
    # The scan sees the edge's own imports, so an import elsewhere would be seen too.
    assert "poker.v1.dealer_pb2" in found["wire.py"] and "poker.v1.dealer_pb2" in found["server.py"]


def test_the_scan_sees_every_form_of_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import poker.v1.dealer_pb2\n"
        "from poker.v1 import dealer_pb2_grpc as g\n"
        "from google.protobuf.message import DecodeError\n"
        "import importlib\n"
        "importlib.import_module('poker.v1.dealer_pb2')\n"
        "from dealer import wire\n"
    )
    assert _protobuf_imports(module) == [
        "poker.v1.dealer_pb2",
        "poker.v1.dealer_pb2_grpc",
        "google.protobuf.message.DecodeError",
        "poker.v1.dealer_pb2",
    ]


def test_the_fault_reasons_have_one_owner_that_scorers_import_without_the_server() -> None:
    """Fault reasons and the set that voids a result live in ``dealer.faults``: the values are
    those results.json has always written, and a scorer reaches them without loading gRPC."""
    import json
    import subprocess
    import sys

    from dealer.faults import VOIDING, Fault, voided
    from dealer.server import Fault as ServerFault

    assert ServerFault is Fault
    values = ["timeout", "illegal_action", "unexpected_reply", "protocol", "disconnect", "crash", "memory", "cpu_time"]
    values += ["no_connect", "start_failed", "authentication", "flood", "stalled"]
    assert [str(f) for f in Fault] == values
    assert json.dumps({Fault.CRASH: 1, "x": Fault.TIMEOUT}) == '{"crash": 1, "x": "timeout"}'
    assert {"start_failed", "no_connect", "authentication", "crash", "memory", "cpu_time", "disconnect"} == VOIDING
    assert voided({"timeout": 3, "crash": 1}) and not voided({"timeout": 3, "flood": 1}) and not voided({})
    code = "import sys, dealer.faults, dealer.standings, dealer.ratings; print('grpc' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "False"
