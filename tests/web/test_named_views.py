"""Named views (issue 40 item 8): saved in the workspace, listed and opened from the top bar,
listed / saved / deleted over REST."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dash
import pytest
from dash import no_update

from dash_insight.core.i18n import use_locale
from dash_insight.core.named_views import (
    MAX_NAME_CHARS,
    MAX_URL_CHARS,
    MAX_VIEWS,
    NamedViews,
    ViewError,
)
from dash_insight.web import named_views
from dash_insight.web.url_state import encode_tags
from tests.browser import until, wait_idle
from tests.conftest import console_errors, loaded_app

API = "/v1/dash-insight/views"


def test_save_and_delete_as_functions(tmp_path: Path) -> None:
    """The menu's callback: a click saves the page's URL under the name, a view's × deletes it,
    a button drawn (no click) changes nothing, and a bad name gets the menu's message."""
    views, app = NamedViews(tmp_path / "ws", "/data/a"), dash.Dash(__name__)
    save = functools.partial(named_views.save_or_delete, views, app)
    message, stamp = save("views-save", True, 1, None, [], "loss", "/scalars", "?train_id=./a")
    assert message == "Saved as loss." and isinstance(stamp, float)
    assert [(v.name, v.url) for v in views.saved()] == [("loss", "/scalars?train_id=./a")]
    assert save("views-save", False, None, None, [], "x", "/", "") == (no_update, no_update)
    message, stamp = save("views-save", True, 2, None, [], "", "/", "")
    assert message.startswith("A view needs a name of 1 to") and stamp is no_update
    deleted = {"type": named_views.DELETE_TYPE, "name": "loss"}
    assert save(deleted, True, None, None, [1], None, "/", "")[0] == "View deleted."
    assert views.saved() == []
    message, _stamp = save(deleted, True, None, None, [1], None, "/", "")
    assert message == "That view was deleted already."


def test_views_are_saved_in_the_workspace_per_base_directory(tmp_path: Path) -> None:
    views = NamedViews(tmp_path / "ws", "/data/a")
    assert views.saved() == []
    views.save("  loss, smoothed ", "/scalars?train_id=./a&smoothing=0.6")
    views.save("all", "/compare")
    views.save("all", "/compare?jobs=%5B%5D")  # the same name: replaced, kept last
    again = NamedViews(tmp_path / "ws", "/data/a")  # a new process over the same workspace
    assert [(v.name, v.url) for v in again.saved()] == [
        ("loss, smoothed", "/scalars?train_id=./a&smoothing=0.6"),
        ("all", "/compare?jobs=%5B%5D"),
    ]
    assert NamedViews(tmp_path / "ws", "/data/b").saved() == []  # another folder's
    assert oct(os.stat(views.path).st_mode & 0o777) == "0o600"
    assert [p.name for p in views.folder.iterdir()] == [views.path.name]  # no temporary left
    again.delete("all")
    assert [v.name for v in views.saved()] == ["loss, smoothed"]
    with pytest.raises(ViewError) as missing:
        views.delete("all")
    assert missing.value.missing


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("", "/scalars"),
        ("   ", "/scalars"),
        ("x" * (MAX_NAME_CHARS + 1), "/scalars"),
        ("tab\there", "/scalars"),
        (3, "/scalars"),
        ("ok", "https://elsewhere.example/x"),
        ("ok", "//elsewhere.example/x"),
        ("ok", "scalars"),
        ("ok", "/x\\y"),
        ("ok", "/" + "a" * MAX_URL_CHARS),
        ("ok", "/line\nbreak"),
        ("ok", None),
    ],
)
def test_bad_names_and_urls_are_refused(tmp_path: Path, name: Any, url: Any) -> None:
    views = NamedViews(tmp_path, "/data")
    with pytest.raises(ViewError):
        views.save(name, url)
    assert views.saved() == [] and not views.path.exists()


def test_at_most_max_views_and_a_broken_file_reads_as_none(tmp_path: Path) -> None:
    views = NamedViews(tmp_path, "/data")
    views.path.parent.mkdir(parents=True)
    views.path.write_text(
        json.dumps({"views": [{"name": f"v{i}", "url": "/", "saved": 0} for i in range(MAX_VIEWS)]})
    )
    with pytest.raises(ViewError):
        views.save("one more", "/")
    views.save("v3", "/compare")  # replacing one is fine
    assert len(views.saved()) == MAX_VIEWS
    views.path.write_text("{not json")
    assert views.saved() == []
    views.path.write_text(json.dumps({"views": [{"name": "\x00", "url": "/"}, {"name": "a"}]}))
    assert views.saved() == []


