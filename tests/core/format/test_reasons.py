"""Stored damage reasons (English in the index) are translated when shown."""

from __future__ import annotations

import pytest

from dash_insight.core import i18n
from dash_insight.core.format import reasons
from dash_insight.core.format.framing import Damage, oversized
from dash_insight.core.store.state import FileState, JobState


def test_every_template_is_recognised_and_translated() -> None:
    samples = {
        reasons.HEADER_CRC: {},
        reasons.PAYLOAD_CRC: {},
        reasons.RUNS_PAST_END: {"length": 120, "size": 400, "later": 350},
        reasons.OVERSIZED: {"length": 3 << 30, "limit": 1 << 30},
        reasons.CANNOT_READ_FILE: {"error": "Permission denied"},
        reasons.CANNOT_INDEX_FILE: {"error": "MemoryError()"},
        reasons.CANNOT_LIST_DIRECTORY: {"error": "Permission denied"},
        reasons.CANNOT_LIST_SHOWING_OLD: {"directory": "/logs/run 1", "error": "Stale handle"},
        reasons.NOT_A_REGULAR_FILE: {"name": "x.summary.1_MS", "kind": "a FIFO"},
        reasons.VALUE_HOLDS_NO_DATA: {"tag": "'loss'"},
        reasons.NO_TRAINING_JOB: {"train_id": "./run 1"},
    }
    assert set(samples) == set(reasons.TEMPLATES)
    for template, values in samples.items():
        stored = template.format(**values)
        assert reasons.localize_reason(stored) == stored  # English: unchanged
        with i18n.use_locale(i18n.CHINESE):
            shown = reasons.localize_reason(stored)
        assert shown != stored, template
        for value in values.values():  # every value kept, formatted as stored
            text = f"{value:,}" if isinstance(value, int) and "," in template else str(value)
            assert text in shown, (template, shown)


@pytest.mark.parametrize("text", ["Permission denied", "Error parsing message", ""])
def test_unknown_text_is_shown_as_it_is(text: str) -> None:
    with i18n.use_locale(i18n.CHINESE):
        assert reasons.localize_reason(text) == text


def test_a_damaged_job_reads_its_reasons_in_the_request_language() -> None:
    state = JobState(train_id="./run")
    file_state = FileState(name="a.summary.1_MS", kind="summary", identity=(1, None), size=100)
    file_state.damage.append(Damage(40, reasons.PAYLOAD_CRC))
    file_state.damage.append(Damage(80, oversized(5_000_000, 1_000_000)))
    state.files[file_state.name] = file_state
    state.vanished.append("b.summary.2_MS")
    english = state.integrity_reasons(now=0.0)
    assert english[0] == "a.summary.1_MS @ 40: " + reasons.PAYLOAD_CRC
    assert "5,000,000" in english[1]
    with i18n.use_locale(i18n.CHINESE):
        chinese = state.integrity_reasons(now=0.0)
    assert len(chinese) == len(english) == 3
    assert all(zh != en for zh, en in zip(chinese, english, strict=True))
    assert chinese[0].startswith("a.summary.1_MS @ 40: ") and "CRC" in chinese[0]
    assert "5,000,000" in chinese[1] and "b.summary.2_MS" in chinese[2]


def test_an_unknown_job_is_named_in_the_request_language() -> None:
    """The provider's JobNotFound text stays English (the REST answers keep it); the pages show
    it in the request's language."""
    text = reasons.NO_TRAINING_JOB.format(train_id="./nope")
    assert text == "no training job './nope' in the summary base directory"
    with i18n.use_locale(i18n.CHINESE):
        assert reasons.localize_reason(text) == "summary 根目录下没有训练作业 './nope'"
