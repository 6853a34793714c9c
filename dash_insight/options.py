"""Command-line options of the server, shared by ``dash-insight start`` and
``python -m dash_insight.server`` (kept free of Dash imports so the CLI starts fast)."""

from __future__ import annotations

import argparse
import os

from .data.sampling import parse_samples_per_plugin

DEMO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``dash-insight start`` and ``python -m dash_insight.server``."""
    parser.add_argument("--port", type=_port, default=8080, help="port to listen on (8080)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (127.0.0.1: this machine only)")
    parser.add_argument("--summary-base-dir", default=".",
                        help="folder whose sub-folders hold summary files (current folder)")
    parser.add_argument("--demo", action="store_true",
                        help="serve the bundled demo of real MindSpore summaries instead")
    parser.add_argument("--reload-interval", type=_interval, default=3.0,
                        help="seconds between reloads of the logs, 0 = load once (3)")
    parser.add_argument("--workspace", default=os.path.join("~", "dash-insight"),
                        help="folder for the index, logs and pid files (~/dash-insight)")
    parser.add_argument("--max-depth", type=_depth, default=None,
                        help="how many folder levels below the base to look for jobs (all)")
    parser.add_argument("--samples-per-plugin", type=_samples, default=None,
                        metavar="PLUGIN=N,...",
                        help="keep only N sampled values per tag, like MindInsight "
                             "(e.g. scalar=1000,image=10; 'mindinsight' for its sizes); "
                             "default: keep everything")


def _port(text: str) -> int:
    value = int(text) if text.isdigit() else -1
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be an integer in 1..65535, not {text!r}")
    return value


def _interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 300:
        raise argparse.ArgumentTypeError(
            f"reload interval must be a number of seconds in 0..300, not {text!r}")
    return value


def _depth(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"max depth must be an integer >= 0, not {text!r}")
    return int(text)


def _samples(text: str) -> dict[str, int]:
    try:
        return parse_samples_per_plugin(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def base_dir_of(args: argparse.Namespace) -> str:
    """The summary base directory to serve; ValueError with a one-line reason if unusable."""
    path = DEMO_DIR if args.demo else os.path.abspath(os.path.expanduser(args.summary_base_dir))
    if not os.path.isdir(path):
        raise ValueError(f"summary base directory not found: {path}")
    if not os.access(path, os.R_OK | os.X_OK):
        raise ValueError(f"summary base directory is not readable: {path}")
    return path
