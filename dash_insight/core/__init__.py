"""The web-free core: the summary file format (:mod:`.format`), the index and its loader
(:mod:`.store`), the query API (:mod:`.provider`), the settings and the shared vocabulary.

Nothing here imports Dash, Flask or a plugin (checked by import-linter in the test script).
"""
