"""Notebooks (issue #20): ``%load_ext dash_insight``, ``%dash_insight`` and
``dash_insight.notebook.show`` run in a real IPython kernel through nbclient; headless Chromium
opens the output cells' frames from another origin, as Jupyter shows them, and behind a
prefix-stripping proxy, as JupyterHub's jupyter-server-proxy serves them."""

from __future__ import annotations

import html
import http.client
import http.server
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from dash_insight.core.settings import DEMO_DIR, Settings
from dash_insight.notebook import (
    NotebookServer,
    ServerRegistry,
    dash_insight_magic,
    load_ipython_extension,
    page_url,
    proxy_path,
)

HUB_PREFIX = "/user/alice/"


# --- the parts that need no kernel ---------------------------------------------------------------


def test_proxy_path() -> None:
    assert proxy_path(8050, {}) is None
    assert (
        proxy_path(8050, {"JUPYTERHUB_SERVICE_PREFIX": "/user/alice/"}) == "/user/alice/proxy/8050/"
    )
    assert (
        proxy_path(8050, {"JUPYTERHUB_SERVICE_PREFIX": "/user/alice"}) == "/user/alice/proxy/8050/"
    )
    custom = {
        "DASH_INSIGHT_NOTEBOOK_PROXY": "lab/ports/{port}",
        "JUPYTERHUB_SERVICE_PREFIX": "/user/alice/",
    }
    assert proxy_path(8050, custom) == "/lab/ports/8050/"


def test_page_url() -> None:
    base = "http://127.0.0.1:8050/"
    assert page_url(base) == base
    assert page_url(base, "dashboard", "./run1") == base + "dashboard?train_id=.%2Frun1"
    url = page_url(base, "/scalars/", "./run1", ["loss", "a,b"])
    query = parse_qs(urlsplit(url).query)
    assert url.startswith(base + "scalars?") and query["train_id"] == ["./run1"]
    from dash_insight.web.url_state import decode_tags

    assert decode_tags(query["tags"][0]) == ["loss", "a,b"]
    with pytest.raises(ValueError, match="unknown page 'nope': use one of 'scalars'"):
        page_url(base, "nope")


def test_registry_finds_the_innermost_base_directory(tmp_path: Path) -> None:
    registry = ServerRegistry()
    outer, inner = tmp_path / "runs", tmp_path / "runs" / "group"
    (inner / "job").mkdir(parents=True)
    for base in (outer, inner):
        settings = Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"))
        registry._servers[settings.base_dir] = NotebookServer(settings, None, base.name)
    assert registry.find(str(inner / "job")).url == "group"
    assert registry.find(str(inner)).url == "group"
    assert registry.find(str(outer / ".")).url == "runs"
    assert registry.find(str(tmp_path / "runs2")) is None
    assert registry.find(str(tmp_path)) is None


def test_serving_needs_a_kernel(tmp_path: Path) -> None:
    settings = Settings(summary_base_dir=DEMO_DIR, workspace=str(tmp_path))
    with pytest.raises(RuntimeError, match="outside one run `dash-insight start`"):
        ServerRegistry().serve(settings)


def test_magic_reports_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    dash_insight_magic("--no-such-option")
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    dash_insight_magic("--demo --page nope")
    assert "dash-insight: unknown page 'nope'" in capsys.readouterr().out
    dash_insight_magic(f"--summary-base-dir {tmp_path / 'missing'}")
    assert "summary base directory not found" in capsys.readouterr().out
    dash_insight_magic("--help")
    assert "--summary-base-dir" in capsys.readouterr().out


def test_load_ext_registers_the_magic() -> None:
    registered: list[tuple[Any, str, str]] = []

    class Shell:
        def register_magic_function(self, func: Any, magic_kind: str, magic_name: str) -> None:
            registered.append((func, magic_kind, magic_name))

    import dash_insight

    dash_insight.load_ipython_extension(Shell())
    load_ipython_extension(Shell())
    assert registered == [(dash_insight_magic, "line", "dash_insight")] * 2


# --- a real kernel and a browser -----------------------------------------------------------------


class HubProxy(http.server.ThreadingHTTPServer):
    """The notebook's origin: serves the notebook's outputs at ``/`` and, like JupyterHub's
    jupyter-server-proxy, forwards ``<HUB_PREFIX>proxy/<port>/<path>`` to
    ``127.0.0.1:<port>/<path>`` (prefix stripped, the browser's Host kept)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.page = ""


class ProxyHandler(http.server.BaseHTTPRequestHandler):
    server: HubProxy
    PROXIED = re.compile(re.escape(HUB_PREFIX) + r"proxy/(\d+)(/.*)")

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _forward(self) -> None:
        match = self.PROXIED.fullmatch(self.path)
        if match is None:
            body = self.server.page.encode()
            self.send_response(200 if self.path == "/" else 404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=60)
        headers = {
            k: v
            for k, v in self.headers.items()
            if k.lower() not in ("connection", "keep-alive", "transfer-encoding")
        }
        upstream.request(self.command, match.group(2), body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    do_GET = do_POST = do_PUT = _forward


@pytest.fixture
def hub_proxy() -> Iterator[HubProxy]:
    proxy = HubProxy()
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    yield proxy
    proxy.shutdown()
    proxy.server_close()


def _iframe_src(output_html: str) -> str:
    match = re.search(r'<iframe[^>]*\ssrc="([^"]*)"', output_html)
    assert match, output_html
    return html.unescape(match.group(1))


def _outputs(cell: Any) -> tuple[str, list[str]]:
    """A cell's printed text and its HTML outputs."""
    text = "".join(o.get("text", "") for o in cell.outputs if o["output_type"] == "stream")
    htmls = [
        o["data"]["text/html"]
        for o in cell.outputs
        if o["output_type"] in ("display_data", "execute_result")
        and "text/html" in o.get("data", {})
    ]
    errors = [o for o in cell.outputs if o["output_type"] == "error"]
    assert not errors, errors
    return text, htmls


