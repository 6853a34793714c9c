"""The images plugin's REST answers (image/metadata, image/single-image) against MindInsight
2.3.1's (fixtures and helpers: tests/rest_fixtures.py).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.rest_fixtures import (
    ORACLE_JOBS,
    PREFIX,
    assert_same,
    get,
)


def image_bodies(client: FlaskClient, train_id: str, tag: str, steps: list[int]) -> dict[str, Any]:
    """mi_dump.py's ``bodies``: sha256/size/content type per step (and -1)."""
    bodies = {}
    for step in [*steps, -1]:
        response = client.get(
            f"{PREFIX}/image/single-image",
            query_string={"train_id": train_id, "tag": tag, "step": step},
        )
        assert response.status_code == 200, response.get_json()
        bodies[str(step)] = {
            "sha256": hashlib.sha256(response.data).hexdigest(),
            "size": len(response.data),
            "content_type": response.content_type,
        }
    return bodies


@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_images_match_oracle(
    oracle: dict[str, Any], client: FlaskClient, mi_client: FlaskClient, train_id: str
) -> None:
    for tag, answer in oracle["jobs"][train_id]["images"].items():
        params = {"train_id": train_id, "tag": tag}
        expected_meta = answer["metadata"]["metadatas"]
        steps = [m["step"] for m in expected_meta]
        assert_same(answer["metadata"], get(mi_client, "/image/metadata", **params))
        assert_same(answer["bodies"], image_bodies(mi_client, train_id, tag, steps))
        # Every step kept: MindInsight's 10-image reservoir kept a subset of ours.
        ours = get(client, "/image/metadata", **params)["metadatas"]
        by_step = {m["step"]: m for m in ours}
        assert set(steps) <= set(by_step) and ours[-1]["step"] == steps[-1]
        assert_same(expected_meta, [by_step[s] for s in steps])
        assert_same(answer["bodies"], image_bodies(client, train_id, tag, steps))
