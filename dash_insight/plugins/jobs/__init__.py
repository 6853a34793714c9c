"""The jobs plugin (see :mod:`.plugin`)."""
