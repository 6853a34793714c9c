"""The histograms plugin (see :mod:`.plugin`)."""
