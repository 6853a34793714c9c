"""Bulk export: the corpus round-trips through export into what the REST API answers."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import numpy as np
import pytest

from dash_insight import cli
from dash_insight.core.export import (
    ExportError,
    NpzWriter,
    export_summaries,
    find_jobs,
    parse_plugins,
    summary_bytes,
    tag_file_name,
)
from dash_insight.core.format.inspect import inspect_path
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

API = "/v1/mindinsight/datavisual"


@pytest.fixture(scope="module")
def rest(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    """GET a REST answer of create_app over the corpus (JSON, or bytes for images)."""
    app = create_app(
        Settings(
            summary_base_dir=str(corpus),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    client = app.server.test_client()

    def get(path: str, **params: Any) -> Any:
        answer = client.get(f"{API}/{path}?{urlencode(params, doseq=True)}", buffered=True)
        assert answer.status_code == 200, answer.data[:300]
        return answer.get_json() if answer.is_json else answer.data

    get.provider = app.data_service.provider  # type: ignore[attr-defined]
    yield get
    app.data_service.close()
    app.access_log.close()


@pytest.fixture(scope="module")
def exported(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The corpus exported once per scalar format."""
    out = {}
    for fmt in ("csv", "json", "parquet"):
        folder = tmp_path_factory.mktemp(f"export_{fmt}")
        report = export_summaries(str(corpus), str(folder), fmt=fmt)
        assert not report.files and report.jobs_seen == 9
        out[fmt] = folder
    return out


def _jobs(rest) -> list[dict[str, Any]]:
    return [
        job for job in rest("train-jobs", offset=0, limit=999)["train_jobs"] if job["summary_files"]
    ]


def _raw(tag: str, plugin: str) -> str:
    return tag[: -len(f"/{plugin}")]


def _job_folder(root: Path, train_id: str) -> Path:
    return root / train_id[2:] if train_id != "./" else root


def _rows_by_tag(rows: list[tuple[int, float, str, Any]]) -> dict[str, list]:
    by_tag: dict[str, list] = {}
    for step, wall, tag, value in rows:
        by_tag.setdefault(tag, []).append((step, wall, value))
    return by_tag


def _csv_rows(path: Path) -> list[tuple[int, float, str, float | None]]:
    with path.open(newline="") as handle:
        reader = csv.reader(handle)
        assert next(reader) == ["step", "wall_time", "tag", "value"]
        rows = []
        for step, wall, tag, value in reader:
            number = float(value)
            rows.append((int(step), float(wall), tag, number if math.isfinite(number) else None))
    return rows


def _json_rows(path: Path) -> list[tuple[int, float, str, float | None]]:
    return [(r["step"], r["wall_time"], r["tag"], r["value"]) for r in json.loads(path.read_text())]


def _parquet_rows(path: Path) -> list[tuple[int, float, str, float | None]]:
    import pyarrow.parquet as pq

    table = pq.read_table(path).to_pydict()
    assert pq.read_schema(path).field("value").type == "float"  # float32, as written
    return [
        (s, w, t, v if math.isfinite(v) else None)
        for s, w, t, v in zip(
            table["step"], table["wall_time"], table["tag"], table["value"], strict=True
        )
    ]


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_scalars_equal_the_rest_answers(rest, exported, fmt: str) -> None:
    read = {"csv": _csv_rows, "json": _json_rows, "parquet": _parquet_rows}[fmt]
    checked = 0
    for job in _jobs(rest):
        tags = job["plugins"]["scalar"]
        path = _job_folder(exported[fmt], job["train_id"]) / f"scalars.{fmt}"
        by_tag = _rows_by_tag(read(path))
        assert list(by_tag) == [_raw(t, "scalar") for t in tags]  # by name, as REST lists them
        for tag in tags:
            answer = rest("scalar/metadata", train_id=job["train_id"], tag=tag)["metadatas"]
            assert [(p["step"], p["wall_time"], p["value"]) for p in answer] == by_tag[
                _raw(tag, "scalar")
            ]
            checked += len(answer)
    assert checked == 5766


def test_images_equal_single_image_bytes(rest, exported) -> None:
    checked = 0
    for job in _jobs(rest):
        folder = _job_folder(exported["csv"], job["train_id"]) / "images"
        expected = set()
        for tag in job["plugins"]["image"]:
            raw = _raw(tag, "image")
            for meta in rest("image/metadata", train_id=job["train_id"], tag=tag)["metadatas"]:
                name = f"{tag_file_name(raw)}_{meta['step']}.png"
                expected.add(name)
                answer = rest(
                    "image/single-image", train_id=job["train_id"], tag=tag, step=meta["step"]
                )
                assert (folder / name).read_bytes() == answer
                checked += 1
        present = {p.name for p in folder.iterdir()} if folder.exists() else set()
        assert present == expected
    assert checked == 210


