"""Regenerate ``dash_insight/summary/protos/*_pb2.py`` from ``proto/*.proto``.

Run from anywhere: ``python proto/generate.py`` (needs the ``grpcio-tools`` dev dependency,
whose bundled protoc must not be newer than the ``protobuf`` runtime pinned in pyproject.toml).

Files are compiled with the repository root as include path, so the descriptor pool knows them
as ``proto/<name>.proto``; that name cannot clash with MindSpore's or MindInsight's own
``summary.proto`` when both are imported in one process. Cross-file imports in the generated
code are rewritten to package-relative imports.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dash_insight" / "summary" / "protos"
PROTOS = ("anf_ir.proto", "summary.proto", "lineage.proto")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        args = ["protoc", f"-I{ROOT}", f"--python_out={tmp}", f"--pyi_out={tmp}"]
        args += [f"proto/{name}" for name in PROTOS]
        if protoc.main(args) != 0:
            print("protoc failed", file=sys.stderr)
            return 1
        for generated in sorted((Path(tmp) / "proto").iterdir()):
            text = generated.read_text()
            text = re.sub(r"^from proto import (\w+)", r"from . import \1", text, flags=re.M)
            (OUT / generated.name).write_text(text)
    init = OUT / "__init__.py"
    if not init.exists():
        init.write_text('"""Generated protobuf modules; regenerate with proto/generate.py."""\n')
    shutil.rmtree(OUT / "__pycache__", ignore_errors=True)
    print(f"generated {', '.join(PROTOS)} into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
