"""One folder per feature. Each ``plugins/<name>/plugin.py`` exports ``PLUGIN`` (a
:class:`dash_insight.web.plugin.Plugin`); :mod:`dash_insight.default` lists them.
Plugins never import each other (checked by import-linter in the test script)."""
