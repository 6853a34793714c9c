"""Regenerate ``dash_insight/core/format/protos/*_pb2.py`` from ``proto/*.proto``.

    python proto/generate.py           # rewrite the generated modules
    python proto/generate.py --check   # exit 1 if they are not what the .proto files give

Needs the ``dev`` extra (``grpcio-tools``), whose bundled protoc must not be newer than the
``protobuf`` runtime pinned in pyproject.toml.

Files are compiled with the repository root as include path, so the descriptor pool knows them
as ``proto/<name>.proto``; that name cannot clash with MindSpore's or MindInsight's own
``summary.proto`` when both are imported in one process. Cross-file imports in the generated
code are rewritten to package-relative imports.

``--check`` compares what the modules mean, not their bytes: the serialized file descriptor and
the imports of a ``_pb2.py``, the declarations of a ``.pyi``. Comments naming protoc's release
and the runtime-version guard do not count, so a protoc patch release is not a difference.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dash_insight" / "core" / "format" / "protos"
PROTOS = (
    "anf_ir.proto",
    "summary.proto",
    "lineage.proto",
    # TensorBoard's, vendored (see their headers) for ``events.out.tfevents.*`` files
    "tb_types.proto",
    "tb_tensor_shape.proto",
    "tb_resource_handle.proto",
    "tb_tensor.proto",
    "tb_summary.proto",
    "tb_event.proto",
    "tb_hparams_api.proto",
    "tb_hparams_plugin_data.proto",
)


def generate() -> dict[str, str]:
    """{generated file name: text} for every .proto file."""
    from grpc_tools import protoc  # the dev extra; meaning() and --help need none of it

    with tempfile.TemporaryDirectory() as tmp:
        # grpc_tools ships google/protobuf/*.proto (struct.proto for the hparams protos).
        well_known = Path(protoc.__file__).resolve().parent / "_proto"
        args = ["protoc", f"-I{ROOT}", f"-I{well_known}", f"--python_out={tmp}", f"--pyi_out={tmp}"]
        args += [f"proto/{name}" for name in PROTOS]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        return {
            path.name: re.sub(
                r"^from proto import (\w+)", r"from . import \1", path.read_text(), flags=re.M
            )
            for path in sorted((Path(tmp) / "proto").iterdir())
        }


_SERIALIZED = re.compile(r"AddSerializedFile\((b'(?:[^'\\]|\\.)*')\)")


def meaning(name: str, text: str) -> object:
    """What a generated file declares: for ``_pb2.py`` its descriptor (the bytes protoc
    serialized) and its imports; for anything else its lines without comments."""
    if name.endswith("_pb2.py"):
        serialized = _SERIALIZED.search(text)
        imports = re.findall(r"^from \. import .*$", text, flags=re.M)
        return (ast.literal_eval(serialized[1]) if serialized else None, imports)
    return [line for line in text.splitlines() if not line.lstrip().startswith("#")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare instead of writing; exit 1 on a difference"
    )
    args = parser.parse_args()
    generated = generate()
    if args.check:
        stale = [
            name
            for name, text in generated.items()
            if not (OUT / name).exists()
            or meaning(name, (OUT / name).read_text()) != meaning(name, text)
        ]
        for name in stale:
            print(f"{OUT.relative_to(ROOT) / name} is out of date; run python proto/generate.py")
        return 1 if stale else 0
    for name, text in generated.items():
        (OUT / name).write_text(text)
    print(f"generated {', '.join(generated)} into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
