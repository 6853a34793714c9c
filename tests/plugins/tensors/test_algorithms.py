"""Tensor dims strings, slicing, statistics, histograms and JSON (spec §3.5, §4.2, §4.3, §5)."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format.events import TensorValue, decode_event
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.histogram_bins import unify
from dash_insight.plugins.tensors.query_tensor import (
    MAX_RESPONSE_VALUES,
    DimsError,
    ResponseTooLargeError,
    default_dims,
    encode_for_json,
    parse_dims,
    slice_tensor,
    statistics,
    tensor_histogram,
    tensor_original_histogram,
)

GOLDEN = np.array([1, 2, 3, 4, 5, -np.inf, np.inf, np.nan], dtype=np.float32)
ORACLE_NAME = "mindinsight-2.3.1-corpus.json.gz"


def mindinsight_statistics(array: np.ndarray) -> dict[str, float]:
    """MindInsight's own algorithm (masked arrays on the float64 values it reads)."""
    values = np.asarray(array, dtype=np.float64)
    masked = np.ma.masked_invalid(values)
    valid = int(masked.count())
    if not valid:
        return {"max": 0.0, "min": 0.0, "avg": 0.0}
    return {
        "max": float(masked.max(fill_value=-np.inf)),
        "min": float(masked.min(fill_value=np.inf)),
        "avg": float(masked.sum(dtype=np.float64) / valid),
        "neg_zero_count": int(np.sum(masked < 0)),
        "pos_zero_count": int(np.sum(masked > 0)),
        "zero_count": int(np.sum(masked == 0)),
    }


# --- parse_dims -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "shape", "expected"),
    [
        ("[0,0,:-1,:]", (2, 3, 4, 5), (0, 0, slice(None, -1), slice(None))),
        ("[0, :]", (3, 4), (0, slice(None))),
        ("  [ 1 , 2:5 ]  ", (3, 9), (1, slice(2, 5))),
        ("[:, -1]", (3, 4), (slice(None), -1)),
        ("[-3, ::2]", (3, 9), (-3, slice(None, None, 2))),
        ("[+1, 5:1:-1]", (2, 9), (1, slice(5, 1, -1))),
        ("[ : , : ]", (2, 2), (slice(None), slice(None))),
        ("[2:100]", (5,), (slice(2, 100),)),
        ("[:]", (5,), (slice(None),)),
        ("[]", (), ()),
        ("[ ]", (), ()),
        ("[0,0,0]", (1, 1, 1), (0, 0, 0)),
    ],
)
def test_parse_dims_valid(spec: str, shape: tuple[int, ...], expected: tuple) -> None:
    assert parse_dims(spec, shape) == expected


@pytest.mark.parametrize(
    ("spec", "shape", "fragments"),
    [
        # MindInsight's own cases (§5).
        ("[0,:]", (2, 3, 4, 5), ["2 item(s)", "4 dimension(s)", "[2, 3, 4, 5]"]),
        ("[0,:,:,:]", (2, 3, 4, 5), ["3 dimensions are sliced", "at most 2"]),
        # Not a list.
        ("", (3,), ["empty"]),
        ("   ", (3,), ["empty"]),
        ("0,:", (3, 4), ["start with '['", "end with ']'"]),
        ("[0,:", (3, 4), ["start with '['"]),
        ("0,:]", (3, 4), ["start with '['"]),
        ("(0,:)", (3, 4), ["start with '['"]),
        ("[", (3,), ["start with '['"]),
        # Wrong item count.
        ("[]", (3, 4), ["0 item(s)", "2 dimension(s)"]),
        ("[0]", (), ["1 item(s)", "0 dimension(s)"]),
        ("[0,0,:]", (3, 4), ["3 item(s)", "2 dimension(s)"]),
        # Non-integers and malformed items.
        ("[a,:]", (3, 4), ["'a' is not an integer"]),
        ("[1.5,:]", (3, 4), ["'1.5' is not an integer"]),
        ("[1_0,:]", (30, 4), ["'1_0' is not an integer"]),
        ("[0:x,0]", (3, 4), ["slice bound", "'x' is not an integer"]),
        ("[[0],:]", (3, 4), ["'[0]' is not an integer"]),
        ("[0,,:]", (3, 4, 5), ["item 2 is empty"]),
        ("[0,]", (3, 4), ["item 2 is empty"]),
        ("[0,1:2:3:4]", (3, 9), ["more than two ':'"]),
        ("[0,::0]", (3, 4), ["step 0"]),
        # Index out of range.
        ("[3,:]", (3, 4), ["index 3 is out of range for dimension 1 of size 3", "-3..2"]),
        ("[-4,:]", (3, 4), ["index -4 is out of range"]),
        ("[:,4]", (3, 4), ["dimension 2 of size 4"]),
        ("[0,:]", (0, 4), ["dimension 1 of size 0", "empty"]),
    ],
)
def test_parse_dims_invalid(spec: str, shape: tuple[int, ...], fragments: list[str]) -> None:
    with pytest.raises(DimsError) as info:
        parse_dims(spec, shape)
    message = str(info.value)
    assert message.startswith("Invalid dims")
    for fragment in fragments:
        assert fragment in message, message


