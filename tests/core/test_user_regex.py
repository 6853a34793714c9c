"""User regular expressions: a pattern nested too deeply for ``re``'s parser is an invalid
expression with a message, not a crash, wherever users type one."""

from __future__ import annotations

import re

import pytest

from dash_insight.core.user_regex import compile_user_regex
from dash_insight.plugins.scalars.query_groups import parse_group_by
from dash_insight.web.components.tag_select import filter_tags

DEEP = "(" * 5000


def test_compiles_what_re_compiles() -> None:
    assert compile_user_regex("loss|acc", re.IGNORECASE).search("LOSS")


@pytest.mark.parametrize("pattern", [DEEP, "(", "[z-a]"])
def test_any_bad_pattern_is_a_re_error(pattern: str) -> None:
    with pytest.raises(re.error):
        compile_user_regex(pattern)


def test_every_filter_says_why_for_a_deep_pattern() -> None:
    tags, error = filter_tags(["loss", "acc"], DEEP)
    assert tags == ["loss", "acc"] and error and "nested too deeply" in error
    with pytest.raises(ValueError):  # capped at 200 characters before it could be deep
        parse_group_by("re:" + "(" * 190)
    from dash_insight.plugins.jobs.page import filter_jobs

    jobs, message = filter_jobs([], DEEP, True)
    assert jobs == [] and message and "nested too deeply" in message
