"""The benchmark scripts of ``bench/`` as modules, for tests of their pure parts (the
benchmarks themselves serve MindInsight and drive Chromium, which CI does not)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` as the module ``bench_<name>``, its siblings (machine.py,
    graph.py...) importable while it loads."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))
