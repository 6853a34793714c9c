"""The interface's two languages (English, simplified Chinese): gettext bound to the locale of
the request being answered, and Babel's number and date formats for that locale.

Web-free: the web layer (:mod:`dash_insight.web.i18n`) picks each request's locale (the
``di_language`` cookie, else ``Accept-Language``, else the server's ``--language``) and sets
it with :func:`use_locale`; the CLI sets it from ``--language`` / ``LANG``. Everything else
calls :func:`gettext` when it builds a string the user reads. The locale lives in a
:class:`contextvars.ContextVar`, so the threads of one server answer each request in its own
language. Strings built at import time use :func:`lazy_gettext` and are turned into ``str``
where they are shown.

The catalogs are ``dash_insight/locale/<locale>/LC_MESSAGES/dash_insight.mo``, compiled from
the ``.po`` files by ``scripts/i18n.sh compile``. English is the source language: its msgids
are the English text, so a missing translation shows English, never a key.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import gettext as _gettext
import math
import os
import re
import time
from collections.abc import Iterator, Mapping
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from babel import Locale

#: The gettext domain of the catalogs.
DOMAIN = "dash_insight"
#: Where the compiled catalogs are: ``<LOCALE_DIR>/<locale>/LC_MESSAGES/dash_insight.mo``.
LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "locale")

ENGLISH = "en"
CHINESE = "zh_CN"
#: The interface's languages (gettext locale names), the source language first.
LOCALES: tuple[str, ...] = (ENGLISH, CHINESE)
#: What the language switch shows for each locale (each in its own language).
LOCALE_NAMES: Mapping[str, str] = {CHINESE: "中文", ENGLISH: "English"}
#: The cookie the top bar's language switch sets (read by the web layer).
COOKIE_NAME = "di_language"

_current: ContextVar[str] = ContextVar("dash_insight_locale", default=ENGLISH)


def normalize_locale(tag: str | None) -> str | None:
    """The interface locale for a language tag, or None when it names neither language.

    Accepts BCP 47 tags and POSIX names: ``zh``, ``zh-CN``, ``zh_CN``, ``zh-Hans``,
    ``zh-Hans-CN``, ``zh_CN.UTF-8`` give :data:`CHINESE`; ``en``, ``en-US``, ``C`` give
    :data:`ENGLISH`. Traditional Chinese (``zh-TW``, ``zh-Hant``) has no catalog: None.
    """
    if not tag:
        return None
    text = tag.strip().split(".")[0].split("@")[0].replace("_", "-").lower()
    parts = [part for part in text.split("-") if part]
    if not parts:
        return None
    if parts[0] in ("c", "posix", "en"):
        return ENGLISH
    if parts[0] == "zh":
        rest = parts[1:]
        if any(part in ("hant", "tw", "hk", "mo") for part in rest):
            return None
        return CHINESE
    return None


def parse_accept_language(header: str | None) -> list[str]:
    """The language tags of an ``Accept-Language`` header, most preferred first (RFC 9110
    quality values; ties keep the header's order; ``q=0`` and malformed entries are dropped)."""
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate((header or "").split(",")):
        fields = [field.strip() for field in item.split(";")]
        tag = fields[0]
        if not tag or not re.fullmatch(r"[A-Za-z0-9*_-]{1,64}", tag):
            continue
        quality = 1.0
        for field in fields[1:]:
            name, _, value = field.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = -1.0
        if 0 < quality <= 1:
            ranked.append((-quality, position, tag))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(cookie: str | None, accept_language: str | None, default: str = ENGLISH) -> str:
    """A request's locale: the switch's cookie when it names a language, else the first
    language of ``Accept-Language`` that has one (``*`` stops the search: the default), else
    the server's ``default``."""
    chosen = normalize_locale(cookie)
    if chosen:
        return chosen
    for tag in parse_accept_language(accept_language):
        if tag == "*":
            break
        chosen = normalize_locale(tag)
        if chosen:
            return chosen
    return normalize_locale(default) or ENGLISH


def locale_from_environ(environ: Mapping[str, str]) -> str | None:
    """The locale POSIX programs would use: ``LANGUAGE`` (its first entry), ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``, the first one set; None when that names neither language."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            return normalize_locale(value.split(":")[0])
    return None


def current_locale() -> str:
    """The locale strings are translated to now (:data:`ENGLISH` unless set)."""
    return _current.get()


def set_locale(locale: str) -> Token[str]:
    """Use ``locale`` (normalised; unknown: English) in this context until :func:`reset_locale`
    with the returned token."""
    return _current.set(normalize_locale(locale) or ENGLISH)


def reset_locale(token: Token[str]) -> None:
    _current.reset(token)


@contextlib.contextmanager
def use_locale(locale: str) -> Iterator[str]:
    """``with use_locale("zh_CN"):`` translate to ``locale`` inside the block."""
    token = set_locale(locale)
    try:
        yield current_locale()
    finally:
        reset_locale(token)


@functools.lru_cache(maxsize=len(LOCALES))
def translations(locale: str) -> _gettext.NullTranslations:
    """The compiled catalog of ``locale`` (read once per process: the package's ``.mo`` files
    do not change while it runs). English, and a missing catalog, translate to the msgid."""
    if locale == ENGLISH:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, LOCALE_DIR, languages=[locale], fallback=True)


def gettext(message: str) -> str:
    """``message`` in the current locale."""
    return translations(current_locale()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form for ``count`` in the current locale (Chinese has one
    form)."""
    return translations(current_locale()).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current locale, told apart from the same English word elsewhere by
    ``context`` (``Step`` the axis vs ``Step`` the label)."""
    return translations(current_locale()).pgettext(context, message)


class LazyString:
    """A message translated when it is turned into ``str`` (at render time, in the request's
    locale): for labels defined at import time, such as the top bar's links."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __str__(self) -> str:
        return gettext(self.message)

    def __repr__(self) -> str:
        return f"lazy_gettext({self.message!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyString):
            return self.message == other.message
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.message)


