"""Command line: ``dash-insight inspect PATH [--json]`` (``start``/``stop`` arrive with the app)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from . import __version__
from .summary.inspect import format_report, inspect_path


def _inspect(args: argparse.Namespace) -> int:
    try:
        report = inspect_path(args.path)
    except FileNotFoundError as error:
        print(f"dash-insight inspect: {error}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    # Non-zero when something is wrong, so scripts can check logs: 1 = damage found.
    return 1 if any(f["status"] in ("damaged", "unreadable") for f in report["files"]) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dash-insight",
        description="Training visualization for MindSpore summary logs.",
    )
    parser.add_argument("--version", action="version", version=f"dash-insight {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    inspect = commands.add_parser(
        "inspect",
        help="show what a summary file or job directory holds, and any damage",
        description="For a summary/lineage/graph file or a job directory: each file's kind, "
        "record count, status and damage (offset + reason), and per plugin each tag with its "
        "number of values, distinct steps, first and last step. Exit status 1 when a file is "
        "damaged or unreadable.",
    )
    inspect.add_argument("path", help="a summary, lineage or .pb file, or a job directory")
    inspect.add_argument("--json", action="store_true", help="print the report as JSON")
    inspect.set_defaults(handler=_inspect)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
