"""scripts/lock_diff.py: what a run on the newest releases installs beyond uv.lock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_lists_versions_that_differ_from_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "uv.lock"
    lock.write_text(
        'version = 1\n[[package]]\nname = "Babel"\nversion = "2.18.0"\n'
        '[[package]]\nname = "dash"\nversion = "4.4.1"\n'
        '[[package]]\nname = "numpy"\nversion = "2.5.5"\n'
        '[[package]]\nname = "numpy"\nversion = "2.4.6"\n'  # a fork for older Pythons
    )
    installed = "babel==2.19.0\ndash==4.4.1\nnumpy==2.4.6\nnew_pkg==1.0\n-e file:///x\n"
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "lock_diff.py"), str(lock)],
        input=installed,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "  babel: 2.18.0 -> 2.19.0\n  new-pkg: not locked -> 1.0\n"
    same = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "lock_diff.py"), str(lock)],
        input="dash==4.4.1\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert same.stdout == "  nothing: the lock is the newest\n"
