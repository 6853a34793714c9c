"""Settings: one validation for the command line, the environment and create_app."""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from dash_insight.core.settings import (
    DEFAULT_PORT,
    DEFAULT_RELOAD_INTERVAL,
    DEMO_DIR,
    MAX_LOAD_WORKERS,
    Settings,
    SettingsError,
    SuggestingParser,
    default_load_workers,
    parse_size,
    parse_url_path_prefix,
    source_table,
    unrecognized,
)


def _parse(*argv: str) -> Settings:
    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    return Settings.from_args(parser.parse_args(list(argv)))


def test_defaults_are_the_same_from_every_source(tmp_path: Path) -> None:
    from_args = _parse("--summary-base-dir", str(tmp_path))
    from_env = Settings.from_env({"DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path)})
    direct = Settings(str(tmp_path))
    for settings in (from_args, from_env, direct):
        assert settings.reload_interval == DEFAULT_RELOAD_INTERVAL
        assert settings.workspace == os.path.expanduser(os.path.join("~", "dash-insight"))
        assert settings.max_depth is None and settings.samples_per_plugin == {}
        assert settings.base_dir == os.path.realpath(tmp_path)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("MAX_DEPTH", "x", "max depth must be an integer >= 0"),
        ("RELOAD_INTERVAL", "-5", "reload interval must be a number of seconds in 0..300"),
        ("RELOAD_INTERVAL", "soon", "reload interval"),
        ("SAMPLES_PER_PLUGIN", "scalar=0", "sample count must be a positive integer"),
        ("URL_BASE_PATHNAME", "insight", "must start and end with '/'"),
        ("LOAD_WORKERS", "0", "load workers must be an integer in 1..64, not '0'"),
        ("LOAD_WORKERS", "many", "load workers must be an integer in 1..64"),
    ],
)
def test_environment_values_are_validated(
    tmp_path: Path, name: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(
            {"DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path), f"DASH_INSIGHT_{name}": value}
        )
    assert str(caught.value).startswith(f"DASH_INSIGHT_{name}: ") and message in str(caught.value)


def test_environment_needs_the_base_dir() -> None:
    with pytest.raises(SettingsError, match="DASH_INSIGHT_SUMMARY_BASE_DIR"):
        Settings.from_env({})


@pytest.mark.parametrize(
    "argv",
    [
        ("--reload-interval", "-5"),
        ("--max-depth", "x"),
        ("--port", "0"),
        ("--samples-per-plugin", "nope=3"),
        ("--load-workers", "0"),
        ("--load-workers", str(MAX_LOAD_WORKERS + 1)),
    ],
)
def test_command_line_refuses_what_the_environment_refuses(argv: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit):
        _parse(*argv)


def test_keyword_values_are_validated_too(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="reload interval"):
        Settings(str(tmp_path), reload_interval=-5)
    with pytest.raises(SettingsError, match="max depth"):
        Settings(str(tmp_path), max_depth=-1)
    with pytest.raises(SettingsError, match="url_base_pathname"):
        Settings(str(tmp_path), url_base_pathname="/insight")
    with pytest.raises(SettingsError, match="load workers"):
        Settings(str(tmp_path), load_workers=0)
    with pytest.raises(SettingsError, match="load workers"):
        Settings(str(tmp_path), load_workers=True)


def test_load_workers_default_to_the_cores_this_process_may_use(tmp_path: Path) -> None:
    settings = Settings(str(tmp_path))
    assert settings.load_workers == default_load_workers() >= 1
    assert settings.load_workers == len(os.sched_getaffinity(0))
    assert _parse("--load-workers", "3").load_workers == 3


def test_to_args_gives_the_same_settings_back(tmp_path: Path) -> None:
    settings = _parse(
        "--summary-base-dir",
        str(tmp_path),
        "--reload-interval",
        "0.5",
        "--max-depth",
        "2",
        "--samples-per-plugin",
        "scalar=10,image=all",
        "--port",
        "8123",
        "--workspace",
        str(tmp_path / "ws"),
    )
    assert _parse(*settings.to_args()) == settings
    assert settings.samples_per_plugin == {"scalar": 10, "image": 0}


def test_demo_and_base_dir_checks(tmp_path: Path) -> None:
    assert _parse("--demo").base_dir == os.path.realpath(DEMO_DIR)
    missing = Settings(str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match="summary base directory not found"):
        missing.checked_base_dir()
    a_file = tmp_path / "events.summary.1"
    a_file.write_bytes(b"")
    with pytest.raises(SettingsError, match=r"is a file, not a directory: .*events\.summary\.1"):
        Settings(str(a_file)).checked_base_dir()
    assert Settings(str(tmp_path)).checked_base_dir() == os.path.realpath(tmp_path)
    assert Settings(str(tmp_path)).is_local
    assert not Settings(str(tmp_path), host="0.0.0.0").is_local


# -- sources: command line > environment > config file > defaults ----------------------------

#: Per setting, the value each source gives (all different) and the text that spells it.
VALUES = {
    "port": {"default": 8080, "config": 8001, "env": 8002, "cli": 8003},
    "reload_interval": {"default": 3.0, "config": 1.5, "env": 7.0, "cli": 0.0},
    "max_depth": {"default": None, "config": 1, "env": 2, "cli": 3},
    "samples_per_plugin": {
        "default": {},
        "config": {"scalar": 10},
        "env": {"image": 5},
        "cli": {"tensor": 2},
    },
    "host": {"default": "127.0.0.1", "config": "10.0.0.1", "env": "10.0.0.2", "cli": "::1"},
    "load_workers": {"default": default_load_workers(), "config": 3, "env": 4, "cli": 5},
}
SOURCES = ("default", "config", "env", "cli")


def _spell(name: str, value: object) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _toml_value(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {v}" for k, v in value.items()) + "}"
    return str(value)


def _from_sources(tmp_path: Path, name: str, sources: Iterable[str]) -> Settings:
    """Settings where each of ``sources`` gives ``name`` its own value."""
    sources = set(sources)
    argv = ["--summary-base-dir", str(tmp_path)]
    environ: dict[str, str] = {}
    if "config" in sources:
        config = tmp_path / "insight.toml"
        config.write_text(f"{name} = {_toml_value(VALUES[name]['config'])}\n")
        argv += ["--config", str(config)]
    if "env" in sources:
        environ[f"DASH_INSIGHT_{name.upper()}"] = _spell(name, VALUES[name]["env"])
    if "cli" in sources:
        argv += ["--" + name.replace("_", "-"), _spell(name, VALUES[name]["cli"])]
    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    return Settings.from_args(parser.parse_args(argv), environ=environ)


@pytest.mark.parametrize("name", sorted(VALUES))
@pytest.mark.parametrize(("weaker", "stronger"), list(itertools.combinations(SOURCES, 2)))
def test_each_source_beats_the_weaker_ones(
    tmp_path: Path, name: str, weaker: str, stronger: str
) -> None:
    given = {weaker, stronger} - {"default"}
    settings = _from_sources(tmp_path, name, given)
    assert getattr(settings, name) == VALUES[name][stronger]
    expected_source = {
        "config": f"config {tmp_path / 'insight.toml'} ({name})",
        "env": f"environment (DASH_INSIGHT_{name.upper()})",
        "cli": f"command line (--{name.replace('_', '-')})",
    }[stronger]
    assert settings.source(name) == expected_source
    # The weaker source alone still gives its own value.
    alone = _from_sources(tmp_path, name, {weaker} - {"default"})
    assert getattr(alone, name) == VALUES[name][weaker]


def test_all_four_sources_at_once(tmp_path: Path) -> None:
    config = tmp_path / "insight.toml"
    config.write_text("port = 8001\nreload_interval = 1.5\nmax_depth = 1\n")
    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    settings = Settings.from_args(
        parser.parse_args(
            ["--config", str(config), "--port", "8003", "--summary-base-dir", str(tmp_path)]
        ),
        environ={"DASH_INSIGHT_PORT": "8002", "DASH_INSIGHT_RELOAD_INTERVAL": "7"},
    )
    assert (settings.port, settings.reload_interval, settings.max_depth) == (8003, 7.0, 1)
    assert settings.source("workspace") == "default"
    assert settings.workspace == os.path.expanduser(os.path.join("~", "dash-insight"))
    described = {name: (value, source) for name, value, source in settings.describe()}
    assert described["port"] == ("8003", "command line (--port)")
    assert described["reload_interval"] == ("7", "environment (DASH_INSIGHT_RELOAD_INTERVAL)")
    assert described["max_depth"] == ("1", f"config {config} (max_depth)")
    table = source_table(settings)
    assert "command line (--port)" in table and f"config: {config}" in table


def test_the_config_file_can_come_from_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "insight.toml"
    config.write_text(f'summary_base_dir = "{tmp_path}"\nport = 8123\n')
    other = tmp_path / "other.toml"
    other.write_text("port = 8124\n")
    settings = Settings.from_env({"DASH_INSIGHT_CONFIG": str(config)})
    assert settings.port == 8123 and settings.base_dir == os.path.realpath(tmp_path)
    assert settings.config == str(config)
    # --config beats $DASH_INSIGHT_CONFIG
    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    chosen = Settings.from_args(
        parser.parse_args(["--config", str(other)]), environ={"DASH_INSIGHT_CONFIG": str(config)}
    )
    assert chosen.port == 8124


def test_to_env_gives_the_same_settings_back(tmp_path: Path) -> None:
    settings = _parse(
        "--summary-base-dir",
        str(tmp_path),
        "--port",
        "8124",
        "--max-depth",
        "2",
        "--samples-per-plugin",
        "scalar=10",
        "--url-base-pathname",
        "/insight/",
        "--access-log-max-bytes",
        "1M",
        "--workspace",
        str(tmp_path / "ws"),
    )
    exported = settings.to_env()
    assert exported["DASH_INSIGHT_PORT"] == "8124"
    assert exported["DASH_INSIGHT_WORKSPACE"] == str(tmp_path / "ws")
    assert exported["DASH_INSIGHT_ACCESS_LOG_MAX_BYTES"] == str(1 << 20)
    assert Settings.from_env(exported) == settings


# -- config file forms ---------------------------------------------------------------------------

MINDINSIGHT_PYTHON = """
import os
PORT = 8555
WORKSPACE = "ws"
SUMMARY_BASE_DIR = "logs"
RELOAD_INTERVAL = 0
URL_PATH_PREFIX = "insight/v2"
SAMPLES_PER_PLUGIN = {"scalar": 1000, "image": "all"}
ENABLE_DEBUGGER = True   # a MindInsight setting dash-insight does not have
helper = os.path.join("not", "a", "setting")
"""

TOML = """
port = 8555
workspace = "ws"
summary_base_dir = "logs"
reload_interval = 0
url_base_pathname = "/insight/v2/"
samples_per_plugin = {scalar = 1000, image = "all"}
"""


def _check_forms_agree(settings: Settings, folder: Path) -> None:
    assert settings.port == 8555 and settings.reload_interval == 0
    assert settings.url_base_pathname == "/insight/v2/"
    assert settings.samples_per_plugin == {"scalar": 1000, "image": 0}
    assert settings.workspace == str(folder / "ws")
    assert settings.summary_base_dir == str(folder / "logs")


def test_toml_config(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "insight.toml"
    path.parent.mkdir()
    path.write_text(TOML)
    settings = Settings.resolve(config=str(path), environ={})
    _check_forms_agree(settings, path.parent)  # relative paths: from the file's folder
    assert settings.source("port") == f"config {path} (port)"
    assert settings.ignored == ()


@pytest.mark.parametrize("prefix", ["file:", ""])
def test_python_file_config_with_mindinsight_names(tmp_path: Path, prefix: str) -> None:
    path = tmp_path / "conf" / "mi_config.py"
    path.parent.mkdir()
    path.write_text(MINDINSIGHT_PYTHON)
    settings = Settings.resolve(config=f"{prefix}{path}", environ={})
    _check_forms_agree(settings, path.parent)
    assert settings.source("port") == f"config {path} (PORT)"
    assert settings.source("url_base_pathname") == f"config {path} (URL_PATH_PREFIX)"
    assert settings.ignored == ("ENABLE_DEBUGGER",)
    assert "ignored (not dash-insight settings): ENABLE_DEBUGGER" in source_table(settings)


def test_python_module_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site_conf"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "insight_settings.py").write_text(MINDINSIGHT_PYTHON)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    settings = Settings.resolve(config="python:site_conf.insight_settings", environ={})
    assert settings.port == 8555 and settings.url_base_pathname == "/insight/v2/"
    # A module has no folder of its own: relative paths are from the current folder.
    assert settings.summary_base_dir == "logs" and settings.workspace == str(tmp_path / "ws")
    assert settings.source("port") == "config python:site_conf.insight_settings (PORT)"


@pytest.mark.parametrize(
    ("form", "text", "key", "message"),
    [
        ("toml", "port = 70000\n", "port", "port must be an integer in 1..65535, not '70000'"),
        ("toml", 'reload_interval = "soon"\n', "reload_interval", "reload interval must be"),
        ("toml", "samples_per_plugin = {audio = 3}\n", "samples_per_plugin", "bad --samples"),
        ("toml", "max_depth = -1\n", "max_depth", "max depth must be an integer >= 0"),
        ("toml", "load_workers = 0\n", "load_workers", "load workers must be an integer in 1..64"),
        ("toml", 'access_log_max_bytes = "lots"\n', "access_log_max_bytes", "size must be"),
        ("python", "PORT = 'eighty'\n", "PORT", "port must be an integer in 1..65535"),
        ("python", "RELOAD_INTERVAL = 301\n", "RELOAD_INTERVAL", "reload interval must be"),
        ("python", "URL_PATH_PREFIX = 'a/../b'\n", "URL_PATH_PREFIX", "url path prefix must be"),
        ("python", "WORKSPACE = 3\n", "WORKSPACE", "expected a string"),
        ("module", "PORT = 0\n", "PORT", "port must be an integer in 1..65535, not '0'"),
        ("module", "MAX_DEPTH = 'deep'\n", "MAX_DEPTH", "max depth must be an integer >= 0"),
    ],
)
def test_a_wrong_value_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str, text: str, key: str, message: str
) -> None:
    if form == "module":
        name = f"bad_conf_{abs(hash(text))}"
        (tmp_path / f"{name}.py").write_text(text)
        monkeypatch.syspath_prepend(str(tmp_path))
        spec, origin = f"python:{name}", f"python:{name}"
    else:
        path = tmp_path / ("c.toml" if form == "toml" else "c.py")
        path.write_text(text)
        spec = origin = str(path)
    with pytest.raises(SettingsError) as caught:
        Settings.resolve(config=spec, environ={})
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(f"{origin}: {key}: ") and message in line


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("c.toml", "prot = 8080\n", "unknown setting 'prot' (known: summary_base_dir, port"),
        ("c.toml", "port = \n", "not valid TOML"),
        ("c.py", "PORT = (\n", "the config file failed: SyntaxError"),
        ("c.py", "raise RuntimeError('no')\n", "the config file failed: RuntimeError: no"),
    ],
)
def test_a_broken_config_file_is_one_line_naming_it(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SettingsError) as caught:
        Settings.resolve(config=str(path), environ={})
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


