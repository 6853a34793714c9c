"""The WSGI entry point: settings from the environment; workers share one index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader

WORKER = """
import json
from dash_insight.wsgi import application
client = application.test_client()
jobs = client.get("/v1/mindinsight/datavisual/train-jobs?limit=999").get_json()
loss = client.get("/v1/mindinsight/datavisual/scalar/metadata"
                  "?train_id=./multi_file&tag=loss/scalar").get_json()
print(json.dumps({"total": jobs["total"], "points": len(loss["metadatas"])}))
"""


def test_a_worker_answers_while_another_is_the_loader(corpus: Path, tmp_path: Path) -> None:
    workspace = str(tmp_path / "ws")
    store = IndexStore(index_directory(workspace, str(corpus)))
    Loader(str(corpus), store, reload_interval=0).load_round()
    env = {
        **os.environ,
        "DASH_INSIGHT_SUMMARY_BASE_DIR": str(corpus),
        "DASH_INSIGHT_WORKSPACE": workspace,
        "DASH_INSIGHT_RELOAD_INTERVAL": "3",
    }
    with store.loader_lock() as owner:  # this process plays the worker that loads
        assert owner
        worker = subprocess.run(
            [sys.executable, "-c", WORKER], env=env, capture_output=True, text=True, timeout=120
        )
    assert worker.returncode == 0, worker.stderr
    assert json.loads(worker.stdout.strip().splitlines()[-1]) == {"total": 9, "points": 300}


def test_missing_base_dir_setting_is_explained() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DASH_INSIGHT_SUMMARY_BASE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", "import dash_insight.wsgi"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "DASH_INSIGHT_SUMMARY_BASE_DIR" in done.stderr


def test_bad_environment_values_are_explained(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path),
        "DASH_INSIGHT_MAX_DEPTH": "x",
        "DASH_INSIGHT_WORKSPACE": str(tmp_path / "ws"),
    }
    done = subprocess.run(
        [sys.executable, "-c", "import dash_insight.wsgi"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "DASH_INSIGHT_MAX_DEPTH: max depth must be an integer >= 0, not 'x'" in done.stderr
