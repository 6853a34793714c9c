"""Profiler: MindSpore CPU operator performance (performance dashboard, operator page, timeline)
and MindInsight's ``/profile/devices`` and ``/profile/ops/search``."""