def test_parse_dims_not_a_string() -> None:
    with pytest.raises(DimsError, match="expected a string"):
        parse_dims(None, (3,))  # type: ignore[arg-type]


def test_dims_error_is_value_error() -> None:
    assert issubclass(DimsError, ValueError)
    assert issubclass(ResponseTooLargeError, DimsError)


# --- default_dims ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ((), "[]"),
        ((5,), "[:]"),
        ((1000,), "[:]"),
        ((1001,), "[0:1000]"),
        ((3, 4), "[:,:]"),
        ((20, 30), "[:,:]"),
        ((2, 3, 4, 5), "[0,0,:,:]"),
        ((4, 8, 16), "[0,:,:]"),
        ((2, 3, 4, 2000), "[0,0,:,0:1000]"),
        ((1000, 1000), "[:,:]"),  # MindInsight's default, over the answer limit
    ],
)
def test_default_dims(shape: tuple[int, ...], expected: str) -> None:
    assert default_dims(shape) == expected
    parse_dims(expected, shape)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ((1000, 1000), "[0:100,:]"),
        ((5, 2000), "[:,0:1000]"),
        ((3, 500, 5000), "[0,0:100,0:1000]"),
        ((10, 200_000), "[:,0:1000]"),
        ((500, 200_000), "[0:100,0:1000]"),
        ((20, 30), "[:,:]"),
    ],
)
def test_default_dims_within_answer_limit(shape: tuple[int, ...], expected: str) -> None:
    spec = default_dims(shape, max_values=MAX_RESPONSE_VALUES)
    assert spec == expected
    assert slice_tensor(np.zeros(shape, dtype=np.int8), spec).size <= MAX_RESPONSE_VALUES


# --- slice_tensor ---------------------------------------------------------------------------------


def test_slice_tensor_values_and_copy() -> None:
    array = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
    out = slice_tensor(array, "[0,0,:-1,:]")
    np.testing.assert_array_equal(out, array[0, 0, :-1, :])
    assert out.dtype == np.int32
    out[0, 0] = -1
    assert array[0, 0, 0, 0] == 0


def test_slice_tensor_all_indices_gives_0d() -> None:
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = slice_tensor(array, "[1,-1]")
    assert isinstance(out, np.ndarray) and out.shape == () and out == 5


def test_slice_tensor_rank0() -> None:
    out = slice_tensor(np.array(2.5), "[]")
    assert out.shape == () and out == 2.5


def test_slice_tensor_limit_message() -> None:
    array = np.zeros((1000, 1000), dtype=np.float32)
    with pytest.raises(ResponseTooLargeError) as info:
        slice_tensor(array, "[:,:]")
    message = str(info.value)
    assert "1,000,000" in message and "100,000" in message
    assert isinstance(info.value, DimsError)
    assert slice_tensor(array, "[0:100,:]").shape == (100, 1000)


def test_slice_tensor_custom_limit() -> None:
    array = np.zeros((10, 10))
    assert slice_tensor(array, "[0:2,:]", max_values=20).shape == (2, 10)
    with pytest.raises(ResponseTooLargeError, match=r"21 values.*20"):
        slice_tensor(array, "[0:3,0:7]", max_values=20)


def test_slice_tensor_propagates_dims_errors() -> None:
    with pytest.raises(DimsError, match="3 dimensions are sliced"):
        slice_tensor(np.zeros((2, 3, 4, 5)), "[0,:,:,:]")


# --- statistics -----------------------------------------------------------------------------------


