"""The scalars plugin (see :mod:`.plugin`)."""
