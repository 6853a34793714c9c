"""Item 11: the Host header is checked against DNS rebinding (real server process)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.faults.conftest import Server

JOBS = "/v1/mindinsight/datavisual/train-jobs"
REMARK = "/v1/mindinsight/lineagemgr/lineages?train_id=./job"


def test_a_foreign_host_name_is_refused(summary_base: Path, serve: Callable[..., Server]) -> None:
    server = serve(summary_base)
    foreign = {"Host": "attacker.example"}
    refused = server.request("GET", JOBS, headers=foreign)
    assert refused.status == 403
    assert b"--allowed-hosts attacker.example" in refused.body
    assert server.request("GET", "/", headers=foreign).status == 403
    put = server.request(
        "PUT",
        REMARK,
        body=json.dumps({"remark": "x"}).encode(),
        headers={**foreign, "Content-Type": "application/json"},
    )
    assert put.status == 403
    # The bound address, localhost and IP addresses are answered.
    for host in (
        f"127.0.0.1:{server.port}",
        f"localhost:{server.port}",
        "LOCALHOST.",
        "[::1]:80",
        "10.1.2.3",
    ):
        assert server.request("GET", JOBS, headers={"Host": host}).status == 200, host


def test_allowed_hosts_adds_names(summary_base: Path, serve: Callable[..., Server]) -> None:
    server = serve(summary_base, "--allowed-hosts", "box.lan,*.corp.example")
    for host in ("box.lan", "BOX.LAN:8080", "web.corp.example"):
        assert server.request("GET", JOBS, headers={"Host": host}).status == 200, host
    for host in ("box.lan.attacker.example", "corp.example.attacker.example", "other.lan"):
        assert server.request("GET", JOBS, headers={"Host": host}).status == 403, host
