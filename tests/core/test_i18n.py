"""The interface's languages: locale negotiation, gettext per context, Babel formats."""

from __future__ import annotations

import contextvars
import datetime as dt
import threading

import numpy as np
import pytest

from dash_insight.core import i18n


@pytest.mark.parametrize(
    ("tag", "locale"),
    [
        ("zh", i18n.CHINESE),
        ("zh-CN", i18n.CHINESE),
        ("zh_CN", i18n.CHINESE),
        ("zh-Hans", i18n.CHINESE),
        ("zh-hans-cn", i18n.CHINESE),
        ("zh_CN.UTF-8", i18n.CHINESE),
        ("ZH-cn", i18n.CHINESE),
        ("en", i18n.ENGLISH),
        ("en-US", i18n.ENGLISH),
        ("en_GB.UTF-8", i18n.ENGLISH),
        ("C", i18n.ENGLISH),
        ("POSIX", i18n.ENGLISH),
        ("zh-TW", None),
        ("zh-Hant", None),
        ("zh-HK", None),
        ("fr", None),
        ("", None),
        (None, None),
        ("-", None),
    ],
)
def test_normalize_locale(tag: str | None, locale: str | None) -> None:
    assert i18n.normalize_locale(tag) == locale


def test_accept_language_is_ranked_by_quality_then_order() -> None:
    assert i18n.parse_accept_language("fr;q=0.5, zh-CN, en;q=0.8") == ["zh-CN", "en", "fr"]
    assert i18n.parse_accept_language("en, zh") == ["en", "zh"]
    assert i18n.parse_accept_language("de;q=0, zh;q=x, *;q=0.1") == ["*"]
    assert i18n.parse_accept_language("") == []
    assert i18n.parse_accept_language(None) == []
    assert i18n.parse_accept_language("<script>, zh") == ["zh"]


@pytest.mark.parametrize(
    ("cookie", "header", "default", "locale"),
    [
        (None, "zh-CN,zh;q=0.9,en;q=0.8", "en", i18n.CHINESE),  # the browser's first choice
        (None, "en-US,en;q=0.9,zh;q=0.8", "zh-CN", i18n.ENGLISH),
        (None, "fr-FR, zh-Hans;q=0.7", "en", i18n.CHINESE),  # first language we have
        (None, "fr-FR, de", "zh-CN", i18n.CHINESE),  # none we have: the server's
        (None, None, "zh-CN", i18n.CHINESE),
        (None, None, "en", i18n.ENGLISH),
        (None, "zh-TW", "en", i18n.ENGLISH),  # no traditional Chinese catalog
        ("en", "zh-CN", "zh-CN", i18n.ENGLISH),  # the switch wins
        ("zh_CN", "en", "en", i18n.CHINESE),
        ("klingon", "zh", "en", i18n.CHINESE),  # a bad cookie is ignored
        (None, "*, zh", "en", i18n.ENGLISH),  # "*" ends the search
        (None, None, "nonsense", i18n.ENGLISH),
    ],
)
def test_negotiate(cookie: str | None, header: str | None, default: str, locale: str) -> None:
    assert i18n.negotiate(cookie, header, default) == locale


@pytest.mark.parametrize(
    ("environ", "locale"),
    [
        ({"LANG": "zh_CN.UTF-8"}, i18n.CHINESE),
        ({"LANG": "en_US.UTF-8"}, i18n.ENGLISH),
        ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, i18n.CHINESE),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, i18n.ENGLISH),
        ({"LC_MESSAGES": "zh_CN.UTF-8"}, i18n.CHINESE),
        ({"LANG": "fr_FR.UTF-8"}, None),
        ({}, None),
    ],
)
def test_locale_from_environ(environ: dict[str, str], locale: str | None) -> None:
    assert i18n.locale_from_environ(environ) == locale


def test_gettext_follows_the_context_locale() -> None:
    assert i18n.current_locale() == i18n.ENGLISH
    assert i18n.gettext("Summary List") == "Summary List"
    with i18n.use_locale("zh-CN") as locale:
        assert locale == i18n.CHINESE
        assert i18n.gettext("Summary List") == "训练列表"
        assert i18n.gettext("Scalars") == "标量"
        assert i18n.gettext("Smoothing") == "平滑度"
        assert i18n.ngettext("{count} tag", "{count} tags", 1).format(count=1) == "1 个标签"
        assert i18n.ngettext("{count} tag", "{count} tags", 5).format(count=5) == "5 个标签"
        assert i18n.gettext("a message no catalog has") == "a message no catalog has"
        with i18n.use_locale("en"):
            assert i18n.gettext("Summary List") == "Summary List"
        assert i18n.gettext("Summary List") == "训练列表"
    assert i18n.current_locale() == i18n.ENGLISH
    assert i18n.ngettext("{count} tag", "{count} tags", 1) == "{count} tag"
    assert i18n.ngettext("{count} tag", "{count} tags", 2) == "{count} tags"