def test_statistics_golden() -> None:
    stats = statistics(GOLDEN)
    assert (stats["max"], stats["min"], stats["avg"]) == (5.0, 1.0, 3.0)
    assert stats["count"] == 8
    assert (stats["nan_count"], stats["pos_inf_count"], stats["neg_inf_count"]) == (1, 1, 1)
    assert (stats["neg_zero_count"], stats["pos_zero_count"], stats["zero_count"]) == (0, 5, 0)
    assert stats["is_bool"] is False and "true_count" not in stats


def test_statistics_types() -> None:
    stats = statistics(np.array([[1, -2], [0, 4]], dtype=np.int64))
    for key in ("max", "min", "avg"):
        assert type(stats[key]) is float
    for key in (
        "count",
        "nan_count",
        "pos_inf_count",
        "neg_inf_count",
        "neg_zero_count",
        "pos_zero_count",
        "zero_count",
    ):
        assert type(stats[key]) is int
    assert (stats["max"], stats["min"], stats["avg"]) == (4.0, -2.0, 0.75)
    assert (stats["neg_zero_count"], stats["pos_zero_count"], stats["zero_count"]) == (1, 2, 1)


def test_statistics_float16_with_nan_avoids_numpy_15077() -> None:
    array = np.array([1.5, -2.0, np.nan, 65504.0, -np.inf], dtype=np.float16)
    stats = statistics(array)
    assert stats["max"] == 65504.0 and stats["min"] == -2.0
    assert stats["avg"] == pytest.approx((1.5 - 2.0 + 65504.0) / 3)
    assert (stats["nan_count"], stats["neg_inf_count"], stats["pos_inf_count"]) == (1, 1, 0)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_statistics_unsigned(dtype: type) -> None:
    stats = statistics(np.array([0, 3, 255], dtype=dtype))
    assert (stats["min"], stats["max"], stats["avg"]) == (0.0, 255.0, 86.0)
    assert (stats["neg_zero_count"], stats["pos_zero_count"], stats["zero_count"]) == (0, 2, 1)


def test_statistics_bool() -> None:
    stats = statistics(np.array([[True, False, True], [True, True, False]]))
    assert stats["is_bool"] is True
    assert (stats["true_count"], stats["false_count"], stats["count"]) == (4, 2, 6)
    assert (stats["max"], stats["min"]) == (1.0, 0.0)
    assert stats["avg"] == pytest.approx(4 / 6)


@pytest.mark.parametrize(
    "array",
    [
        np.array([np.nan, np.nan], dtype=np.float32),
        np.array([np.inf, -np.inf, np.nan]),
        np.zeros((0, 3), dtype=np.float32),
        np.zeros(0, dtype=np.int32),
    ],
)
def test_statistics_no_valid_value(array: np.ndarray) -> None:
    stats = statistics(array)
    assert (stats["max"], stats["min"], stats["avg"]) == (0.0, 0.0, 0.0)
    assert (stats["neg_zero_count"], stats["pos_zero_count"], stats["zero_count"]) == (0, 0, 0)
    assert stats["count"] == array.size
    assert stats["nan_count"] + stats["pos_inf_count"] + stats["neg_inf_count"] == array.size


def test_statistics_infinities_not_counted_as_signs() -> None:
    stats = statistics(np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.inf]))
    assert (stats["neg_zero_count"], stats["pos_zero_count"], stats["zero_count"]) == (1, 1, 2)
    assert (stats["neg_inf_count"], stats["pos_inf_count"]) == (1, 2)


def test_statistics_rank0_and_complex() -> None:
    assert statistics(np.array(7, dtype=np.int16))["avg"] == 7.0
    with pytest.raises(TypeError, match="complex64"):
        statistics(np.array([1 + 2j], dtype=np.complex64))


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8]
)
@pytest.mark.parametrize("with_invalid", [False, True])
def test_statistics_match_mindinsight_algorithm(dtype: type, with_invalid: bool) -> None:
    rng = np.random.default_rng(7)
    array = (rng.standard_normal((37, 53)) * 50).astype(dtype)
    if with_invalid and np.dtype(dtype).kind == "f":
        array.flat[[3, 99, 500]] = [np.nan, np.inf, -np.inf]
    ours, theirs = statistics(array), mindinsight_statistics(array)
    for key, value in theirs.items():
        assert ours[key] == value, key  # bit-identical, avg included


