"""A warm start answers its first requests without the modules it defers (issue #18 item 4).

The server process imports Dash without its notebook support
(:mod:`dash_insight.web.lean_import`), and plotly.express, plotly's subplots and the summary
writer only where a request needs them. pandas (half a second) is imported beside the first
answers (:mod:`dash_insight.web.warm_up`), before any page code runs. Checked in a fresh
interpreter: importing the server module, building the app on a workspace whose index is
complete, and answering the job list and the summary-list page leave them all out of
``sys.modules``; the page's layout then has pandas, and still not the others."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from dash_insight.core.settings import DEMO_DIR
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader

#: Imported on first use only; a warm start must not need them.
DEFERRED = (
    "plotly.express",
    "plotly.subplots",
    "IPython",
    "requests",
    "dash_insight.core.format.writer",
    # logs on object storage: only a URL base directory needs it
    "fsspec",
)

CHILD = textwrap.dedent("""
    import json, sys
    import dash_insight.server  # what `dash-insight start` runs
    from dash_insight.core.settings import Settings
    from dash_insight.default import create_app

    settings = Settings(summary_base_dir=sys.argv[1], workspace=sys.argv[2])
    app = create_app(settings, start_loader=False, warm_up_pages=False)
    client = app.server.test_client()
    jobs = client.get("/v1/mindinsight/datavisual/train-jobs")
    page = client.get("/")
    first = sorted(name for name in sys.argv[3:] + ["pandas"] if name in sys.modules)
    layout = client.get("/_dash-layout")
    answer = {"jobs": jobs.status_code, "total": jobs.get_json()["total"],
              "page": page.status_code, "layout": layout.status_code, "first": first,
              "loaded": sorted(name for name in sys.argv[3:] + ["pandas"]
                               if name in sys.modules)}
    print(json.dumps(answer))
""")


def test_warm_start_answers_without_the_deferred_modules(tmp_path: os.PathLike[str]) -> None:
    workspace = os.path.join(tmp_path, "workspace")
    base = os.path.realpath(DEMO_DIR)
    store = IndexStore(index_directory(workspace, base))
    try:
        Loader(base, store, reload_interval=0).load_round()
        expected_jobs = len(store.job_list())
    finally:
        store.close()
    assert expected_jobs > 0
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, base, workspace, *DEFERRED],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    answer = json.loads(completed.stdout.strip().splitlines()[-1])
    assert answer == {
        "jobs": 200,
        "total": expected_jobs,
        "page": 200,
        "layout": 200,
        "first": [],
        "loaded": ["pandas"],
    }


def test_the_deferred_modules_are_there_when_needed() -> None:
    """The package's lazy names still give the writer and the app (the test above would also
    pass if they were simply gone)."""
    code = (
        "import sys, dash_insight; assert 'dash_insight.core.format.writer' not in "
        "sys.modules; w = dash_insight.SummaryWriter; from dash_insight import create_app; "
        "print(w.__module__, create_app.__module__)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.split() == [
        "dash_insight.core.format.writer",
        "dash_insight.default",
    ]