def test_missing_config_and_module(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"config file not found: .*nope\.toml"):
        Settings.resolve(config=str(tmp_path / "nope.toml"), environ={})
    with pytest.raises(
        SettingsError,
        match="python:no_such_module_here: the config module "
        "cannot be imported: ModuleNotFoundError",
    ):
        Settings.resolve(config="python:no_such_module_here", environ={})


def test_environment_names_the_variable_and_ignores_others(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path),
            "DASH_INSIGHT_VENV": "/somewhere",
            "DASH_INSIGHT_PORT": "8009",
        }
    )
    assert settings.port == 8009
    with pytest.raises(SettingsError, match=r"^DASH_INSIGHT_PORT: port must be"):
        Settings.from_env(
            {"DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path), "DASH_INSIGHT_PORT": "http"}
        )


@pytest.mark.parametrize(
    ("text", "size"),
    [("1048576", 1 << 20), ("512K", 512 << 10), ("10M", 10 << 20), ("1GiB", 1 << 30), ("0", 0)],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_url_path_prefix_is_mindinsights_spelling() -> None:
    assert parse_url_path_prefix("") == "/"
    assert parse_url_path_prefix("/insight") == "/insight/"
    assert parse_url_path_prefix("a/b.c/") == "/a/b.c/"
    for bad in ("a/./b", "..", "a b", "a//b"):
        with pytest.raises(SettingsError):
            parse_url_path_prefix(bad)


# -- MindInsight's environment, TensorBoard's spellings, unknown options ------------------------


def test_mindinsight_variables_are_read_with_their_source(tmp_path: Path) -> None:
    settings = Settings.resolve(
        environ={
            "MINDINSIGHT_SUMMARY_BASE_DIR": str(tmp_path),
            "MINDINSIGHT_PORT": "9001",
            "MINDINSIGHT_WORKSPACE": str(tmp_path / "ws"),
            "MINDINSIGHT_RELOAD_INTERVAL": "5",
            "MINDINSIGHT_URL_PATH_PREFIX": "insight/v2",
            # MindInsight reads neither: HOST is one of its constants, the debugger is not here.
            "MINDINSIGHT_HOST": "0.0.0.0",
            "MINDINSIGHT_ENABLE_DEBUGGER": "True",
        }
    )
    assert settings.base_dir == os.path.realpath(tmp_path)
    assert (settings.port, settings.reload_interval) == (9001, 5.0)
    assert settings.workspace == str(tmp_path / "ws")
    assert settings.url_base_pathname == "/insight/v2/"
    assert settings.host == "127.0.0.1" and settings.source("host") == "default"
    assert settings.source("port") == "environment (MINDINSIGHT_PORT)"
    assert settings.source("url_base_pathname") == "environment (MINDINSIGHT_URL_PATH_PREFIX)"
    assert settings.ignored == ("MINDINSIGHT_ENABLE_DEBUGGER", "MINDINSIGHT_HOST")
    table = source_table(settings)
    assert "environment (MINDINSIGHT_SUMMARY_BASE_DIR)" in table
    assert "ignored (not dash-insight settings): MINDINSIGHT_ENABLE_DEBUGGER" in table
    # The wsgi entry point takes MindInsight's base directory too.
    assert Settings.from_env({"MINDINSIGHT_SUMMARY_BASE_DIR": str(tmp_path)}).base_dir == (
        os.path.realpath(tmp_path)
    )


def test_mindinsight_variables_rank_below_dash_insight_ones_and_above_the_config(
    tmp_path: Path,
) -> None:
    config = tmp_path / "insight.toml"
    config.write_text("port = 8001\nreload_interval = 1.5\n")
    environ = {"MINDINSIGHT_PORT": "8002", "MINDINSIGHT_RELOAD_INTERVAL": "2"}
    settings = Settings.resolve(
        environ={**environ, "DASH_INSIGHT_RELOAD_INTERVAL": "7"}, config=str(config)
    )
    assert settings.port == 8002 and settings.source("port") == "environment (MINDINSIGHT_PORT)"
    assert settings.reload_interval == 7.0
    assert settings.source("reload_interval") == "environment (DASH_INSIGHT_RELOAD_INTERVAL)"
    given = {"port": ("command line (--port)", 8003)}
    assert Settings.resolve(given=given, environ=environ).port == 8003
    assert Settings.resolve(environ={}, config=str(config)).port == 8001


def test_a_wrong_mindinsight_value_names_the_variable() -> None:
    with pytest.raises(SettingsError, match=r"^MINDINSIGHT_PORT: port must be an integer"):
        Settings.resolve(environ={"MINDINSIGHT_PORT": "http"})


def test_mindinsight_config_is_read_after_dash_insights(tmp_path: Path) -> None:
    mindinsight = tmp_path / "mi_config.py"
    mindinsight.write_text("PORT = 8555\n")
    ours = tmp_path / "insight.toml"
    ours.write_text("port = 8556\n")
    found = Settings.resolve(environ={"MINDINSIGHT_CONFIG": f"file:{mindinsight}"})
    assert found.port == 8555 and found.source("port") == f"config {mindinsight} (PORT)"
    assert found.ignored == ()
    both = {"MINDINSIGHT_CONFIG": f"file:{mindinsight}", "DASH_INSIGHT_CONFIG": str(ours)}
    assert Settings.resolve(environ=both).port == 8556


def _parse_in(environ: dict[str, str], *argv: str) -> Settings:
    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    return Settings.from_args(parser.parse_args(list(argv)), environ=environ)


def test_logdir_and_a_positional_dir_are_the_summary_base_dir(tmp_path: Path) -> None:
    logdir = _parse_in({}, "--logdir", str(tmp_path))
    assert logdir.base_dir == os.path.realpath(tmp_path)
    assert logdir.source("summary_base_dir") == "command line (--summary-base-dir)"
    positional = _parse_in({}, str(tmp_path), "--port", "8124")
    assert positional.base_dir == os.path.realpath(tmp_path) and positional.port == 8124
    assert positional.source("summary_base_dir") == "command line (DIR)"
    # The command line beats the environment either way.
    beaten = _parse_in({"DASH_INSIGHT_SUMMARY_BASE_DIR": "/elsewhere"}, str(tmp_path))
    assert beaten.base_dir == os.path.realpath(tmp_path)
    # Both spellings of one folder are no conflict; two folders are.
    same = _parse_in({}, str(tmp_path), "--summary-base-dir", f"{tmp_path}/./")
    assert same.source("summary_base_dir") == "command line (--summary-base-dir)"
    with pytest.raises(SettingsError) as caught:
        _parse_in({}, str(tmp_path), "--logdir", str(tmp_path / "other"))
    assert str(caught.value) == (
        f"the summary base directory is given twice, as {tmp_path} and as "
        f"--summary-base-dir {tmp_path / 'other'}; give only one"
    )
    assert Settings.from_args(argparse.Namespace(), environ={}).port == DEFAULT_PORT


def test_an_unknown_option_is_refused_with_the_closest_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = SuggestingParser(prog="dash-insight start")
    Settings.add_arguments(parser)
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["--summary-base-dri", "runs"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: dash-insight start ")
    assert err.endswith(
        "dash-insight start: error: unrecognized arguments: --summary-base-dri; "
        "did you mean --summary-base-dir?\n"
    )
    options = ["-h", "--port", "--summary-base-dir", "--logdir"]
    assert unrecognized(["--prot=1"], options) == (
        "unrecognized arguments: --prot=1; did you mean --port?"
    )
    assert unrecognized(["x", "--logdri", "y"], options).endswith("did you mean --logdir?")
    assert unrecognized(["--zzzzzz"], options) == "unrecognized arguments: --zzzzzz"