def N_(message: str) -> str:
    """``message`` unchanged: marks a template for ``pybabel extract`` that is translated
    later with :func:`gettext` (option help texts kept in tables)."""
    return message


def lazy_gettext(message: str) -> LazyString:
    """``message``, translated each time it is shown (see :class:`LazyString`)."""
    return LazyString(message)


def text(value: str | LazyString) -> str:
    """A label as shown now: lazy ones translated, plain strings unchanged."""
    return str(value)


def interpolate(template: str, **parts: Any) -> list[Any]:
    """A translated sentence with objects in it: ``template``'s ``{name}`` placeholders
    replaced by ``parts[name]`` (code snippets, links: components a translator cannot write),
    as a list of text pieces and those objects; empty pieces are left out.

    ``interpolate(_("Record it with {api}."), api=Code("add_value"))`` ->
    ``["Record it with ", Code("add_value"), "."]``."""
    pieces = re.split(r"\{(\w+)\}", template)
    out: list[Any] = []
    for index, piece in enumerate(pieces):
        if index % 2:
            out.append(parts[piece] if piece in parts else "{" + piece + "}")
        elif piece:
            out.append(piece)
    return out


# Babel is imported where it formats, not with this module: the command line imports gettext
# through the settings and starts faster without Babel's locale data modules.


def babel_locale(locale: str | None = None) -> Locale:
    from babel import Locale

    return Locale.parse(locale or current_locale())


def format_number(
    value: float | int, decimals: int | None = None, *, significant: int | None = None
) -> str:
    """``value`` with the current locale's grouping and decimal signs (Babel's
    ``format_decimal``): ``1,234,567`` in both languages, ``0.5`` ... ``decimals`` fixes the
    number of fraction digits; None keeps Babel's default (up to three). ``significant``
    rounds to that many significant digits instead, trailing zeros dropped (a loss:
    ``2.2388088703155518`` -> ``2.23881``, ``1234.56789`` -> ``1,234.57``); a value
    that would need more than 15 digits, or is not finite, is written in exponent form."""
    from babel.numbers import format_decimal

    if significant is not None and value != 0:
        if not math.isfinite(value) or not 1e-6 <= abs(value) < 1e15:
            return f"{value:.{significant}g}"
        rounded = float(f"{value:.{significant}g}")
        fraction = max(0, significant - 1 - math.floor(math.log10(abs(rounded))))
        pattern = "#,##0" + ("." + "#" * fraction if fraction else "")
        return format_decimal(rounded, format=pattern, locale=babel_locale())
    if decimals is None:
        return format_decimal(value, locale=babel_locale())
    pattern = "#,##0" + ("." + "0" * decimals if decimals > 0 else "")
    return format_decimal(value, format=pattern, locale=babel_locale())


#: The date-time pattern of the tables (MindInsight's ``%Y-%m-%d %H:%M:%S`` in both of its
#: languages; CLDR pattern syntax).
TABLE_DATETIME = "yyyy-MM-dd HH:mm:ss"


def format_wall_time(seconds: float) -> str:
    """Local time ``YYYY-MM-DD HH:MM:SS``: :data:`TABLE_DATETIME`, whose digits are the same in
    both languages, by ``strftime`` (an images page formats every step of a tag: 2 µs each,
    Babel's :func:`format_datetime` 22 µs). A wall time no clock shows (NaN, infinite, beyond
    what the platform's clock holds: a damaged record) is "-", as the summary list shows none."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
    except (OverflowError, OSError, ValueError):
        return "-"


def format_datetime(seconds: float, format: str = "medium") -> str:
    """The local time of a Unix timestamp in the current locale (Babel's ``format_datetime``):
    ``format`` is ``short`` / ``medium`` / ``long`` (``Nov 22, 2026, 5:17:50 AM`` /
    ``2026年11月22日 05:17:50`` for medium) or a CLDR pattern such as :data:`TABLE_DATETIME`."""
    from babel.dates import format_datetime as babel_format_datetime

    moment = dt.datetime.fromtimestamp(seconds)
    return babel_format_datetime(moment, format=format, locale=babel_locale())