def test_each_thread_translates_to_its_own_locale() -> None:
    """Server threads answer requests in different languages at the same time."""
    seen: dict[str, str] = {}
    barrier = threading.Barrier(2)

    def answer(locale: str) -> None:
        with i18n.use_locale(locale):
            barrier.wait(timeout=10)  # both locales are set before either translates
            seen[locale] = i18n.gettext("Scalars")

    threads = [
        threading.Thread(target=contextvars.copy_context().run, args=(answer, locale))
        for locale in ("zh_CN", "en")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert seen == {"zh_CN": "标量", "en": "Scalars"}


def test_lazy_strings_translate_when_shown() -> None:
    label = i18n.lazy_gettext("Summary List")
    assert str(label) == "Summary List"
    with i18n.use_locale("zh_CN"):
        assert str(label) == "训练列表"
        assert f"{label}" == "训练列表"
    assert label == i18n.lazy_gettext("Summary List")
    assert label != i18n.lazy_gettext("Scalars")
    assert repr(label) == "lazy_gettext('Summary List')"
    assert i18n.N_("Scalars") == "Scalars"


def test_interpolate_keeps_objects_in_translated_sentences() -> None:
    code = object()
    assert i18n.interpolate("Record it with {api}.", api=code) == ["Record it with ", code, "."]
    assert i18n.interpolate("{api}", api=code) == [code]
    assert i18n.interpolate("no placeholder") == ["no placeholder"]
    assert i18n.interpolate("{unknown} stays") == ["{unknown}", " stays"]


def test_number_formats_per_locale() -> None:
    assert i18n.format_number(1234567) == "1,234,567"
    assert i18n.format_number(1234.5678, 2) == "1,234.57"
    assert i18n.format_number(3, 0) == "3"
    assert i18n.format_number(0.5) == "0.5"
    with i18n.use_locale("zh_CN"):
        assert i18n.format_number(1234567) == "1,234,567"
        assert i18n.format_number(1234.5678, 1) == "1,234.6"
        assert i18n.format_number(2.2388088703155518, significant=6) == "2.23881"


def test_significant_digits() -> None:
    assert i18n.format_number(2.2388088703155518, significant=6) == "2.23881"
    assert i18n.format_number(0.000123456789, significant=6) == "0.000123457"
    assert i18n.format_number(2.5, significant=6) == "2.5"
    assert i18n.format_number(12, significant=6) == "12"
    assert i18n.format_number(-1234567.89, significant=6) == "-1,234,570"
    assert i18n.format_number(0.999999999, significant=6) == "1"
    assert i18n.format_number(0.0, significant=6) == "0"
    assert i18n.format_number(1e-9, significant=6) == "1e-09"
    assert i18n.format_number(float("nan"), significant=6) == "nan"


def test_date_formats_per_locale() -> None:
    moment = dt.datetime(2026, 11, 22, 5, 17, 50)
    seconds = moment.timestamp()  # local time, as the pages show it
    assert i18n.format_datetime(seconds, i18n.TABLE_DATETIME) == "2026-11-22 05:17:50"
    assert i18n.format_datetime(seconds) == "Nov 22, 2026, 5:17:50\u202fAM"
    with i18n.use_locale("zh_CN"):
        assert i18n.format_datetime(seconds, i18n.TABLE_DATETIME) == "2026-11-22 05:17:50"
        assert i18n.format_datetime(seconds) == "2026年11月22日 05:17:50"
        assert i18n.format_datetime(seconds, "EEEE") == "星期日"


def test_wall_time_is_the_summary_lists_format_in_both_languages() -> None:
    """strftime gives what Babel's format_datetime of TABLE_DATETIME gives, in each language."""
    moments = [
        0.0,
        1_795_324_794.9,
        1_700_000_000.5,
        *np.random.default_rng(7).uniform(0, 4e9, 200),
    ]
    for locale in ("en-US", "zh-CN"):
        with i18n.use_locale(locale):
            assert [i18n.format_wall_time(s) for s in moments] == [
                i18n.format_datetime(s, i18n.TABLE_DATETIME) for s in moments
            ]
    # A damaged record's wall time: no text to crash on, the other steps' times unchanged.
    assert [i18n.format_wall_time(s) for s in (float("nan"), float("inf"), -1e300, 1e300)] == [
        "-"
    ] * 4