def test_statistics_of_ten_million_float32() -> None:
    """10M values with 10 NaNs (the speed: ``bench/hard_inputs.py``)."""
    array = np.random.default_rng(0).standard_normal(10_000_000, dtype=np.float32)
    array[::1_000_003] = np.nan
    stats = statistics(array.reshape(1000, 10_000))
    assert stats["count"] == 10_000_000 and stats["nan_count"] == 10


# --- histograms -----------------------------------------------------------------------------------


def test_tensor_histogram_golden() -> None:
    np.testing.assert_array_equal(tensor_histogram(GOLDEN), [[1, 2, 2], [3, 2, 3]])


def test_tensor_histogram_constant_widens() -> None:
    out = tensor_histogram(np.full((2, 2), 3.0, dtype=np.float32))
    np.testing.assert_array_equal(out, [[2.5, 0.5, 0], [3.0, 0.5, 4]])


def test_tensor_histogram_no_valid_value() -> None:
    assert tensor_histogram(np.array([np.nan, np.inf])).shape == (0, 3)


def test_tensor_histogram_uses_display_rule_and_float64_edges() -> None:
    values = np.random.default_rng(1).standard_normal(600).astype(np.float16)
    out = tensor_histogram(values)
    assert out.shape == (30, 3)  # display_bins(600), not the writer's 61
    assert out[:, 2].sum() == 600
    expected_edges = np.linspace(float(values.min()), float(values.max()), 31)
    np.testing.assert_array_equal(out[:, 0], expected_edges[:-1])
    np.testing.assert_array_equal(out, tensor_histogram(values.astype(np.float64)))


@pytest.mark.parametrize(
    "array",
    [np.arange(120, dtype=np.int32).reshape(2, 3, 4, 5), np.array([True, False, True, True])],
)
def test_tensor_histogram_int_and_bool(array: np.ndarray) -> None:
    out = tensor_histogram(array)
    assert out[:, 2].sum() == array.size
    assert out[0, 0] == 0 and out[-1, 0] + out[-1, 1] == pytest.approx(float(array.max()))


def test_tensor_histogram_reuses_given_statistics() -> None:
    stats = statistics(GOLDEN)
    np.testing.assert_array_equal(tensor_histogram(GOLDEN, stats), tensor_histogram(GOLDEN))


def test_tensor_steps_unify() -> None:
    steps = [GOLDEN, np.array([10, 11], dtype=np.float32), np.array([np.nan], dtype=np.float32)]
    out = unify([tensor_original_histogram(step) for step in steps])
    assert len({step[:, :2].tobytes() for step in out}) == 1
    assert out[0][0, 0] == 1 and out[0][-1, 0] + out[0][-1, 1] == pytest.approx(11)
    np.testing.assert_array_equal(out[2][:, 2], 0)


# --- JSON -----------------------------------------------------------------------------------------


def test_encode_golden() -> None:
    encoded = encode_for_json(GOLDEN)
    assert encoded == [1.0, 2.0, 3.0, 4.0, 5.0, "-INF", "INF", "NAN"]
    json.dumps(encoded, allow_nan=False)


def test_encode_nested_without_invalid_values_is_plain() -> None:
    array = np.array([[0.5, -1.0], [2.0, 0.1]], dtype=np.float32)
    encoded = encode_for_json(array)
    assert encoded == [[0.5, -1.0], [2.0, float(np.float32(0.1))]]
    assert all(type(x) is float for row in encoded for x in row)


def test_encode_nested_with_invalid_values() -> None:
    array = np.array([[np.nan, 1.0], [-np.inf, np.inf]], dtype=np.float16)
    assert encode_for_json(array) == [["NAN", 1.0], ["-INF", "INF"]]


def test_encode_bool_and_int_keep_their_type() -> None:
    bools = encode_for_json(np.array([[True, False]]))
    ints = encode_for_json(np.array([1, -2, 3], dtype=np.int64))
    unsigned = encode_for_json(np.array([255], dtype=np.uint8))
    assert bools == [[True, False]] and type(bools[0][0]) is bool
    assert ints == [1, -2, 3] and all(type(x) is int for x in ints)
    assert unsigned == [255] and type(unsigned[0]) is int


