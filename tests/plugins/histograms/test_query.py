"""Histogram queries over the corpus: every step, downsampled steps, MindInsight's rebinning."""

from __future__ import annotations

from dash_insight.core.provider import DataProvider
from dash_insight.plugins.histograms.query import histograms as read_histograms


def test_corpus_histograms(corpus_provider: DataProvider) -> None:
    histograms = read_histograms(corpus_provider, "./ops_all", "hist/normal_1d")
    assert len(histograms) == 51
    assert {len(h.buckets) for h in histograms} == {30}
    assert len(read_histograms(corpus_provider, "./ops_all", "hist/normal_1d", max_steps=10)) == 10
    raw = read_histograms(corpus_provider, "./ops_all", "hist/normal_1d", rebin=False)
    assert raw[0].buckets.shape == (90, 3)
