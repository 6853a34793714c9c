"""The MindSpore summary file format: framing, protobuf decoding, file naming, writing.

Nothing here knows about jobs, caches or Dash; see ``dash_insight.core.store`` for that.
"""

from __future__ import annotations

import os

# The pure-Python protobuf backend parses ~300x slower than upb (2.7 vs 845 MB/s here). Refuse
# to run on it rather than be silently slow.
if os.environ.get("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION") == "python":
    os.environ.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")

from google.protobuf.internal import api_implementation

if api_implementation.Type() == "python":  # pragma: no cover - depends on the environment
    raise ImportError(
        "dash-insight needs protobuf's upb (C) backend; the pure-Python backend is ~300x slower. "
        "Unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION and install a protobuf wheel for this "
        "platform."
    )
