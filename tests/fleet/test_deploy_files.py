"""Issue #41 items 3 and 7: the ``Dockerfile`` and ``compose.yaml`` cannot drift from what
works. This test reads them and runs compose's commands as local processes (Redis with its
persistence and password, two workers each allowed to run the beat, two web processes, the
environment and volumes mapped to local paths): both web processes serve a new job, are ready
and pass the image's health check; then the first worker is killed with its beat (SIGKILL of
its process group, as a container dies) and a job written afterwards is still discovered within
two discovery intervals."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dash.testing.wait import until

from dash_insight.core.format.writer import SummaryWriter
from tests.ports import free_port

pytestmark = [pytest.mark.fleet, pytest.mark.slow]
yaml = pytest.importorskip("yaml")
redis = pytest.importorskip("redis")
pytest.importorskip("celery")

REPO = Path(__file__).resolve().parents[2]
PYTHON = os.path.abspath(sys.executable)
_VARIABLE = re.compile(r"\$\{(\w+)(?::[?-]([^}]*))?\}")


def _substitute(value: str, variables: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:?message}`` and ``${NAME:-default}``."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in variables:
            return variables[name]
        assert default is not None and ":-" in match.group(0), f"{name} is required"
        return default

    return _VARIABLE.sub(one, value).replace("$$", "$")


def _dockerfile() -> dict[str, Any]:
    """USER, ENV, HEALTHCHECK's and CMD's exec forms of the Dockerfile."""
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    out: dict[str, Any] = {"env": {}}
    for line in text.splitlines():
        word, _, rest = line.strip().partition(" ")
        if word == "USER":
            out["user"] = rest.strip()
        elif word == "ENV":
            out["env"].update(dict(re.findall(r"(\w+)=(\S+)", rest)))
        elif word == "CMD":
            out["cmd"] = json.loads(rest)
        elif word == "HEALTHCHECK":
            out["healthcheck"] = json.loads(rest.split(" CMD ", 1)[1])
    return out


class LocalCompose:
    """compose.yaml's services as local processes, each in its own session."""

    def __init__(self, root: Path, variables: dict[str, str]) -> None:
        self.root, self.variables = root, variables
        self.spec = yaml.safe_load((REPO / "compose.yaml").read_text())
        self.image = _dockerfile()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.redis_port = free_port()
        self.web_ports: dict[str, int] = {}

    def argv(self, name: str) -> list[str]:
        command = [
            _substitute(str(part), self.variables)
            for part in self.spec["services"][name]["command"]
        ]
        program = {
            "redis-server": [
                shutil.which("redis-server", path="/usr/bin:/usr/sbin") or "redis-server"
            ],
            "dash-insight": [PYTHON, "-m", "dash_insight.cli"],
            "python": [PYTHON],
        }[command[0]]
        args = command[1:]
        if "--port" in args:
            at = args.index("--port") + 1
            if command[0] == "redis-server":
                args[at] = str(self.redis_port)
            else:
                self.web_ports[name] = free_port()
                args[at] = str(self.web_ports[name])
        return program + args

    def environment(self, name: str) -> dict[str, str]:
        service = self.spec["services"][name]
        env = {**os.environ, **self.image["env"], "PYTHONPATH": str(REPO)}
        for key, value in (service.get("environment") or {}).items():
            env[key] = _substitute(str(value), self.variables).replace(
                "@redis:6379", f"@127.0.0.1:{self.redis_port}"
            )
        for volume in service.get("volumes") or ():
            source, target = _substitute(volume, self.variables).split(":")[:2]
            for key, value in env.items():
                if value == target:
                    env[key] = source
        env["DASH_INSIGHT_WORKSPACE"] = str(self.root / name / "workspace")
        return env

    def start(self, name: str) -> None:
        (self.root / name).mkdir(exist_ok=True)
        log = open(self.root / f"{name}.log", "ab")  # noqa: SIM115 (kept by Popen)
        self.processes[name] = subprocess.Popen(
            self.argv(name),
            cwd=self.root / name,  # redis-server's --dir: its volume
            env=self.environment(name),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        process = self.processes[name]
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def close(self) -> None:
        for name in reversed(list(self.processes)):
            self.kill(name, signal.SIGTERM)


def _get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return json.loads(response.read())


def _serves(port: int, train_id: str) -> bool:
    try:
        jobs = _get(port, "/v1/mindinsight/datavisual/train-jobs?limit=100")["train_jobs"]
    except OSError:
        return False
    return any(job["train_id"] == train_id and job["plugins"]["scalar"] for job in jobs)


def _write_job(base: Path, name: str) -> None:
    with SummaryWriter(base / name) as writer:
        for step in range(3):
            writer.add_scalar("loss", step / 2, step)


@pytest.fixture
def compose(tmp_path: Path) -> Iterator[LocalCompose]:
    if shutil.which("redis-server", path="/usr/bin:/usr/sbin") is None:
        pytest.skip("redis-server not installed")
    (tmp_path / "summaries").mkdir()
    variables = {"REDIS_PASSWORD": secrets.token_hex(12), "SUMMARIES": str(tmp_path / "summaries")}
    running = LocalCompose(tmp_path, variables)
    try:
        yield running
    finally:
        running.close()
        for log in sorted(tmp_path.glob("*.log")):  # shown when the test failed
            print(f"--- {log.name} (end)\n{log.read_text(errors='replace')[-2000:]}")


def test_the_compose_fleet_runs_and_survives_losing_a_worker(compose: LocalCompose) -> None:
    image = compose.image
    assert image["user"] not in ("", "root", "0") and image["healthcheck"][0] == "python"
    services = compose.spec["services"]
    assert services["web1"]["command"] == image["cmd"]
    assert "--appendonly" in services["redis"]["command"]
    workers = [name for name in services if name.startswith("worker")]
    webs = [name for name in services if name.startswith("web")]
    assert len(workers) == 2 and len(webs) == 2
    assert all("--beat" in services[name]["command"] for name in workers)

    compose.start("redis")
    client = redis.Redis(port=compose.redis_port, password=compose.variables["REDIS_PASSWORD"])
    until(lambda: _pings(client), timeout=30, msg="redis-server did not start")
    base = Path(compose.variables["SUMMARIES"])
    _write_job(base, "first")
    for name in workers + webs:
        compose.start(name)
    until(
        lambda: all(_serves(compose.web_ports[name], "./first") for name in webs),
        timeout=90,
        poll=0.5,
        msg="the web processes did not serve the first job",
    )
    for name in webs:
        port = compose.web_ports[name]
        ready = _get(port, "/readyz")
        assert ready["ready"] and ready["checks"]["discovery"]["ok"], ready
        check = [
            part.replace("8080", str(port)) if isinstance(part, str) else part
            for part in image["healthcheck"]
        ]
        check[0] = PYTHON
        assert subprocess.run(check, timeout=30).returncode == 0

    # The workers' tasks, counted in Redis, in a web process's metrics.
    with urllib.request.urlopen(
        f"http://127.0.0.1:{compose.web_ports[webs[0]]}/metrics", timeout=10
    ) as response:
        metrics = response.read().decode()
    assert 'dash_insight_fleet_tasks_total{task="discover",outcome="done"}' in metrics
    assert 'dash_insight_fleet_tasks_total{task="load_job",outcome="done"}' in metrics
    assert 'dash_insight_job_load_lag_bytes{train_id="./first"} 0' in metrics

    # The first worker dies with its beat, as a container does: discovery goes on.
    compose.kill(workers[0])
    interval = float(compose.environment(webs[0])["DASH_INSIGHT_RELOAD_INTERVAL"])
    time.sleep(interval)  # the round the dead beat would have sent is over
    _write_job(base, "second")
    written = time.monotonic()
    until(
        lambda: _serves(compose.web_ports[webs[0]], "./second"),
        timeout=30,
        poll=0.2,
        msg="a job written after the worker died was not discovered",
    )
    elapsed = time.monotonic() - written
    print(f"discovered and loaded {elapsed:.1f} s after it was written (interval {interval} s)")
    assert elapsed <= 2 * interval + 2.0  # two beat intervals (+ its load and a page read)


def _pings(client: Any) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False
