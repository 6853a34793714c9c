"""Regular expressions typed by users (tag and job filters, group-by patterns).

Python's ``re`` raises ``re.error`` for most bad patterns, but ``RecursionError`` for one
nested too deeply (500 ``(`` are enough), which a caller catching ``re.error`` lets through as
a crash. :func:`compile_user_regex` turns both into ``re.error``, so one ``except`` gives the
user a message.
"""

from __future__ import annotations

import re


def compile_user_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``; ``re.error`` for any pattern it cannot compile (also
    one nested too deeply for the parser's recursion)."""
    try:
        return re.compile(pattern, flags)
    except RecursionError:
        raise re.error("the expression is nested too deeply") from None
