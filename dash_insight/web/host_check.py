"""The ``Host`` header check against DNS rebinding, as Jupyter and TensorBoard do it.

dash-insight has no login, so a page on ``attacker.example`` whose name is re-pointed to
127.0.0.1 could otherwise read every summary and write remarks from the victim's browser: the
browser thinks it talks to ``attacker.example`` and sends that name in ``Host``. A request is
answered only when its ``Host`` names:

* an IP address (a rebinding page cannot make the browser send one of ours);
* ``localhost`` or a name below ``.localhost``;
* the host the server was told to bind (``--host myserver``), or, when it binds every address
  (``0.0.0.0`` / ``::``), this machine's host name and fully qualified name;
* one of ``--allowed-hosts`` / ``DASH_INSIGHT_ALLOWED_HOSTS`` (``*.example`` for a domain,
  ``*`` for any: only behind a proxy that checks the name itself).

Any other ``Host`` (or none) gets 403 with a message saying which option allows it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

import flask

from dash_insight.core.settings import Settings

WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def host_name(header: str) -> str:
    """The name in a ``Host`` header without its port or brackets, lower case, without a final
    dot: ``"[::1]:8080"`` -> ``"::1"``, ``"Example.COM.:80"`` -> ``"example.com"``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header[1:]
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def allowed_names(settings: Settings) -> frozenset[str]:
    """The host names (besides IP addresses and ``localhost``) requests may carry."""
    names = {name.lower().rstrip(".") for name in settings.allowed_hosts}
    if settings.host in WILDCARD_HOSTS:
        names.update(n.lower() for n in (socket.gethostname(), socket.getfqdn()) if n)
    else:
        names.add(settings.host.lower().rstrip("."))
    return frozenset(names)


def host_allowed(header: str | None, names: Iterable[str]) -> bool:
    """Whether a request whose ``Host`` header is ``header`` may be answered (module docstring)."""
    if not header:
        return False
    name = host_name(header)
    if _is_ip_address(name) or name == "localhost" or name.endswith(".localhost"):
        return True
    for allowed in names:
        if allowed == "*" or allowed == name:
            return True
        if allowed.startswith("*.") and name.endswith(allowed[1:]):
            return True
    return False


def install(server: flask.Flask, settings: Settings, prefix: str) -> None:
    """Refuse requests under ``prefix`` whose ``Host`` is not allowed (403, before any view)."""
    names = allowed_names(settings)
    # Liveness and readiness hold nothing of the logs: probes use the pod's address.
    probes = {prefix.rstrip("/") + "/healthz", prefix.rstrip("/") + "/readyz"}

    @server.before_request
    def check_host() -> flask.Response | None:
        if not flask.request.path.startswith(prefix) or flask.request.path in probes:
            return None
        header = flask.request.headers.get("Host")
        if host_allowed(header, names):
            return None
        name = host_name(header or "")
        return flask.Response(
            f"Blocked a request for host {name!r}: dash-insight answers only its own host names "
            f"(against DNS rebinding). To reach it as {name!r}, start it with --allowed-hosts "
            f"{name} (or set DASH_INSIGHT_ALLOWED_HOSTS={name}).\n",
            status=403,
            mimetype="text/plain",
        )
