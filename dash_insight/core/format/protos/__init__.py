"""Generated protobuf modules; regenerate with proto/generate.py."""
