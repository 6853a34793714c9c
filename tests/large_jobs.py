"""Jobs the tests of long lists write: one job with many scalar tags, many small jobs."""

from __future__ import annotations

from pathlib import Path

from dash_insight import SummaryWriter

#: Tags of the wide job: ``tag_000`` .. ``tag_399``.
WIDE_TAGS = 400
#: Small jobs ``run_0000`` .. ``run_1199``.
MANY_JOBS = 1200


def wide_tag(i: int) -> str:
    return f"tag_{i:03d}"


def run_name(i: int) -> str:
    return f"run_{i:04d}"


def write_wide_job(base: Path, tags: int = WIDE_TAGS, steps: int = 3) -> str:
    """Job ``./wide``: ``tags`` scalar tags (:func:`wide_tag`), ``steps`` steps each."""
    with SummaryWriter(base / "wide", host="test", timestamp=1_700_000_000) as writer:
        for step in range(1, steps + 1):
            for i in range(tags):
                writer.add_scalar(wide_tag(i), i + step / 10, step)
    return "./wide"


def write_many_jobs(base: Path, jobs: int = MANY_JOBS) -> list[str]:
    """Jobs :func:`run_name` (0..jobs-1): each has ``tag_001``; the odd ones also
    ``tag_000`` (so a job is not at the same place among the jobs of each tag)."""
    for i in range(jobs):
        with SummaryWriter(base / run_name(i), host="test", timestamp=1_700_000_000 + i) as writer:
            for step in (1, 2):
                writer.add_scalar(wide_tag(1), i + step, step)
                if i % 2:
                    writer.add_scalar(wide_tag(0), -i - step, step)
    return [f"./{run_name(i)}" for i in range(jobs)]
