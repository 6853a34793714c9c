"""One module per page; each owns its layout and its callbacks."""
