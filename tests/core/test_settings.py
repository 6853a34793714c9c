"""Settings: one validation for the command line, the environment and create_app."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from dash_insight.core.settings import (
    DEFAULT_RELOAD_INTERVAL,
    DEMO_DIR,
    Settings,
    SettingsError,
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


@pytest.mark.parametrize(("name", "value", "message"), [
    ("MAX_DEPTH", "x", "max depth must be an integer >= 0"),
    ("RELOAD_INTERVAL", "-5", "reload interval must be a number of seconds in 0..300"),
    ("RELOAD_INTERVAL", "soon", "reload interval"),
    ("SAMPLES_PER_PLUGIN", "scalar=0", "sample count must be a positive integer"),
    ("URL_BASE_PATHNAME", "insight", "must start and end with '/'"),
])
def test_environment_values_are_validated(tmp_path: Path, name: str, value: str,
                                          message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({"DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path),
                           f"DASH_INSIGHT_{name}": value})
    assert str(caught.value).startswith(f"DASH_INSIGHT_{name}: ") and message in str(caught.value)


def test_environment_needs_the_base_dir() -> None:
    with pytest.raises(SettingsError, match="DASH_INSIGHT_SUMMARY_BASE_DIR"):
        Settings.from_env({})


@pytest.mark.parametrize("argv", [
    ("--reload-interval", "-5"), ("--max-depth", "x"), ("--port", "0"),
    ("--samples-per-plugin", "nope=3"),
])
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


def test_to_args_gives_the_same_settings_back(tmp_path: Path) -> None:
    settings = _parse("--summary-base-dir", str(tmp_path), "--reload-interval", "0.5",
                      "--max-depth", "2", "--samples-per-plugin", "scalar=10,image=all",
                      "--port", "8123", "--workspace", str(tmp_path / "ws"))
    assert _parse(*settings.to_args()) == settings
    assert settings.samples_per_plugin == {"scalar": 10, "image": 0}


def test_demo_and_base_dir_checks(tmp_path: Path) -> None:
    assert _parse("--demo").base_dir == os.path.realpath(DEMO_DIR)
    missing = Settings(str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match="summary base directory not found"):
        missing.checked_base_dir()
    assert Settings(str(tmp_path)).checked_base_dir() == os.path.realpath(tmp_path)
    assert Settings(str(tmp_path)).is_local
    assert not Settings(str(tmp_path), host="0.0.0.0").is_local
