#!/usr/bin/env bash
# The interface's translation catalogs (dash_insight/locale), wrapping pybabel:
#   scripts/i18n.sh extract   source strings -> dash_insight/locale/dash_insight.pot
#   scripts/i18n.sh update    extract, then merge the template into every <lang>/LC_MESSAGES/*.po
#   scripts/i18n.sh compile   every .po -> its .mo (committed; the wheel ships them)
# After changing interface text: update, translate the new entries of the .po files, compile.
# tests/test_catalogs.py fails while the template or a .mo is out of date.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYBABEL="${PYBABEL:-pybabel}"
if ! command -v "$PYBABEL" >/dev/null; then
    PYBABEL="${PYTHON:-python3} -m babel.messages.frontend"
fi
LOCALE_DIR=dash_insight/locale
DOMAIN=dash_insight
POT="$LOCALE_DIR/$DOMAIN.pot"
# gettext, ngettext and pgettext are pybabel's default keywords; lazy_gettext is ours.
extract() {
    $PYBABEL extract -F babel.cfg -k lazy_gettext --sort-by-file --no-wrap --omit-header \
        --project dash-insight -o "$POT" dash_insight
}
case "${1:-}" in
    extract) extract ;;
    update)
        extract
        $PYBABEL update -i "$POT" -d "$LOCALE_DIR" -D "$DOMAIN" --no-wrap \
            --ignore-obsolete --no-fuzzy-matching
        ;;
    compile) $PYBABEL compile -d "$LOCALE_DIR" -D "$DOMAIN" --statistics ;;
    *) echo "usage: $0 extract|update|compile" >&2; exit 2 ;;
esac