def test_the_menu_callbacks_as_plain_functions(tmp_path: Path) -> None:
    class App:
        def strip_relative_path(self, path: str) -> str:
            return path.removeprefix("/insight").strip("/")

        def get_relative_path(self, path: str) -> str:
            return "/insight" + path

    app: Any = App()
    assert named_views.page_url(app, "/insight/scalars", "?train_id=./a") == (
        "/scalars?train_id=./a"
    )
    assert named_views.page_url(app, None, 3) == "/"
    assert named_views.app_href(app, "/scalars?train_id=./a") == "/insight/scalars?train_id=./a"
    views = NamedViews(tmp_path, "/data")
    rows = named_views.view_rows(views, app, None, None)
    assert "No saved view yet." in str(rows)
    with use_locale("zh_CN"):
        assert "还没有保存的视图" in str(named_views.view_rows(views, app, None, None))
        assert "名称" in named_views.view_problem(ViewError("x"))


@pytest.fixture
def client(tmp_path: Path) -> Any:
    (tmp_path / "logs").mkdir()
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        yield app.server.test_client()


def test_rest_lists_saves_and_deletes_views(client: Any) -> None:
    assert client.get(API).get_json() == {"views": []}
    saved = client.post(API, json={"name": "mine", "url": "/scalars?train_id=./a"})
    assert saved.status_code == 200 and saved.get_json()["view"]["name"] == "mine"
    assert [v["url"] for v in client.get(API).get_json()["views"]] == ["/scalars?train_id=./a"]
    for body in (
        {"name": "", "url": "/"},
        {"name": "x", "url": "http://evil.example/"},
        {"name": "x" * 500, "url": "/"},
        {"url": "/"},
        ["name", "url"],
    ):
        answer = client.post(API, json=body)
        assert answer.status_code == 400, body
        assert answer.get_json()["error_code"] == "50540002"
    assert client.post(API, data="{", content_type="application/json").status_code == 400
    assert client.delete(f"{API}?name=nothing").status_code == 404
    assert client.delete(API).status_code == 400
    assert client.delete(f"{API}?name=mine").status_code == 200
    assert client.get(API).get_json() == {"views": []}
    assert client.put(API, json={}).status_code == 405


def _write_job(base: Path) -> None:
    from dash_insight import SummaryWriter

    with SummaryWriter(base / "run", host="test") as writer:
        for step in range(1, 4):
            writer.add_value("scalar", "loss", float(step))
            writer.record(step)


def _save_view(dash_duo, name: str) -> None:
    dash_duo.find_element("#views-menu summary").click()
    field = until(lambda: dash_duo.find_element("#views-name"))
    field.send_keys(name)
    dash_duo.find_element("#views-save").click()


def _open_view(dash_duo, name: str) -> None:
    """Open the menu (from any page) and follow the view's link."""
    dash_duo.find_element("#views-menu summary").click()
    link = until(
        lambda: next(
            (a for a in dash_duo.find_elements("#views-list .di-view-link") if a.text == name),
            None,
        )
    )
    link.click()


def test_a_saved_view_reopens_the_same_url_also_after_a_restart(dash_duo, tmp_path: Path) -> None:
    _write_job(tmp_path / "logs")
    path = "/scalars?train_id=./run&smoothing=0.5&axis=relative&tags=" + quote(
        encode_tags(["loss"])
    )
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.driver.add_cookie({"name": "di_language", "value": "zh_CN"})
        dash_duo.wait_for_page(dash_duo.server_url + path)
        wait_idle(dash_duo)
        saved_url = dash_duo.driver.current_url
        assert "smoothing=0.5" in saved_url
        summary = dash_duo.find_element("#views-menu summary").text
        assert summary == "视图"
        _save_view(dash_duo, "relative loss")
        done = "已保存为 relative loss。"
        until(lambda: dash_duo.find_element("#views-message").text == done)
        until(lambda: len(dash_duo.find_elements("#views-list .di-view-link")) == 1)
        wait_idle(dash_duo)
        dash_duo.wait_for_page(dash_duo.server_url + "/compare")
        _open_view(dash_duo, "relative loss")
        until(
            lambda: dash_duo.driver.current_url == saved_url,
            msg=f"{dash_duo.driver.current_url} is not {saved_url}",
        )
        until(lambda: dash_duo.find_elements(".di-chart-card .di-chart-title"))
        # The link to copy is the page's whole URL.
        dash_duo.find_element("#views-menu summary").click()
        copy = until(lambda: dash_duo.find_elements("#views-list .di-view-copy"))
        assert copy and console_errors(dash_duo) == []
        dash_duo.stop_server()
    # A new server over the same workspace lists the view and opens the same URL.
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/")
        _open_view(dash_duo, "relative loss")
        expected = saved_url.replace(saved_url.split("/scalars")[0], dash_duo.server_url)
        until(lambda: dash_duo.driver.current_url == expected)
        until(lambda: dash_duo.find_elements(".di-chart-card .di-chart-title"))
        assert console_errors(dash_duo) == []
