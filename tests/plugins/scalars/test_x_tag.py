"""Any scalar as the x axis (issue 17 item 10): the x tag's values at a line's steps."""

from __future__ import annotations

import numpy as np

from dash_insight.plugins.scalars.query_x_tag import unplaced, values_at_steps


def test_x_tag_values_at_the_same_steps() -> None:
    x_step = np.array([0, 10, 20, 30])
    x_value = np.array([0.0, 1.0, np.nan, 3.0], dtype=np.float32)
    got = values_at_steps(np.array([10, 15, 20, 30, 40, 0]), x_step, x_value)
    assert got[[0, 3, 5]].tolist() == [1.0, 3.0, 0.0]
    assert np.isnan(got[[1, 2, 4]]).all()  # no step 15 or 40; a NaN x cannot be placed
    assert unplaced(np.array([10, 15, 20, 30, 40, 0]), x_step, x_value) == 3
    assert np.isnan(values_at_steps(np.array([1, 2]), x_step[:0], x_value[:0])).all()
