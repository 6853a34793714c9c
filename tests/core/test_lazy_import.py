"""Deferred heavy imports from several request threads at once (the lineage page's first
requests after a start imported pandas in two threads: one got the partly initialised package)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import sys, threading
    from dash_insight.core.lazy_import import import_module

    errors = []
    start = threading.Barrier(8)

    def first_request():
        start.wait()
        try:
            pd = import_module("pandas")
            pd.DataFrame({"a": [1.0, 2.0]})["a"].rank()
            import_module("plotly.subplots").make_subplots(rows=1, cols=2)
        except Exception as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=first_request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(errors)
""")


def test_eight_threads_importing_pandas_at_once_all_get_it_whole() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.strip() == "[]"
