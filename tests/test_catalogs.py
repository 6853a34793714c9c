"""The translation catalogs are up to date with the sources (``scripts/i18n.sh``).

Fails when a string marked for translation was added or changed without ``scripts/i18n.sh
update`` (the template misses it), when a catalog lacks a translation, and when a committed
``.mo`` does not hold what ``scripts/i18n.sh compile`` makes of its ``.po``. Compiled catalogs
are compared by their messages, not their bytes: the header names the Babel release that wrote
it (``Generated-By``), and a new release must not turn the suite red.
"""

from __future__ import annotations

import gettext
import io
import pathlib
import re
import subprocess
import sys

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from dash_insight.core import i18n

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOCALE_DIR = pathlib.Path(i18n.LOCALE_DIR)
TEMPLATE = LOCALE_DIR / f"{i18n.DOMAIN}.pot"
TRANSLATED = [locale for locale in i18n.LOCALES if locale != i18n.ENGLISH]


def _catalog(path: pathlib.Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=locale)


def _po(locale: str) -> pathlib.Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"


def _ids(catalog: Catalog) -> set[object]:
    return {message.id for message in catalog if message.id}


def _placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"\{[^{}]*\}", text))


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """What ``scripts/i18n.sh extract`` finds in the sources now (same pybabel options)."""
    out = tmp_path_factory.mktemp("i18n") / "extracted.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "-q",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "lazy_gettext",
            "--omit-header",
            "-o",
            str(out),
            "dash_insight",
        ],
        cwd=ROOT,
        check=True,
    )
    return _catalog(out)


def test_the_script_wraps_pybabel() -> None:
    script = (ROOT / "scripts" / "i18n.sh").read_text()
    for command in ("extract", "update", "compile"):
        assert f"{command})" in script
    assert "-k lazy_gettext" in script and "-F babel.cfg" in script


def test_template_is_up_to_date_with_the_sources(extracted: Catalog) -> None:
    template = _catalog(TEMPLATE)
    missing = _ids(extracted) - _ids(template)
    stale = _ids(template) - _ids(extracted)
    assert not missing, (
        f"run scripts/i18n.sh update: not in the template: {sorted(map(str, missing))[:10]}"
    )
    assert not stale, (
        f"run scripts/i18n.sh update: no longer in the sources: {sorted(map(str, stale))[:10]}"
    )
    assert len(_ids(template)) > 400  # the pages, the CLI: not an empty extraction


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_message_is_translated(locale: str) -> None:
    template, catalog = _catalog(TEMPLATE), _catalog(_po(locale), locale)
    assert _ids(catalog) == _ids(template), "run scripts/i18n.sh update"
    untranslated, fuzzy, broken = [], [], []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            untranslated.append(ids[0])
        if message.fuzzy:
            fuzzy.append(ids[0])
        # every placeholder of the English is in the translation, and no other
        if any(_placeholders(text) != _placeholders(ids[0]) for text in strings if text):
            broken.append(ids[0])
    assert not untranslated, untranslated[:10]
    assert not fuzzy, fuzzy[:10]
    assert not broken, broken[:10]


def _hashable(text: object) -> object:
    return tuple(text) if isinstance(text, list) else text


def compiled_messages(mo: bytes) -> dict[object, object]:
    """What gettext looks up in a compiled catalog: (context, id) -> translation, and the plural
    rule; the rest of the header (tool versions, dates) is left out."""
    catalog = read_mo(io.BytesIO(mo))
    messages: dict[object, object] = {
        (m.context, _hashable(m.id)): _hashable(m.string) for m in catalog if m.id
    }
    messages["plural-forms"] = catalog.plural_forms
    return messages


def _compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


@pytest.mark.parametrize("locale", TRANSLATED)
def test_compiled_catalog_is_the_po_compiled(locale: str) -> None:
    compiled = _compiled(_catalog(_po(locale), locale))
    committed = (_po(locale).with_suffix(".mo")).read_bytes()
    assert compiled_messages(compiled) == compiled_messages(committed), (
        "run scripts/i18n.sh compile"
    )
    # and gettext reads it: the catalog the pages use
    translations = gettext.GNUTranslations(io.BytesIO(committed))
    assert translations.gettext("Summary List") == "训练列表"


def test_catalogs_compare_by_messages_not_header() -> None:
    po = _po(TRANSLATED[0])
    original = compiled_messages(_compiled(_catalog(po, TRANSLATED[0])))
    other_tool = _catalog(po, TRANSLATED[0])
    other_tool.version = "9.9"  # header fields only, as another Babel release writes them
    other_tool.last_translator = "another translator"
    header_only = _compiled(other_tool)
    assert header_only != _compiled(_catalog(po, TRANSLATED[0]))
    assert compiled_messages(header_only) == original
    changed = _catalog(po, TRANSLATED[0])
    changed["Summary List"].string = "摘要列表"
    assert compiled_messages(_compiled(changed)) != original