def _frame_state(dash_br: Any, index: int) -> dict[str, Any]:
    """The text of frame ``index`` of the host page and its loaded stylesheets."""
    driver = dash_br.driver
    driver.switch_to.default_content()
    try:
        driver.switch_to.frame(index)
        return driver.execute_script(
            "return {text: document.body ? document.body.innerText : '', "
            "sheets: [...document.querySelectorAll('link[rel=stylesheet]')]"
            ".filter(l => l.sheet !== null).map(l => l.href)}"
        )
    finally:
        driver.switch_to.default_content()


def _wait_for_frame(dash_br: Any, index: int, text: str, stylesheet: str) -> None:
    """Until frame ``index`` shows ``text`` with ``stylesheet`` loaded (90 s at most)."""
    from dash.testing.errors import TestingTimeoutError
    from dash.testing.wait import until

    seen: dict[str, Any] = {}

    def shown() -> bool:
        seen.update(_frame_state(dash_br, index))
        return text in seen["text"] and any(stylesheet in href for href in seen["sheets"])

    try:
        until(shown, 90)
    except TestingTimeoutError:
        raise AssertionError(
            f"frame {index} never showed {text!r} styled by {stylesheet}: {seen}"
        ) from None


@pytest.mark.notebook
@pytest.mark.browser
@pytest.mark.slow
def test_notebook_shows_the_app(tmp_path: Path, dash_br: Any, hub_proxy: HubProxy) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    hub_base = tmp_path / "hub_runs"
    shutil.copytree(Path(DEMO_DIR) / "lenet_sc", hub_base / "lenet_sc")
    workspace = tmp_path / "ws"
    cells = [
        "%load_ext dash_insight",
        f"%dash_insight --demo --workspace {workspace} --height 600",
        f"%dash_insight --demo --workspace {workspace}",  # the same server again
        "import dash_insight.notebook\n"
        "print([server.url for server in dash_insight.notebook.servers()])",
        f"dash_insight.notebook.show({str(Path(DEMO_DIR) / 'lenet_sc')!r}, page='scalars', "
        "tags=['loss/auto'])",
        # A taken port: one line says so, nothing is registered.
        "taken = dash_insight.notebook.servers()[0].settings.port\n"
        f"get_ipython().run_line_magic('dash_insight', f'--summary-base-dir {hub_base} "
        "--port {taken}')\n"
        "print(len(dash_insight.notebook.servers()))",
        f"%env JUPYTERHUB_SERVICE_PREFIX={HUB_PREFIX}",
        f"%dash_insight --summary-base-dir {hub_base} --workspace {workspace}",
        "%dash_insight --demo --page dashboard --train-id ./multi_file --mode external",
    ]
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    client = nbclient.NotebookClient(
        book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    with client.setup_kernel():
        for index, cell in enumerate(book.cells):
            client.execute_cell(cell, index)
        outputs = [_outputs(cell) for cell in book.cells]

        first = _iframe_src(outputs[1][1][0])
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", first), first
        assert 'height="600"' in outputs[1][1][0]
        text, again = outputs[2]
        assert "showing the running server of" in text and _iframe_src(again[0]) == first
        assert outputs[3][0].strip() == repr([first])  # one server so far
        scalars = _iframe_src(outputs[4][1][0])
        assert scalars == page_url(first, "scalars", "./lenet_sc", ["loss/auto"])
        assert re.fullmatch(
            r"dash-insight: port \d+ is already in use on 127.0.0.1; choose "
            r"another one with --port\n1\n",
            outputs[5][0],
        ), outputs[5][0]
        assert outputs[7][1], outputs[7][0]  # what the magic printed instead of the page
        hub = _iframe_src(outputs[7][1][0])
        port = hub.split("/")[-2]
        assert hub == f"{HUB_PREFIX}proxy/{port}/"
        link = html.escape(page_url(first, "dashboard", "./multi_file"))
        assert f'<a href="{link}" target="_blank"' in outputs[8][1][0]

        # The notebook page: on another origin than the direct frames (localhost vs
        # 127.0.0.1), the origin of the proxied frame.
        hub_proxy.page = (
            "<!DOCTYPE html><html><body>"
            + "".join(outputs[i][1][0] for i in (1, 4, 7))
            + "</body></html>"
        )
        dash_br.driver.get(f"http://localhost:{hub_proxy.server_address[1]}/")
        _wait_for_frame(dash_br, 0, "multi_file", f"{first}assets/di-bundle-")
        _wait_for_frame(dash_br, 1, "1 of 2 tags", f"{first}assets/di-bundle-")
        _wait_for_frame(dash_br, 2, "lenet_sc", f"{hub}assets/di-bundle-")
