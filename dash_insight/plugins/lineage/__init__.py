"""The lineage plugin (see :mod:`.plugin`)."""
