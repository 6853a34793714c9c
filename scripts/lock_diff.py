"""Prints the packages whose installed version differs from uv.lock (scripts/bootstrap.sh with
DASH_INSIGHT_DEPS=newest): what a run on the newest releases tests beyond the lock.

    uv pip list --format freeze | python scripts/lock_diff.py uv.lock
"""

from __future__ import annotations

import re
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def canonical(name: str) -> str:
    """PEP 503's normalized name: runs of -, _ and . are one -, lower case."""
    return re.sub(r"[-_.]+", "-", name).lower()


def differences(locked: dict[str, set[str]], installed: dict[str, str]) -> list[str]:
    """One line per installed package whose version is none of the locked ones (a universal
    lock may hold several versions of a package, one per range of Python versions)."""
    return [
        f"  {name}: {' / '.join(sorted(locked.get(name, ()))) or 'not locked'} -> {version}"
        for name, version in sorted(installed.items())
        if version not in locked.get(name, ())
    ]


def main(lock_path: str) -> int:
    with open(lock_path, "rb") as handle:
        lock = tomllib.load(handle)
    locked: dict[str, set[str]] = {}
    for package in lock.get("package", []):
        locked.setdefault(canonical(package["name"]), set()).add(package.get("version", ""))
    installed = {}
    for line in sys.stdin:
        if "==" in line:
            name, version = line.strip().split("==", 1)
            installed[canonical(name)] = version
    print("\n".join(differences(locked, installed)) or "  nothing: the lock is the newest")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
