"""The assets' small files served as a few content-named bundles
(dash_insight/web/asset_bundles.py; issue 37 item 2): the runs, the rewriting of Dash's parts,
a changed file's new name, the answers (a year, immutable), a prefix, Dash's hot reload, and in
the browser a page that asks for its assets' scripts as bundles and draws."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dash_insight.core.settings import DEMO_DIR, Settings
from dash_insight.default import create_app
from dash_insight.web import asset_bundles, page_bundles
from dash_insight.web.application import assets_folder
from dash_insight.web.asset_bundles import AssetBundles, runs
from tests.browser import until
from tests.conftest import console_errors, loaded_app

ASSETS = Path(assets_folder())


def _bundles(folder: Path, prefix: str = "/assets/") -> AssetBundles:
    return AssetBundles(
        str(folder), lambda url: not page_bundles.wanted(url, frozenset()), prefix.__add__
    )


def _dash_part(folder: Path, kind: str, prefix: str = "/assets/") -> str:
    """The part Dash writes for ``folder``'s files of ``kind`` (its order, its ``?m=``)."""
    names = sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix == "." + kind)
    if kind == "css":
        return "\n".join(f'<link rel="stylesheet" href="{prefix}{n}?m=1.5">' for n in names)
    return "\n".join(f'<script src="{prefix}{n}?m=1.5"></script>' for n in names)


def test_runs_are_cut_at_the_files_left_alone() -> None:
    alone = {"plotly-a.js", "plotly-b.js"}.__contains__
    files = ["a.js", "b.js", "plotly-a.js", "plotly-b.js", "p.js", "z.js"]
    assert runs(files, alone) == [("a.js", "b.js"), ("p.js", "z.js")]
    assert runs(["plotly-a.js"], alone) == []


def test_a_page_links_its_assets_as_bundles_joined_in_dashs_order() -> None:
    bundles = _bundles(ASSETS)
    scripts = bundles.rewrite(_dash_part(ASSETS, "js"), "js")
    linked = re.findall(r'src="/assets/([^"?]+)', scripts)
    assert len(linked) == 5, scripts  # the files before plotly.js, its builds, those after
    assert linked[1:4] == [
        "plotly-cartesian.min.js",
        "plotly-dash-insight.min.js",
        "plotly-gl3d.min.js",
    ]
    assert linked[4].startswith("di-bundle-")
    first = bundles.by_name[linked[0]]
    assert first.files[0] == sorted(p.name for p in ASSETS.glob("*.js"))[0]
    assert first.body.startswith((ASSETS / first.files[0]).read_bytes().rstrip(b"\n"))
    for name in first.files:
        assert (ASSETS / name).read_bytes().rstrip(b"\n") in first.body
    css = re.findall(r'href="/assets/([^"?]+)', bundles.rewrite(_dash_part(ASSETS, "css"), "css"))
    assert len(css) == 1 and bundles.by_name[css[0]].files == tuple(
        sorted(p.name for p in ASSETS.glob("*.css"))
    )
    # plotly.js builds are linked by their content's fingerprint, not their modification time
    assert "?m=1.5" not in scripts
    # a page without plotly.js: the two bundles, one after the other
    no_plotly = "\n".join(
        line for line in _dash_part(ASSETS, "js").split("\n") if ".min.js" not in line
    )
    assert len(re.findall("di-bundle-", bundles.rewrite(no_plotly, "js"))) == 2


def test_a_run_not_known_is_left_as_dash_writes_it() -> None:
    part = _dash_part(ASSETS, "js").split("\n")
    del part[1]  # a run a bundle does not hold exactly
    rewritten = _bundles(ASSETS).rewrite("\n".join(part), "js").split("\n")
    assert rewritten[0].startswith('<script src="/assets/') and "di-bundle" not in rewritten[0]
    assert "di-bundle-" in rewritten[-1]  # the run after plotly.js is still whole


def test_a_changed_file_gets_a_new_name(tmp_path: Path) -> None:
    for name in ("a.js", "b.js", "plotly-cartesian.min.js", "s.css"):
        (tmp_path / name).write_text(f"/* {name} */\n", encoding="utf-8")
    before = _bundles(tmp_path)
    (tmp_path / "b.js").write_text("/* b.js, changed */\n", encoding="utf-8")
    (tmp_path / "plotly-cartesian.min.js").write_text("/* another build */\n", encoding="utf-8")
    after = _bundles(tmp_path)
    scripts = [name for name in after.by_name if name.endswith(".js")]
    assert len(scripts) == 1 and scripts[0] not in before.by_name
    assert {b.kind for b in after.by_name.values()} == {"js", "css"}
    url = "/assets/plotly-cartesian.min.js"
    assert before.fingerprinted[url] != after.fingerprinted[url]
    # the stylesheet, unchanged, keeps its name
    css = [name for name in after.by_name if name.endswith(".css")]
    assert css == [name for name in before.by_name if name.endswith(".css")]


