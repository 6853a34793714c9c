"""AG Grid's own words in the page's language.

AG Grid writes its overlays, pager and filter menus in English unless ``localeText`` gives
them (``loadingOoo`` is the "Loading..." overlay a grid shows until its rows arrive, as the
tag picker's do while they wait for the charts on screen). Every grid of the app takes this
map, with its own "no rows" line.
"""

from __future__ import annotations

from dash_insight.core.i18n import gettext as _


def grid_locale_text(no_rows: str) -> dict[str, str]:
    """AG Grid ``localeText`` in the current language: overlays, pager and filter menus;
    ``no_rows`` is the line of an empty grid (AG Grid's "No Rows To Show")."""
    return {
        "noRowsToShow": no_rows,
        "loadingOoo": _("Loading..."),
        "page": _("Page"),
        "of": _("of"),
        "to": _("to"),
        "more": _("more"),
        "pageSizeSelectorLabel": _("Page size:"),
        "firstPage": _("First page"),
        "previousPage": _("Previous page"),
        "nextPage": _("Next page"),
        "lastPage": _("Last page"),
        "filterOoo": _("Filter..."),
        "equals": _("Equals"),
        "notEqual": _("Does not equal"),
        "contains": _("Contains"),
        "notContains": _("Does not contain"),
        "startsWith": _("Begins with"),
        "endsWith": _("Ends with"),
        "blank": _("Blank"),
        "notBlank": _("Not blank"),
        "lessThan": _("Less than"),
        "greaterThan": _("Greater than"),
        "lessThanOrEqual": _("Less than or equal to"),
        "greaterThanOrEqual": _("Greater than or equal to"),
        "inRange": _("Between"),
        "andCondition": _("AND"),
        "orCondition": _("OR"),
        "pinColumn": _("Pin Column"),
        "autosizeThisColumn": _("Autosize This Column"),
        "resetColumns": _("Reset Columns"),
    }
