"""Our .proto files are wire-compatible with MindSpore 2.10: every field of the spec's tables
(read from MindSpore's own descriptors) has the same number, type and label here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import api_implementation

from dash_insight.core.format.protos import anf_ir_pb2, lineage_pb2, summary_pb2
from tests.conftest import REPO

SPEC = REPO.parent / "shared" / "spec" / "proto-fields.md"
_MODULES = {"summary.proto": summary_pb2, "lineage.proto": lineage_pb2, "anf_ir.proto": anf_ir_pb2}
_SCALAR_TYPES = {
    FieldDescriptor.TYPE_DOUBLE: "double",
    FieldDescriptor.TYPE_FLOAT: "float",
    FieldDescriptor.TYPE_INT64: "int64",
    FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_INT32: "int32",
    FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_STRING: "string",
    FieldDescriptor.TYPE_BYTES: "bytes",
}


def _spec_tables() -> list[tuple[str, str, str, int, str, str, str]]:
    """(file, message, field, number, label, type, note) rows of the spec's field tables."""
    rows = []
    proto_file = message = None
    for line in SPEC.read_text().splitlines() if SPEC.exists() else []:
        if match := re.match(r"^### file `(\w+\.proto)`", line):
            proto_file = match[1]
        elif match := re.match(r"^#### message `([\w.]+)`", line):
            message = match[1]
        elif message and (
            match := re.match(r"^\| (\w+) \| (\d+) \| (\w+) \| (.+?) \| (.*?) \|$", line)
        ):
            rows.append(
                (proto_file, message, match[1], int(match[2]), match[3], match[4], match[5])
            )
        elif line.startswith("#### enum"):
            message = None
    return rows


SPEC_ROWS = _spec_tables()


def _message(module: object, dotted: str) -> Descriptor:
    descriptor = module.DESCRIPTOR.message_types_by_name[dotted.split(".")[0]]
    for part in dotted.split(".")[1:]:
        descriptor = descriptor.nested_types_by_name[part]
    return descriptor


def _type_name(field: FieldDescriptor) -> str:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key, value = field.message_type.fields
        value_name = value.message_type.name if value.message_type else _type_name(value)
        return f"map<{_type_name(key)}, {value_name}>"
    if field.message_type is not None:
        full = field.message_type.full_name.removeprefix("dash_insight.irpb.")
        return f"`{full}`"
    if field.enum_type is not None:
        return f"enum `{field.enum_type.name}`"
    return _SCALAR_TYPES[field.type]


def test_spec_tables_found() -> None:
    if not SPEC.exists():
        pytest.skip("spec not found")
    assert len(SPEC_ROWS) > 150


@pytest.mark.parametrize("row", SPEC_ROWS, ids=lambda r: f"{r[1]}.{r[2]}")
def test_field_matches_mindspore(row: tuple[str, str, str, int, str, str, str]) -> None:
    proto_file, message, name, number, label, type_name, note = row
    field = _message(_MODULES[proto_file], message).fields_by_name[name]
    assert field.number == number
    expected_label = (
        "repeated" if field.is_repeated else ("required" if field.is_required else "optional")
    )
    assert expected_label == label
    assert _type_name(field) == type_name
    if note.startswith("oneof"):
        assert field.containing_oneof is not None
        assert field.containing_oneof.name == note.split("`")[1]
    if note == "packed":
        assert field.is_packed


def test_full_datatype_enum() -> None:
    names = anf_ir_pb2.DataType.keys()
    assert anf_ir_pb2.DataType.Value("DT_SLICE") == 49
    assert [anf_ir_pb2.DataType.Value(n) for n in names] == list(range(50))
    assert anf_ir_pb2.DataType.Value("DT_BFLOAT16") == 46


def test_upb_backend_is_used() -> None:
    assert api_implementation.Type() == "upb"


def test_generated_modules_are_up_to_date() -> None:
    # proto/generate.py needs protoc from the dev extra; everything else here does not.
    pytest.importorskip("grpc_tools", reason="grpcio-tools (the dev extra) is not installed")
    done = subprocess.run(
        [sys.executable, str(REPO / "proto" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_generated_modules_compare_by_meaning() -> None:
    sys.path.insert(0, str(REPO / "proto"))
    try:
        from generate import meaning
    finally:
        sys.path.remove(str(REPO / "proto"))
    module = Path(summary_pb2.__file__)
    text = module.read_text()
    other_protoc = text.replace("# Protobuf Python Version: ", "# Protobuf Python Version: 9.")
    assert other_protoc != text
    assert meaning(module.name, other_protoc) == meaning(module.name, text)
    assert meaning(module.name, text)[0] == summary_pb2.DESCRIPTOR.serialized_pb
    changed = text.replace("wall_time", "wall_tim3", 1)
    assert meaning(module.name, changed) != meaning(module.name, text)
    stub = module.with_suffix(".pyi")
    stub_text = stub.read_text()
    assert meaning(stub.name, "# protoc 9\n" + stub_text) == meaning(stub.name, stub_text)
    assert meaning(stub.name, stub_text + "x: int\n") != meaning(stub.name, stub_text)


def test_no_clash_with_mindspore_descriptor_names() -> None:
    """MindSpore registers summary.proto in package mindspore.irpb; ours must not collide."""
    assert summary_pb2.DESCRIPTOR.name == "proto/summary.proto"
    assert summary_pb2.DESCRIPTOR.package == "dash_insight.irpb"


def test_generated_files_exist() -> None:
    for name in ("anf_ir_pb2.py", "summary_pb2.py", "lineage_pb2.py"):
        assert (Path(summary_pb2.__file__).parent / name).exists()
