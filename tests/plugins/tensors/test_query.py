"""Tensor queries: values, statistics, slices and histograms, on the corpus and on tensors of
ten million values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.provider import DataProvider, TensorTooLarge
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.plugins.tensors.query_tensor import DimsError
from tests.conftest import loaded_service


def test_corpus_tensors(corpus_provider: DataProvider) -> None:
    tensor = TensorQueries(corpus_provider).tensor("./ops_all", "tensor/bool_mask", 1)
    assert tensor.array.dtype == bool and tensor.data_type == "DT_BOOL"
    stats = TensorQueries(corpus_provider).statistics("./ops_all", "tensor/big_1m_f32", 100)
    assert stats["count"] == 1_000_000
    sliced = TensorQueries(corpus_provider).slice("./ops_all", "tensor/rank4_i32", 1, "[1,2,:,:]")
    assert sliced.shape == (4, 5) and sliced.dtype == np.int32
    with pytest.raises(DimsError):
        TensorQueries(corpus_provider).slice("./ops_all", "tensor/big_1m_f32", 100, "[:,:]")
    assert len(TensorQueries(corpus_provider).histograms("./ops_all", "tensor/rank2_f32").rows) == 6


def test_large_tensors(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    rng = np.random.default_rng(0)
    with SummaryWriter(base / "big", host="t") as writer:
        writer.add_tensor(
            "ten_million",
            rng.standard_normal(10_000_000, dtype=np.float32).reshape(1000, 10_000),
            step=1,
        )
        writer.add_tensor("too_big", np.zeros((3000, 4000), np.float32), step=1)
    service = loaded_service(base, tmp_path / "ws")
    try:
        provider = service.provider
        stats = TensorQueries(provider).statistics("./big", "ten_million", 1)
        assert stats["count"] == 10_000_000
        sliced = TensorQueries(provider).slice("./big", "ten_million", 1, "[0:10,0:1000]")
        assert sliced.shape == (10, 1000)  # the time it takes: bench/hard_inputs.py
        with pytest.raises(TensorTooLarge, match="12,000,000 values"):
            TensorQueries(provider).tensor("./big", "too_big", 1)
    finally:
        service.close()