@pytest.fixture(scope="module")
def prefixed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The demo behind a proxy that strips /user/a/ (the app's routes are at /di/)."""
    app = create_app(
        Settings(
            summary_base_dir=DEMO_DIR,
            workspace=str(tmp_path_factory.mktemp("ws")),
            url_base_pathname="/di/",
        ),
        start_loader=False,
        requests_pathname_prefix="/user/a/di/",
    )
    yield app
    app.data_service.close()


def test_bundles_are_linked_below_the_prefix_and_kept_a_year(prefixed: Any) -> None:
    client = prefixed.server.test_client()
    page = client.get("/di/").get_data(as_text=True)
    linked = re.findall(r'"/user/a/di/assets/(di-bundle-[0-9a-f]+\.(?:js|css))"', page)
    assert {name.rsplit(".", 1)[1] for name in linked} == {"js", "css"}
    for name in linked:
        answer = client.get(f"/di/assets/{name}")
        assert answer.status_code == 200
        assert answer.data == prefixed.asset_bundles.by_name[name].body
        assert answer.cache_control.immutable and answer.cache_control.public
        assert answer.cache_control.max_age == asset_bundles.MAX_AGE_SECONDS
        assert answer.mimetype == asset_bundles.MEDIA_TYPES[name.rsplit(".", 1)[1]]
        assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
        again = client.get(f"/di/assets/{name}", headers={"If-None-Match": f'"{name}"'})
        assert again.status_code == 304
    assert client.get("/di/assets/di-bundle-0000000000000000.js").status_code == 404
    assert client.get("/di/assets/shell.js").status_code == 200  # the files are served too


def test_hot_reload_keeps_dashs_own_elements(tmp_path: Path) -> None:
    app = create_app(
        Settings(summary_base_dir=DEMO_DIR, workspace=str(tmp_path / "ws")), start_loader=False
    )
    try:
        app.enable_dev_tools(
            debug=True, dev_tools_hot_reload=True, dev_tools_hot_reload_watch_interval=3600
        )
        page = app.server.test_client().get("/").get_data(as_text=True)
        assert "di-bundle-" not in page and re.search(r'/assets/shell\.js\?m=[0-9.]+"', page)
    finally:
        app.data_service.close()


def test_a_folder_without_bundles_links_its_files(tmp_path: Path) -> None:
    shutil.copy(ASSETS / "shell.js", tmp_path / "shell.js")
    bundles = _bundles(tmp_path)
    assert bundles.rewrite('<script src="/elsewhere/x.js?m=1"></script>', "js") == (
        '<script src="/elsewhere/x.js?m=1"></script>'
    )


@pytest.mark.browser
def test_a_page_asks_for_its_assets_scripts_as_bundles_and_draws(
    dash_duo: Any, profiler_corpus: Path, tmp_path: Path
) -> None:
    with loaded_app(profiler_corpus, tmp_path / "ws") as app:
        dash_duo.start_server(app)
        # The operator page: its Plotly chart's build stays a file of its own.
        page = "/profiler/operator?train_id=./lenet_summary_prof"
        dash_duo.wait_for_page(dash_duo.server_url + page)
        dash_duo.wait_for_element("#prof-op-chart .main-svg", timeout=30)
        asked = dash_duo.driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".map(e => new URL(e.name).pathname).filter(p => p.startsWith('/assets/'));"
        )
        scripts = [path for path in asked if path.endswith(".js")]
        assert len(scripts) == 3, asked  # two bundles and plotly.js's cartesian build
        assert sum(path.startswith("/assets/di-bundle-") for path in scripts) == 2, asked
        assert (
            [path for path in asked if path.endswith(".css")]
            == [path for path in asked if re.fullmatch(r"/assets/di-bundle-[0-9a-f]+\.css", path)]
            != []
        )
        until(lambda: dash_duo.driver.execute_script("return !!window.dash_clientside"), 30)
        assert console_errors(dash_duo) == []
