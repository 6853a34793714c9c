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
