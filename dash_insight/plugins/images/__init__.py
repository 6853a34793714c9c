"""The images plugin (see :mod:`.plugin`)."""
