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
