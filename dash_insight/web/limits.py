"""The bounds of the work one callback request may ask for, in one place (``docs/limits.md``
tabulates them with the REST API's, and ``tests/faults/test_limits_table.py`` checks the table
against the app).

Imports nothing, so that :mod:`dash_insight.web.url_state` (pure) can use it. The body limits
live beside the code reading them: ``body_limit.MAX_REQUEST_BYTES`` (every request, 413) and
``http.MAX_JSON_BODY`` (a REST route's JSON body, 400).
"""

from __future__ import annotations

#: The longest URL query string (``search``), ``href``, ``pathname`` or ``hash`` a callback
#: accepts (400 beyond): a page's state is a few hundred characters, but a picker lists every
#: ticked name once one is unticked (9,999 names of a 10,000-name picker: about 100 KB).
MAX_URL_CHARS = 256 << 10
#: The most names (jobs, tags) one URL list parameter keeps; further names are dropped before
#: any work. As many as the longest picker the pages are tested with (10,000 names), so that
#: unticking one name of a long list never drops others.
MAX_URL_LIST_ITEMS = 10_000
#: The URL properties of ``dcc.Location`` a callback may take: a string or nothing, never
#: another JSON type.
URL_PROPERTIES = frozenset({"search", "href", "pathname", "hash"})
#: The longest filter (a regular expression on tags or runs) a URL or a filter box may give:
#: longer ones are cut (Python's ``re`` recurses past the interpreter's limit on a few hundred
#: nested groups, and a filter is a few words).
MAX_FILTER_CHARS = 256
#: The longest job id or tag name a URL parameter of one name keeps (longer ones are cut: no
#: job or tag has one that long).
MAX_NAME_CHARS = 4096