def _rest_tensor(rest, train_id: str, tag: str, step: int, dims: list[int]) -> np.ndarray:
    """The whole tensor from ``detail=data`` answers: the REST API slices at most 2
    dimensions and 100,000 values, so one request per index of the leading ones."""
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    whole = np.zeros(dims, dtype=np.float64)
    fixed = max(0, len(dims) - 2)
    while math.prod(dims[fixed:]) > 100_000:
        fixed += 1
    for lead in np.ndindex(*dims[:fixed]):
        selector = "[" + ",".join([*map(str, lead), *[":"] * (len(dims) - fixed)]) + "]"
        answer = rest(
            "tensors", train_id=train_id, tag=tag, detail="data", step=step, dims=selector
        )
        data = np.asarray(answer["tensors"][0]["values"][0]["value"]["data"], dtype=object)
        whole[lead] = np.vectorize(
            lambda v: special.get(v, v) if isinstance(v, str) else v, otypes=[np.float64]
        )(data)
    return whole


def test_tensors_equal_the_rest_tensors(rest, exported) -> None:
    checked = 0
    for job in _jobs(rest):
        for tag in job["plugins"]["tensor"]:
            raw = _raw(tag, "tensor")
            steps = rest("tensors", train_id=job["train_id"], tag=tag)["tensors"][0]["values"]
            npz = np.load(
                _job_folder(exported["csv"], job["train_id"])
                / "tensors"
                / f"{tag_file_name(raw)}.npz"
            )
            assert npz["step"].tolist() == [s["step"] for s in steps]
            assert npz["wall_time"].tolist() == [s["wall_time"] for s in steps]
            for entry in steps:
                array = npz[f"tensor_{entry['step']}"]
                assert list(array.shape) == entry["value"]["dims"]
                assert entry["value"]["data_type"] == f"DT_{array.dtype.name.upper()}"
                from_rest = _rest_tensor(
                    rest, job["train_id"], tag, entry["step"], entry["value"]["dims"]
                )
                assert np.array_equal(array.astype(np.float64), from_rest, equal_nan=True)
                checked += 1
    assert checked == 71


def test_histograms_equal_what_the_rest_api_reads(rest, exported) -> None:
    provider = rest.provider
    checked = 0
    for job in _jobs(rest):
        for tag in job["plugins"]["histogram"]:
            raw = _raw(tag, "histogram")
            answer = rest("histograms", train_id=job["train_id"], tag=tag)["histograms"]
            npz = np.load(
                _job_folder(exported["csv"], job["train_id"])
                / "histograms"
                / f"{tag_file_name(raw)}.npz"
            )
            assert npz["step"].tolist() == [h["step"] for h in answer]
            assert npz["wall_time"].tolist() == [h["wall_time"] for h in answer]
            offsets = npz["bucket_offsets"]
            assert len(offsets) == len(answer) + 1 and offsets[-1] == len(npz["buckets"])
            for position, step in enumerate(npz["step"].tolist()):
                value = provider.read_value(job["train_id"], "histogram", raw, step)
                buckets = npz["buckets"][offsets[position] : offsets[position + 1]]
                assert np.array_equal(buckets, value.buckets)
                assert npz["count"][position] == value.count
                assert npz["max"][position] == value.max and npz["min"][position] == value.min
                checked += 1
    assert checked == 1380


def test_progress_counts_every_summary_byte(corpus: Path, tmp_path: Path) -> None:
    seen: list[int] = []
    jobs = find_jobs(str(corpus))
    report = export_summaries(
        str(corpus), str(tmp_path), plugins=["scalar"], jobs=jobs, progress=seen.append
    )
    assert sum(seen) == summary_bytes(jobs) == report.bytes_read > 10_000_000
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == sorted(f"{job.train_id[2:]}/scalars.csv" for job in jobs)
    assert report.counts["images"] == 0 and report.counts["scalar points"] == 5766


