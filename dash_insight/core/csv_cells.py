"""One CSV line of text cells, as :mod:`csv` writes it (the CLI's and the REST export's)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence


def csv_cells(cells: Sequence[str]) -> str:
    r"""``cells`` as one CSV line without its end, as :class:`csv.writer` writes them: a cell is
    quoted when it holds a comma, a quote, ``\r`` or ``\n`` (quotes doubled). Written with the
    ``\r\n`` line end and that end cut off: :mod:`csv` quotes only the line-break characters of
    its ``lineterminator``, so with ``""`` a tag holding a line break would split its row."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(cells)
    return buffer.getvalue()[:-2]


#: A spreadsheet evaluates a cell starting with one of these as a formula (``=HYPERLINK(...)``).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: str) -> str:
    """``text`` for a CSV text cell that a spreadsheet shows as text, never runs: a leading
    ``'`` before a formula start (OWASP's CSV injection advice). Numbers are not text cells.
    Both CSV writers use it: the REST download and ``dash-insight export``."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text
