"""Why a record, file or job could not be used: the reasons the index keeps and the provider's
errors a page shows, and their translation.

The index stores each reason once, in English (it is shared by processes that answer in both
languages, and the REST answers and logs stay English as MindInsight's did). Each reason is one
of the templates below, filled in with ``str.format``; :func:`localize_reason` recognises a
stored reason by its template and fills the translated template with the same values, when a
page shows it. A reason that matches no template (an operating-system or protobuf message) is
shown as it is.
"""

from __future__ import annotations

import functools
import re
import string

from dash_insight.core.i18n import N_, gettext

HEADER_CRC = N_("record header corrupted (length CRC mismatch); skipping to the next valid record")
PAYLOAD_CRC = N_("record payload corrupted (payload CRC mismatch); record dropped")
RUNS_PAST_END = N_(
    "record of {length} bytes runs past the end of the file ({size} bytes) while "
    "an intact record follows at {later}; skipping to it"
)
OVERSIZED = N_(
    "record of {length:,} bytes is larger than the {limit:,}-byte limit "
    "(--max-record-bytes); skipped without reading it"
)
CANNOT_READ_FILE = N_("cannot read file: {error}")
CANNOT_INDEX_FILE = N_("could not index this file: {error}")
CANNOT_LIST_DIRECTORY = N_("cannot list this directory: {error}")
CANNOT_LIST_SHOWING_OLD = N_("cannot list {directory}: {error}; showing what was read before")
NOT_A_REGULAR_FILE = N_("{name}: {kind}, not a regular file: skipped")
VALUE_HOLDS_NO_DATA = N_("value {tag} holds no data")
NO_TRAINING_JOB = N_("no training job {train_id!r} in the summary base directory")

#: Every template a stored reason is made from, the longest first (the most specific match).
TEMPLATES: tuple[str, ...] = tuple(
    sorted(
        (
            HEADER_CRC,
            PAYLOAD_CRC,
            RUNS_PAST_END,
            OVERSIZED,
            CANNOT_READ_FILE,
            CANNOT_INDEX_FILE,
            CANNOT_LIST_DIRECTORY,
            CANNOT_LIST_SHOWING_OLD,
            NOT_A_REGULAR_FILE,
            VALUE_HOLDS_NO_DATA,
            NO_TRAINING_JOB,
        ),
        key=len,
        reverse=True,
    )
)

_FIELD = re.compile(r"\{(\w+)(?:![rsa])?(?::[^}]*)?\}")


@functools.cache
def _pattern(template: str) -> re.Pattern[str]:
    """The regular expression a reason filled in from ``template`` matches as a whole: the
    literal text, and one named group of any text per field."""
    parts = []
    for literal, field, _spec, _conversion in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("".join(parts), re.DOTALL)


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each field replaced by its text in ``values`` (format specs dropped:
    the texts are already formatted)."""
    return _FIELD.sub(lambda field: values[field.group(1)], template)


def localize_reason(reason: str) -> str:
    """``reason`` in the language of the current request: the translated template of the
    template it was filled in from, with the same field texts (a field that is itself a reason,
    like ``cannot read file: {error}``, is left as written). Unknown text is returned as is."""
    for template in TEMPLATES:
        match = _pattern(template).fullmatch(reason)
        if match is not None:
            return _fill(gettext(template), match.groupdict())
    return reason
