"""File classification and naming, as MindSpore writes and MindInsight recognises them."""

from __future__ import annotations

import pytest

from dash_insight.core.format.files import (
    NAME_PATTERNS,
    FileKind,
    classify,
    file_timestamp,
    summary_file_name,
    summary_sort_key,
)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # MindInsight's own test_filter_event_files cases
        ("aaasummary.5678", FileKind.SUMMARY),
        ("summary.0012", FileKind.SUMMARY),
        ("hellosummary.98786", FileKind.SUMMARY),
        ("mysummary.123abce", FileKind.SUMMARY),
        ("abc.summary", None),
        ("summary1234", None),
        ("summay.4567", None),
        # MindSpore's names
        ("events.out.events.summary.1795324654.0.vm_MS", FileKind.SUMMARY),
        ("events.out.events.summary.1795324654.0.vm_lineage", FileKind.LINEAGE),
        ("events.out.events.summary.1795324654.0.vm_explain", FileKind.EXPLAIN),
        ("x.summary.1795324654.suffix", FileKind.SUMMARY),
        # graph files
        ("ms_output_after_hwopt.pb", FileKind.GRAPH),
        ("memory_usage_0.pb", None),
        ("model.pbtxt", None),
        ("notes_lineage", None),
        ("events.summary.99999999999999999999_MS", None),  # timestamp past year 9999
    ],
)
def test_classify(name: str, kind: FileKind | None) -> None:
    assert classify(name) is kind


def test_the_patterns_messages_show_are_names_classify_recognises() -> None:
    # What the start-up warning says it looked for: each pattern's names are ours.
    kinds = [classify(pattern.replace("*", "1795324654")) for pattern in NAME_PATTERNS]
    assert kinds == [FileKind.SUMMARY, FileKind.LINEAGE, FileKind.TENSORBOARD, FileKind.GRAPH]


def test_timestamp_and_order() -> None:
    assert file_timestamp("events.out.events.summary.1795324654.0.vm_MS") == 1795324654
    assert file_timestamp("model.pb") is None
    names = ["a.summary.20_MS", "b.summary.3_MS", "a.summary.3_MS"]
    assert sorted(names, key=summary_sort_key) == [
        "a.summary.3_MS",
        "b.summary.3_MS",
        "a.summary.20_MS",
    ]


def test_summary_file_name() -> None:
    assert summary_file_name(1795324654, 0, "vm") == "events.out.events.summary.1795324654.0.vm_MS"
    assert (
        summary_file_name(5, 3, "host", prefix="p", suffix="_lineage")
        == "p.out.events.summary.5.3.host_lineage"
    )
