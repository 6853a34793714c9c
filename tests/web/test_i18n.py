"""Each request in its language: page layouts follow the cookie, Accept-Language and
``--language``; REST answers do not depend on them; the command line picks its language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dash_insight import cli
from dash_insight.core import i18n
from dash_insight.core.settings import Settings, SettingsError
from dash_insight.default import create_app


@pytest.fixture(scope="module")
def apps(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The corpus served with the default language, and with ``--language zh-CN``."""
    built = {}
    for language in ("en", "zh-CN"):
        settings = Settings(
            str(corpus),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
            language=language,
        )
        app = create_app(settings, start_loader=False)
        app.data_service.loader.load_round()
        built[language] = app
    yield built
    for app in built.values():
        app.data_service.close()


def _layout(app: Any, **headers: str) -> str:
    client = app.server.test_client()
    cookie = headers.pop("cookie", None)
    if cookie:
        client.set_cookie(i18n.COOKIE_NAME, cookie)
    answer = client.get("/_dash-layout", headers=headers)
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


@pytest.mark.parametrize(
    ("language", "headers", "chinese"),
    [
        ("en", {}, False),
        ("en", {"Accept-Language": "zh-CN,zh;q=0.9"}, True),
        ("en", {"Accept-Language": "zh-Hans"}, True),
        ("en", {"Accept-Language": "fr, en;q=0.5"}, False),
        ("zh-CN", {}, True),
        ("zh-CN", {"Accept-Language": "en-US"}, False),
        ("zh-CN", {"Accept-Language": "fr"}, True),  # none we have: the server's language
        ("en", {"Accept-Language": "zh-CN", "cookie": "en"}, False),  # the switch wins
        ("zh-CN", {"cookie": "en"}, False),
        ("en", {"cookie": "zh_CN"}, True),
    ],
)
def test_page_frame_is_in_the_request_language(
    apps: Any, language: str, headers: dict[str, str], chinese: bool
) -> None:
    layout = _layout(apps[language], **headers)
    assert ("训练列表" in layout) is chinese
    assert ("Summary List" in layout) is not chinese
    assert ("自动刷新" in layout) is chinese
    assert "中文" in layout and "English" in layout  # the switch names both, always


def test_index_names_its_language(apps: Any) -> None:
    client = apps["en"].server.test_client()
    english = client.get("/").get_data(as_text=True)
    chinese = client.get("/", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    assert '<html lang="en"' in english and '<html lang="en" data-theme' not in english
    assert '<html lang="zh-CN"' in chinese


def test_a_page_callback_renders_in_the_request_language(apps: Any) -> None:
    """The page body comes from the routing callback: it follows the same request locale."""
    body = {
        "output": "..page.children...route.data..",
        "outputs": [{"id": "page", "property": "children"}, {"id": "route", "property": "data"}],
        "inputs": [
            {"id": "url", "property": "pathname", "value": "/scalars"},
            {"id": "url", "property": "search", "value": "?train_id=./lenet_sc"},
        ],
        "changedPropIds": ["url.pathname"],
        "state": [{"id": "route", "property": "data", "value": None}],
    }
    client = apps["en"].server.test_client()
    client.get("/_dash-layout")  # the app's first request sets Dash up
    answers = {}
    for header in ("en", "zh-CN"):
        answer = client.post(
            "/_dash-update-component", json=body, headers={"Accept-Language": header}
        )
        assert answer.status_code == 200
        answers[header] = answer.get_data(as_text=True)
    assert "标量" in answers["zh-CN"] and "平滑度" in answers["zh-CN"]
    assert "Smoothing" in answers["en"] and "平滑度" not in answers["en"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/mindinsight/datavisual/train-jobs",
        "/v1/mindinsight/datavisual/plugins?train_id=./lenet_sc",
        "/v1/mindinsight/datavisual/scalar/metadata?train_id=./lenet_sc&tag=no-such-tag",
        "/v1/mindinsight/lineagemgr/lineages",
    ],
)
def test_rest_answers_do_not_depend_on_the_language(apps: Any, path: str) -> None:
    answers = set()
    for language, headers in (
        ("en", {}),
        ("en", {"Accept-Language": "zh-CN"}),
        ("zh-CN", {}),
        ("zh-CN", {"Accept-Language": "en"}),
    ):
        client = apps[language].server.test_client()
        if "lineages" in path:
            answer = client.post(path, json={})
        else:
            answer = client.get(path, headers=headers)
        body = answer.get_data(as_text=True)
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in body)
        answers.add((answer.status_code, json.dumps(json.loads(body), sort_keys=True)))
    assert len(answers) == 1


@pytest.mark.parametrize(
    ("value", "stored"),
    [("zh-CN", "zh-CN"), ("zh", "zh-CN"), ("zh_CN", "zh-CN"), ("en", "en"), ("en-US", "en")],
)
def test_language_setting(value: str, stored: str, tmp_path: Path) -> None:
    assert Settings(str(tmp_path), language=value).language == stored
    environ = {"DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path), "DASH_INSIGHT_LANGUAGE": value}
    settings = Settings.from_env(environ)
    assert settings.language == stored
    assert settings.source("language") == "environment (DASH_INSIGHT_LANGUAGE)"
    assert "--language" in settings.to_args()


def test_language_setting_refuses_other_languages(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="language must be one of zh-CN, en, not 'fr'"):
        Settings(str(tmp_path), language="fr")


@pytest.mark.parametrize(
    ("argv", "environ", "locale"),
    [
        (["start", "--language", "zh-CN"], {}, i18n.CHINESE),
        (["start", "--language=zh"], {"LANG": "en_US.UTF-8"}, i18n.CHINESE),
        (["start", "--language", "en"], {"LANG": "zh_CN.UTF-8"}, i18n.ENGLISH),
        (["status"], {"LANG": "zh_CN.UTF-8"}, i18n.CHINESE),
        (["status"], {"DASH_INSIGHT_LANGUAGE": "zh-CN", "LANG": "C"}, i18n.CHINESE),
        (["status"], {"LANG": "de_DE.UTF-8"}, i18n.ENGLISH),
        (["status"], {}, i18n.ENGLISH),
    ],
)
def test_command_line_language(argv: list[str], environ: dict[str, str], locale: str) -> None:
    assert cli.cli_locale(argv, environ) == locale


def test_command_line_help_in_chinese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.delenv("DASH_INSIGHT_LANGUAGE", raising=False)
    with pytest.raises(SystemExit):
        cli.main(["start", "--help"])
    out = capsys.readouterr().out
    assert "在后台启动 dash-insight" in out and "监听端口（默认 8080）" in out
    with pytest.raises(SystemExit):
        cli.main(["stop", "--help", "--language", "en"])
    assert "its port (default 8080)" in capsys.readouterr().out
    assert i18n.current_locale() == i18n.ENGLISH  # main() leaves the process as it was