def test_damaged_records_are_reported_as_inspect_reports_them(corpus: Path, tmp_path: Path) -> None:
    job = tmp_path / "base" / "run"
    shutil.copytree(corpus / "multi_file", job)
    victim = sorted(job.glob("*summary*"))[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside a record's payload: that record is dropped
    victim.write_bytes(bytes(data))
    report = export_summaries(str(tmp_path / "base"), str(tmp_path / "out"))
    assert report.damaged
    assert report.files == [f for f in inspect_path(job)["files"] if f["status"] != "ok"]
    assert "payload CRC mismatch" in report.files[0]["errors"][0]["reason"]
    assert (tmp_path / "out" / "run" / "scalars.csv").exists()  # the rest is exported

    code = cli.main(["export", str(tmp_path / "base"), "--to", str(tmp_path / "out2")])
    assert code == 1


def test_cli_export_and_its_mindinsight_alias(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        cli.main(
            [
                "export",
                str(corpus / "multi_file"),
                "--to",
                str(tmp_path / "a"),
                "--plugins",
                "scalar,image",
                "--format",
                "json",
            ]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert "exported 1 of 1 job(s)" in said and "600 scalar points, 5 images" in said
    assert "MB/s" in said
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["images", "scalars.json"]

    assert (
        cli.main(
            [
                "parse_summary",
                "--summary-dir",
                str(corpus / "multi_file"),
                "--output",
                str(tmp_path / "b"),
                "--plugins",
                "scalar,image",
                "--format",
                "json",
            ]
        )
        == 0
    )
    (made,) = (tmp_path / "b").iterdir()
    assert made.name.startswith("output_")
    for name in ("scalars.json", "images/sample_300.png"):
        assert (made / name).read_bytes() == (tmp_path / "a" / name).read_bytes()

    # A folder that is not empty is not overwritten by accident.
    assert cli.main(["export", str(corpus / "multi_file"), "--to", str(tmp_path / "a")]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert (
        cli.main(
            [
                "export",
                str(corpus / "multi_file"),
                "--to",
                str(tmp_path / "a"),
                "--overwrite",
                "--plugins",
                "histogram",
            ]
        )
        == 0
    )
    assert cli.main(["export", str(tmp_path / "missing"), "--to", str(tmp_path / "c")]) == 2
    assert "summary directory not found" in capsys.readouterr().err


def test_parquet_without_pyarrow_says_how_to_get_it(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code = cli.main(
        ["export", str(corpus / "multi_file"), "--to", str(tmp_path / "p"), "--format", "parquet"]
    )
    error = capsys.readouterr().err
    assert code == 2 and len(error.strip().splitlines()) == 1
    assert "needs pyarrow, which is not installed: pip install 'dash-insight[parquet]'" in error
    assert not (tmp_path / "p").exists()
    with pytest.raises(ExportError, match="needs pyarrow"):
        export_summaries(str(corpus), str(tmp_path / "q"), fmt="parquet")
    # Images alone need no pyarrow.
    report = export_summaries(
        str(corpus / "multi_file"), str(tmp_path / "r"), fmt="parquet", plugins=["image"]
    )
    assert report.counts["images"] == 5


def test_plugins_and_tag_names() -> None:
    assert parse_plugins("image, scalar,image") == ("image", "scalar")
    for bad in ("audio", "", "scalar,graph"):
        with pytest.raises(ExportError, match="--plugins takes"):
            parse_plugins(bad)
    assert tag_file_name("input_data/auto") == "input_data%2Fauto"
    assert tag_file_name("..") == "%2E%2E" and tag_file_name("") == "%00"
    assert quote("a b/c", safe="") == tag_file_name("a b/c")


def test_npz_written_array_by_array_reads_like_savez(tmp_path: Path) -> None:
    writer = NpzWriter(str(tmp_path / "x" / "t.npz"))
    arrays = {
        "step": np.arange(3),
        "tensor_1": np.ones((2, 3), np.float16),
        "flags": np.array([True, False]),
    }
    for name, array in arrays.items():
        writer.add(name, array)
    writer.close()
    loaded = np.load(tmp_path / "x" / "t.npz")
    assert sorted(loaded.files) == sorted(arrays)
    for name, array in arrays.items():
        assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_shows_a_progress_bar_with_the_rate(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(["export", str(corpus / "multi_file"), "--to", str(tmp_path / "o")]) == 0
    final = terminal.getvalue().split("\r")[-1]
    assert final.startswith("export: 100%") and "42.4k/42.4k" in final and "B/s]" in final
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert (
        cli.main(["export", str(corpus / "multi_file"), "--to", str(tmp_path / "q"), "--quiet"])
        == 0
    )
    assert quiet.getvalue() == ""


def test_csv_rows_of_tags_with_line_breaks_commas_and_quotes_read_back(tmp_path: Path) -> None:
    from dash_insight import SummaryWriter

    tags = ["two\nlines", "carriage\rreturn", "a,b", 'say "hi"', "plain"]
    with SummaryWriter(str(tmp_path / "base" / "run")) as writer:
        for step in (1, 2):
            for number, tag in enumerate(tags):
                writer.add_scalar(tag, float(number + step), step)
            writer.record(step)
    assert cli.main(["export", str(tmp_path / "base"), "--to", str(tmp_path / "out")]) == 0
    rows = _csv_rows(tmp_path / "out" / "run" / "scalars.csv")
    assert sorted((tag, step, value) for step, _, tag, value in rows) == sorted(
        (tag, step, float(number + step)) for number, tag in enumerate(tags) for step in (1, 2)
    )