def test_encode_0d() -> None:
    assert encode_for_json(np.array(np.nan)) == "NAN"
    assert encode_for_json(np.array(1.5, dtype=np.float32)) == 1.5


# --- corpus ---------------------------------------------------------------------------------------


def read_tensors(paths: list[Path]) -> dict[str, list[tuple[float, int, TensorValue]]]:
    """tag -> [(wall_time, step, tensor)] in file order."""
    out: dict[str, list[tuple[float, int, TensorValue]]] = defaultdict(list)
    for path in paths:
        for record in RecordReader(path).read():
            event = decode_event(record.payload)
            for value in event.values:
                if isinstance(value.value, TensorValue):
                    out[value.tag].append((event.wall_time, event.step, value.value))
    return out


@pytest.fixture(scope="module")
def ops_all_tensors(corpus: Path) -> dict[str, list[tuple[float, int, TensorValue]]]:
    return read_tensors(sorted((corpus / "ops_all").glob("*_MS")))


def test_corpus_statistics_of_every_tensor(ops_all_tensors: dict) -> None:
    assert len(ops_all_tensors) == 7
    for tag, entries in ops_all_tensors.items():
        for _, step, tensor in entries:
            array = tensor.array
            stats = statistics(array)
            invalid = stats["nan_count"] + stats["pos_inf_count"] + stats["neg_inf_count"]
            signs = stats["neg_zero_count"] + stats["pos_zero_count"] + stats["zero_count"]
            assert stats["count"] == array.size and signs + invalid == array.size, (tag, step)
            assert stats["min"] <= stats["avg"] <= stats["max"], (tag, step)
            assert stats["is_bool"] == (tensor.data_type == "DT_BOOL")
            assert tensor_histogram(array, stats)[:, 2].sum() == array.size - invalid
            spec = default_dims(array.shape, max_values=MAX_RESPONSE_VALUES)
            json.dumps(encode_for_json(slice_tensor(array, spec)), allow_nan=False)


def test_matches_mindinsight_oracle_exactly(corpus: Path) -> None:
    """Statistics, unified histograms and data slices equal MindInsight 2.3.1's answers."""
    oracle_path = corpus.parent / "oracle" / ORACLE_NAME
    if not oracle_path.is_file():
        pytest.skip(f"oracle not found at {oracle_path}")
    with gzip.open(oracle_path) as handle:
        oracle = json.load(handle)
    compared = 0
    for job, answers in oracle["jobs"].items():
        tensors = read_tensors(sorted((corpus / job).glob("*_MS")))
        for tag, answer in answers.get("tensors", {}).items():
            pool = tensors[tag.removesuffix("/tensor")]
            served = answer["histogram"]["tensors"][0]["values"]
            arrays = [
                next(
                    t.array
                    for wall, step, t in pool
                    if step == s["step"] and abs(wall - s["wall_time"]) < 1e-6
                )
                for s in served
            ]
            unified = unify([tensor_original_histogram(array) for array in arrays])
            for entry, array, buckets in zip(served, arrays, unified, strict=True):
                value = entry["value"]
                expected = np.array(value["histogram_buckets"], dtype=np.float64).reshape(-1, 3)
                np.testing.assert_array_equal(buckets, expected, err_msg=f"{job} {tag}")
                ours = statistics(array)
                for key in (
                    "max",
                    "min",
                    "avg",
                    "count",
                    "nan_count",
                    "neg_inf_count",
                    "pos_inf_count",
                ):
                    assert ours[key] == value["statistics"][key], (job, tag, key)
                for key in ("zero_count", "neg_zero_count", "pos_zero_count"):
                    assert ours[key] == value["statistics"][f"overall_{key}"], (job, tag, key)
                compared += 1
            query = answer.get("data")
            if not query:
                continue
            array = next(t.array for _, step, t in reversed(pool) if step == query["step"])
            response = query["response"]
            if "__body" in response:
                assert response["__body"]["error_code"] == "50545013"
                with pytest.raises(ResponseTooLargeError):
                    slice_tensor(array, query["dims"])
                continue
            data = slice_tensor(array, query["dims"])
            # MindInsight sends every value as a float; we keep ints and bools.
            as_mindinsight = data.astype(np.float64) if data.dtype.kind in "biu" else data
            assert (
                encode_for_json(as_mindinsight)
                == response["tensors"][0]["values"][0]["value"]["data"]
            ), (job, tag)
    assert compared > 50
