"""The words every layer shares: kinds of stored data, graph modes, MindInsight's plugin names.

Spelled here once; the format decoder, the store, the provider, the plugins and the REST API
import them (MindInsight: ``PluginNameEnum`` in ``datavisual/common/enums.py``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class _Word(str, enum.Enum):
    """A str-valued enum whose members print and format as their value on every Python version
    (3.12 changed ``format()`` of mixed-in enums)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, format_spec: str) -> str:
        return format(str(self.value), format_spec)


class PluginName(_Word):
    """A kind of value a summary ``Event`` holds (the index stores tags per kind)."""

    SCALAR = "scalar"
    IMAGE = "image"
    HISTOGRAM = "histogram"
    TENSOR = "tensor"
    GRAPH = "graph"
    LOSS_LANDSCAPE = "loss_landscape"


#: Every kind the index keeps tags of, in the order a job summary lists them.
STORED_PLUGINS: tuple[str, ...] = tuple(p.value for p in PluginName)

#: MindInsight's ``PluginNameEnum`` in its order (the order of ``plugins`` in every answer):
#: the stored kinds plus ``optimized_graph``, the readable-mode view of each graph.
OPTIMIZED_GRAPH = "optimized_graph"
MINDINSIGHT_PLUGINS: tuple[str, ...] = (
    PluginName.IMAGE.value,
    PluginName.SCALAR.value,
    PluginName.GRAPH.value,
    OPTIMIZED_GRAPH,
    PluginName.HISTOGRAM.value,
    PluginName.TENSOR.value,
    PluginName.LOSS_LANDSCAPE.value,
)


class GraphMode(_Word):
    """How a computational graph is built: as recorded, or MindInsight's readable mode."""

    NORMAL = "normal"
    OPTIMIZE = "optimize"


GRAPH_MODES: tuple[str, ...] = tuple(m.value for m in GraphMode)
#: MindInsight lists each graph tag again for ``optimized_graph`` with this suffix.
OPTIMIZED_SUFFIX = " (optimized)"
#: The graph file MindSpore dumps after optimisation; MindInsight lists it first.
TOP_GRAPH_TAG = "ms_output_optimize.pb"


def ordered_graph_tags(tags: Iterable[str]) -> list[str]:
    """Graph tags as MindInsight lists them: sorted, :data:`TOP_GRAPH_TAG` first."""
    ordered = sorted(tags)
    if TOP_GRAPH_TAG in ordered:
        ordered.remove(TOP_GRAPH_TAG)
        ordered.insert(0, TOP_GRAPH_TAG)
    return ordered


def graph_tags_for_mode(tags: Iterable[str], mode: str) -> list[str]:
    """The graph tags of a job as ``/plugins`` lists them for ``mode``: optimized tags carry
    :data:`OPTIMIZED_SUFFIX`."""
    ordered = ordered_graph_tags(tags)
    return [t + OPTIMIZED_SUFFIX for t in ordered] if mode == GraphMode.OPTIMIZE else ordered


def graph_file_of_tag(tag: str, mode: str) -> str:
    """The graph file name of a MindInsight graph tag (the optimized suffix removed)."""
    if mode == GraphMode.OPTIMIZE and tag.endswith(OPTIMIZED_SUFFIX):
        return tag[: -len(OPTIMIZED_SUFFIX)]
    return tag


def mindinsight_tag(tag: str, plugin: str) -> str:
    """MindInsight's name of a stored tag: ``"<tag>/<plugin>"``."""
    return f"{tag}/{plugin}"


def mindinsight_order(tags: Iterable[str], plugin: str) -> list[str]:
    """Stored tags in the order MindInsight lists them (``/plugins``, ``single-job``): sorted
    by their MindInsight names ``"<tag>/<plugin>"`` (its ``tags_by_plugin`` is returned sorted).
    The training dashboard's cards take the first of these: ``loss/auto`` before
    ``op/activation_max`` whatever order they were written in."""
    return sorted(tags, key=lambda tag: mindinsight_tag(tag, plugin))


def stored_tag(tag: str, plugin: str) -> str | None:
    """The stored tag of MindInsight's ``"<tag>/<plugin>"`` (None if not of that plugin)."""
    suffix = "/" + plugin
    return tag[: -len(suffix)] if tag.endswith(suffix) else None
