"""What is known about the logs, and the one way to ask."""

from __future__ import annotations
