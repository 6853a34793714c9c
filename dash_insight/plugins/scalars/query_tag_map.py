"""Tags across runs: a mapping of tag names that puts tags which different writers named
differently on one chart of the scalar comparison (a tensorboardX run's ``train/loss`` and a
MindSpore job's ``loss/auto`` both drawn on the chart ``loss``). Pure (no web): the comparison
page, its download and its tests share it.

A mapping is ``{original tag: chart name}``; a tag it does not name keeps its own chart. The URL
keeps it as ``tag_map=train/loss=loss,loss/auto=loss``
(:class:`~dash_insight.web.url_state.TagMap`); the browser keeps the last one per base
directory. A chart then holds, per run, every original tag mapped to it (:func:`originals`), and
each line names its original tag (:func:`series_name`), in the hover and the download.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: Most entries of a mapping (more are dropped), and the longest tag or chart name kept.
MAX_ENTRIES = 100
MAX_NAME_CHARS = 256
#: Trailing path parts that writers add to say how a value was recorded, not what it is:
#: MindSpore's ``loss/auto`` (collected by ``SummaryCollector``) and ``acc/scalar`` (a
#: ``ScalarSummary`` operator), and the kinds MindSpore's summary operators append.
WRITER_SUFFIXES = frozenset({"auto", "scalar", "image", "histogram", "tensor"})


def clean_tag_map(raw: Mapping[str, object] | None) -> dict[str, str]:
    """The usable part of a mapping from the URL or the browser: string names of at most
    :data:`MAX_NAME_CHARS` characters, stripped, neither empty, a tag not mapped to itself; at
    most :data:`MAX_ENTRIES` entries (the first ones)."""
    out: dict[str, str] = {}
    for tag, chart in (raw or {}).items():
        if not isinstance(tag, str) or not isinstance(chart, str):
            continue
        tag, chart = tag.strip(), chart.strip()
        if not tag or not chart or tag == chart:
            continue
        if len(tag) > MAX_NAME_CHARS or len(chart) > MAX_NAME_CHARS:
            continue
        out[tag] = chart
        if len(out) == MAX_ENTRIES:
            break
    return out


def chart_of(tag: str, tag_map: Mapping[str, str]) -> str:
    """The chart a tag is drawn on: its mapped name, else its own."""
    return tag_map.get(tag, tag)


def chart_tags(
    tags_of: Mapping[str, Sequence[str]], tag_map: Mapping[str, str]
) -> dict[str, list[str]]:
    """Each job's charts (``tags_of``: its original tags): the chart of each of its tags, in
    the order of its tags, once each. Without a mapping: its tags."""
    if not tag_map:
        return {job: list(tags) for job, tags in tags_of.items()}
    return {
        job: list(dict.fromkeys(chart_of(tag, tag_map) for tag in tags))
        for job, tags in tags_of.items()
    }


def originals(tags: Sequence[str], chart: str, tag_map: Mapping[str, str]) -> list[str]:
    """The original tags among a job's ``tags`` drawn on ``chart`` (its own tag first when the
    job has one named as the chart, then the mapped ones in the job's order)."""
    return [tag for tag in tags if chart_of(tag, tag_map) == chart]


def series_name(job: str, tag: str, chart: str, mapped: bool) -> str:
    """A line's name in the legend and hover: the job, and its original tag when the chart
    holds a mapped tag (``mapped``) so that every line says which tag it draws."""
    return f"{job} · {tag}" if mapped or tag != chart else job


def tag_key(tag: str) -> str:
    """What a tag is a value of, for :func:`suggest_tag_map`: the last part of its ``/`` path
    once trailing :data:`WRITER_SUFFIXES` parts are dropped (case-insensitively), lower-cased.
    ``train/loss``, ``loss/auto``, ``Loss`` and ``eval/loss`` all give ``loss``;
    ``acc/scalar`` gives ``acc``; a tag made only of such parts keeps its last one."""
    parts = [part for part in tag.strip("/").split("/") if part]
    if not parts:
        return tag
    while len(parts) > 1 and parts[-1].lower() in WRITER_SUFFIXES:
        parts.pop()
    return parts[-1].lower()


def suggest_tag_map(tags_of: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """The mapping suggested for the runs ``tags_of`` (job -> its tags). Rule: tags whose
    :func:`tag_key` agree are one quantity named differently by different writers when **no
    job has two of them** (``train/loss`` of one run, ``loss/auto`` of another); each such set
    of at least two different tags is mapped onto the chart named by the key (``loss``; a tag
    already named so keeps its chart). A key two tags of one job share (``train/loss`` and
    ``eval/loss`` in one run) is never merged. Keys in the order first seen."""
    by_key: dict[str, list[str]] = {}
    clash: set[str] = set()
    for tags in tags_of.values():
        seen: set[str] = set()
        for tag in dict.fromkeys(tags):
            key = tag_key(tag)
            if key in seen:
                clash.add(key)
            seen.add(key)
            names = by_key.setdefault(key, [])
            if tag not in names:
                names.append(tag)
    out: dict[str, str] = {}
    for key, names in by_key.items():
        if key in clash or len(names) < 2:
            continue
        out.update({name: key for name in names if name != key})
    return clean_tag_map(out)


def merged(tag_map: Mapping[str, str], suggested: Mapping[str, str]) -> dict[str, str]:
    """``tag_map`` with the ``suggested`` entries it lacks added (its own entries win)."""
    return clean_tag_map({**suggested, **tag_map})


#: What separates a tag from its chart on a line of the mapping's text box (the first found).
SEPARATORS = ("→", "->", "=")


def parse_lines(text: str | None) -> dict[str, str]:
    """The mapping typed in the text box: one ``original -> chart`` per line (``→`` or ``=``
    too; split at the last separator, so a tag may hold the others), blank and malformed lines
    skipped (:func:`clean_tag_map`)."""
    out: dict[str, str] = {}
    for line in (text or "").splitlines():
        for separator in SEPARATORS:
            if separator in line:
                tag, _sep, chart = line.rpartition(separator)
                out[tag.strip()] = chart.strip()
                break
    return clean_tag_map(out)


def format_lines(tag_map: Mapping[str, str]) -> str:
    """The text box's text of a mapping (:func:`parse_lines` reads it back)."""
    return "\n".join(f"{tag} → {chart}" for tag, chart in tag_map.items())


def describe(tag_map: Mapping[str, str]) -> list[str]:
    """A mapping as one phrase per chart: ``train/loss, loss/auto → loss``."""
    charts: dict[str, list[str]] = {}
    for tag, chart in tag_map.items():
        charts.setdefault(chart, []).append(tag)
    return [f"{', '.join(tags)} → {chart}" for chart, tags in charts.items()]
