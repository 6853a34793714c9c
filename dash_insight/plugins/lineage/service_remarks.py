"""Lineage tags and remarks, persisted in the workspace (MindInsight kept them in memory only and
lost them on restart).

One small JSON file per summary base directory, ``<workspace>/lineage/<digest>/added_info.json``
(``<digest>`` as for the index: sha256 of the base directory's real path), holding
``{"version": 1, "jobs": {train_id: {"tag": int, "remark": str}}}``, written and read as
:class:`~dash_insight.core.job_file.JobEntriesFile` does (locked, atomic, cached reads).

Which file: :func:`remarks_path` of the settings' workspace and base directory, so every
process serving that base directory with that workspace uses the same file. The lineage
plugin's service owns one :class:`RemarkStore` (one in-process lock) per app.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from dash_insight.core.job_file import JobEntriesFile
from dash_insight.core.store.index import index_directory

#: MindInsight's limits (``validate_added_info``): tag 0..10 (0 = none), remark <= 128 chars.
MAX_TAG = 10
MAX_REMARK_LENGTH = 128
FILE_NAME = "added_info.json"


class RemarkError(ValueError):
    """An invalid tag or remark; ``str()`` is MindInsight's message."""


def validate_added_info(added_info: Any) -> dict[str, Any]:
    """MindInsight's ``validate_added_info``: only ``tag`` (int 0..10) and ``remark`` (str of at
    most 128 characters). Unlike MindInsight a boolean tag is refused (it accepted ``true`` as
    1). Returns the accepted keys in the given order."""
    if not isinstance(added_info, dict):
        raise RemarkError("The request body should be a dict.")
    if not set(added_info).issubset(("tag", "remark")):
        raise RemarkError("Keys of added_info must be in ['tag', 'remark'].")
    for key, value in added_info.items():
        if key == "tag":
            if isinstance(value, bool) or not isinstance(value, int):
                raise RemarkError("'tag' must be int.")
            if not 0 <= value <= MAX_TAG:
                raise RemarkError(f"The tag should in [0, {MAX_TAG}].")
        else:
            if not isinstance(value, str):
                raise RemarkError("'remark' must be str.")
            if len(value) > MAX_REMARK_LENGTH:
                raise RemarkError(f"The length of remark should in [0, {MAX_REMARK_LENGTH}].")
            if not _is_unicode_text(value):
                raise RemarkError("'remark' must be Unicode text (it holds a lone surrogate).")
    return dict(added_info)


def _is_unicode_text(text: str) -> bool:
    """Whether ``text`` can be stored as UTF-8: JSON's ``"\\ud800"`` decodes to a lone surrogate,
    which MindInsight kept in memory but no file (or browser) can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class RemarkStore(JobEntriesFile):
    """Tags and remarks of one summary base directory's jobs, in one JSON file
    (:class:`~dash_insight.core.job_file.JobEntriesFile`)."""

    def update(self, train_id: str, added_info: Mapping[str, Any]) -> dict[str, Any]:
        """Merge ``{"tag"?, "remark"?}`` (validated, RemarkError otherwise) into the job's entry
        as MindInsight's PUT does; returns the job's new entry."""
        accepted = validate_added_info(dict(added_info))
        return self.change(train_id, lambda entry: {**entry, **accepted})


def remarks_path(workspace: str, base_dir: str) -> str:
    """``<workspace>/lineage/<digest>/added_info.json`` (``<digest>`` as for the index)."""
    digest = os.path.basename(index_directory(workspace, base_dir))
    return os.path.join(workspace, "lineage", digest, FILE_NAME)
