"""Runs the user put away or labelled: each job's archive state and its free-text labels, kept in
the workspace beside the lineage remarks (issue 40 item 4).

One JSON file per summary base directory, ``<workspace>/lineage/<digest>/run_marks.json``
(beside ``added_info.json``, :func:`run_marks_path`), holding ``{"version": 1, "jobs": {train_id:
{"archived": true, "labels": ["baseline", "lr sweep"]}}}`` and written as
:class:`~dash_insight.core.job_file.JobEntriesFile` writes (locked, atomic). A job with neither
is not in the file.

Archived runs leave every job picker (the comparisons, the lineage table) unless the page's
"show archived" switch is on (:func:`offered_jobs`); a picker's filter matches a run's labels
as well as its name (:func:`filter_text`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dash_insight.core.job_file import JobEntriesFile
from dash_insight.core.store.index import index_directory

FILE_NAME = "run_marks.json"
#: At most this many labels per run, each 1 to :data:`MAX_LABEL_CHARS` characters.
MAX_LABELS = 8
MAX_LABEL_CHARS = 32
#: What a label may not hold: control characters and the comma that separates labels typed in
#: one box.
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f,]")


class RunMarkError(ValueError):
    """An invalid archive state or label list; ``str()`` says what is wrong."""


def clean_labels(labels: Any) -> list[str]:
    """Validated labels: a list of strings, stripped, empty ones dropped, duplicates once (in
    their order); RunMarkError for anything else, a label over :data:`MAX_LABEL_CHARS`
    characters or holding a comma or a control character, or more than :data:`MAX_LABELS`."""
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        raise RunMarkError("'labels' must be a list of strings.")
    out = list(dict.fromkeys(label.strip() for label in labels if label.strip()))
    for label in out:
        if len(label) > MAX_LABEL_CHARS:
            raise RunMarkError(f"A label has at most {MAX_LABEL_CHARS} characters: {label[:40]!r}.")
        if _FORBIDDEN.search(label):
            raise RunMarkError(f"A label holds no comma or control character: {label!r}.")
        try:
            label.encode("utf-8")
        except UnicodeEncodeError:
            raise RunMarkError("A label must be Unicode text.") from None
    if len(out) > MAX_LABELS:
        raise RunMarkError(f"A run has at most {MAX_LABELS} labels.")
    return out


def parse_labels(text: str | None) -> list[str]:
    """Labels typed in one box, separated by commas (:func:`clean_labels`)."""
    return clean_labels((text or "").split(","))


def validate_marks(body: Any) -> dict[str, Any]:
    """A change of a run's marks: ``{"archived"?: bool, "labels"?: [str]}``, at least one of
    them; RunMarkError otherwise."""
    if not isinstance(body, dict) or not body:
        raise RunMarkError("The body must be an object with 'archived' and/or 'labels'.")
    unknown = set(body) - {"archived", "labels"}
    if unknown:
        raise RunMarkError(f"Unknown keys: {sorted(unknown)}; only 'archived' and 'labels'.")
    out: dict[str, Any] = {}
    if "archived" in body:
        if not isinstance(body["archived"], bool):
            raise RunMarkError("'archived' must be true or false.")
        out["archived"] = body["archived"]
    if "labels" in body:
        out["labels"] = clean_labels(body["labels"])
    return out


def _merged(entry: dict[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """The entry after ``change``, without its defaults (not archived, no labels)."""
    new = {**entry, **change}
    return {k: v for k, v in new.items() if v not in (False, [], None)}


class RunMarks(JobEntriesFile):
    """Archive states and labels of one summary base directory's runs, in one JSON file."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "run marks")

    def update(self, train_id: str, change: Mapping[str, Any]) -> dict[str, Any]:
        """Set ``{"archived"?, "labels"?}`` of the run (validated, RunMarkError otherwise);
        returns its marks (``{}``: neither)."""
        accepted = validate_marks(dict(change))
        return self.change(train_id, lambda entry: _merged(entry, accepted))

    def archived(self) -> set[str]:
        """The archived runs."""
        return {job for job, entry in self.all().items() if entry.get("archived") is True}

    def labels(self) -> dict[str, list[str]]:
        """Each labelled run's labels."""
        return {
            job: [str(label) for label in entry["labels"]]
            for job, entry in self.all().items()
            if isinstance(entry.get("labels"), list) and entry["labels"]
        }


def run_marks_path(workspace: str, base_dir: str) -> str:
    """``<workspace>/lineage/<digest>/run_marks.json`` (``<digest>`` as for the index)."""
    digest = os.path.basename(index_directory(workspace, base_dir))
    return os.path.join(workspace, "lineage", digest, FILE_NAME)


def offered_jobs(jobs: Sequence[str], archived: Iterable[str], show_archived: bool) -> list[str]:
    """The ``jobs`` a picker offers: all with ``show_archived``, else those not ``archived``."""
    if show_archived:
        return list(jobs)
    hidden = set(archived)
    return [job for job in jobs if job not in hidden]


def filter_text(job: str, labels: Mapping[str, Sequence[str]]) -> str:
    """What a picker's filter matches for a run: its name, then its labels each as ``#label``
    (``#baseline`` finds the runs labelled ``baseline``; a plain word finds it in a name or a
    label)."""
    own = labels.get(job) or ()
    return " ".join([job, *(f"#{label}" for label in own)])
