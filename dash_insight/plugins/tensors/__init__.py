"""The tensors plugin (see :mod:`.plugin`)."""
