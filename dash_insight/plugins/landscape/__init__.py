"""The loss landscape plugin (see :mod:`.plugin`)."""
