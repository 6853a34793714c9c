"""Refuse malformed Dash callback requests with 400 before Dash dispatches them.

Dash's ``/_dash-update-component`` trusts its body: ``body["output"]`` of an unknown callback,
an input without ``"id"``, a string where a list belongs, a body nested too deep for the JSON
parser or one with fewer inputs than the callback takes all end in an HTML 500 with a traceback
in the log. The browser never sends such bodies, so a body that does not have the shape the
renderer sends, for a callback of this app with its number of inputs, states and outputs, is
answered ``400 {"message": ...}`` here and logged as one line. A body of the right shape whose
callback then fails on a value of a type it does not take, on a job, tag or step that is not
there, or on a value it refuses (:class:`~dash_insight.web.callback_types.CallbackValueError`:
a store not of the shape the page wrote) is answered the same way (:func:`install`).
"""

from __future__ import annotations

import logging
from typing import Any

import dash
import flask
from dash._validate import validate_output_spec
from dash.exceptions import CallbackException
from werkzeug.exceptions import HTTPException

from dash_insight.core.provider import JobNotFound, StepNotFound, TagNotFound
from dash_insight.web.callback_types import CallbackValueError, wrong_type
from dash_insight.web.http import JsonBodyError, parse_json_text
from dash_insight.web.limits import MAX_URL_CHARS, URL_PROPERTIES

log = logging.getLogger(__name__)

UPDATE_COMPONENT = "_dash-update-component"
#: Component trees passed as State nest deeply (3 levels per component); the JSON parser
#: itself gives up near 1000.
MAX_CALLBACK_BODY_DEPTH = 500


#: What the renderer sends for these properties (None: not set yet; URL parts are checked by
#: :func:`_check_url_value`). ``value`` and ``data`` are whatever a component or store holds:
#: each callback checks its own.
_COUNT_PROPERTIES = ("n_clicks", "n_intervals", "n_submit", "n_blur", "n_dblclicks")
_OBJECT_PROPERTIES = ("tapNodeData", "relayoutData", "cellRendererData", "clickData")
_LIST_PROPERTIES = ("selectedRows", "columnState", "options")


class CallbackBodyError(ValueError):
    """A callback request body the renderer would never send; ``str()`` says what is wrong."""


def _check_dependency(item: Any, where: str) -> None:
    """One input, state or output: ``{"id": str | dict, "property": str, ...}``, or a list of
    them (a pattern-matching ``ALL`` / ``ALLSMALLER``)."""
    for entry in item if isinstance(item, list) else [item]:
        if not isinstance(entry, dict):
            raise CallbackBodyError(f"{where} must be an object")
        if not isinstance(entry.get("id"), str | dict) or not entry.get("id"):
            raise CallbackBodyError(f"{where} needs an 'id'")
        if not isinstance(entry.get("property"), str):
            raise CallbackBodyError(f"{where} needs a 'property'")


def _check_url_value(item: Any, where: str) -> None:
    """A ``dcc.Location`` property (:data:`~dash_insight.web.limits.URL_PROPERTIES`) passed as
    input or state: a string of at most :data:`~dash_insight.web.limits.MAX_URL_CHARS`, or
    nothing. Pages parse it before anything else, so junk here is refused before any work."""
    if isinstance(item, list) or item.get("property") not in URL_PROPERTIES:
        return
    value = item.get("value")
    if value is not None and not isinstance(value, str):
        raise CallbackBodyError(f"{where}: a URL's {item['property']} must be a string")
    if item["property"] == "pathname" and value is not None and not value.startswith("/"):
        raise CallbackBodyError(f"{where}: a URL's pathname starts with '/'")
    if value is not None and len(value) > MAX_URL_CHARS:
        raise CallbackBodyError(
            f"{where}: a URL's {item['property']} of {len(value):,} characters is longer "
            f"than the {MAX_URL_CHARS:,} a page reads"
        )


def _check_wildcard_shape(item: Any, spec: dict[str, Any], where: str) -> None:
    """An input or state whose id has an ``ALL`` / ``ALLSMALLER`` wildcard is a list of entries
    (one per matching component), any other a single entry, as the renderer sends them."""
    raw = spec.get("id")
    many = isinstance(raw, str) and ('["ALL"]' in raw or '["ALLSMALLER"]' in raw)
    if many != isinstance(item, list):
        raise CallbackBodyError(f"{where} must be {'a list' if many else 'one entry'}")


def _check_value(entry: dict[str, Any], where: str) -> None:
    """The ``value`` of an input or state has the type the renderer sends for its property:
    click and interval counts integers, event data objects, row lists lists."""
    value, prop = entry.get("value"), entry["property"]
    if value is None:
        return
    if prop in _COUNT_PROPERTIES:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**53:
            raise CallbackBodyError(f"{where}: '{prop}' must be a count")
    elif prop in _OBJECT_PROPERTIES and not isinstance(value, dict):
        raise CallbackBodyError(f"{where}: '{prop}' must be an object")
    elif prop in _LIST_PROPERTIES and not isinstance(value, list):
        raise CallbackBodyError(f"{where}: '{prop}' must be a list")


def check_callback_body(body: Any, callback_map: dict[str, Any]) -> None:
    """CallbackBodyError unless ``body`` is what Dash's renderer sends for one of the callbacks
    in ``callback_map``: its ``output`` key, one entry per input and state, one per output."""
    if not isinstance(body, dict):
        raise CallbackBodyError("the body must be a JSON object")
    output = body.get("output")
    if not isinstance(output, str) or output not in callback_map:
        raise CallbackBodyError("'output' names no callback of this app")
    callback = callback_map[output]
    for key in ("inputs", "state"):
        items = body.get(key, [])
        if not isinstance(items, list) or len(items) != len(callback[key]):
            raise CallbackBodyError(f"'{key}' must list {len(callback[key])} entries")
        for position, item in enumerate(items):
            _check_dependency(item, f"{key}[{position}]")
            for entry in item if isinstance(item, list) else [item]:
                _check_value(entry, f"{key}[{position}]")
            _check_wildcard_shape(item, callback[key][position], f"{key}[{position}]")
            _check_url_value(item, f"{key}[{position}]")
    if not callback.get("no_output"):
        outputs = body.get("outputs")
        declared = callback["output"]
        if isinstance(declared, list | tuple):
            if not isinstance(outputs, list) or len(outputs) != len(declared):
                raise CallbackBodyError(f"'outputs' must list {len(declared)} entries")
            for position, item in enumerate(outputs):
                _check_dependency(item, f"outputs[{position}]")
        else:
            _check_dependency(outputs, "outputs")
        try:  # the same check Dash makes later, where it answers 500
            validate_output_spec(declared, outputs, dash.Output)
        except (CallbackException, KeyError, TypeError, ValueError):
            raise CallbackBodyError("'outputs' do not match the callback's outputs") from None
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
        raise CallbackBodyError("'changedPropIds' must be a list of strings")


def misfit_value(body: Any, callback_map: dict[str, Any]) -> str | None:
    """What, in a (checked) callback ``body``, is of a JSON type its callback's parameter does
    not take (:mod:`~dash_insight.web.callback_types`: ``str | None`` takes no list, ``dict``
    no number), e.g. ``"value 2 (data)"``; None when every value fits.

    Asked only once the callback has failed: a body the browser sends always runs, even when an
    annotation is narrower than what the browser sends."""
    output = body.get("output") if isinstance(body, dict) else None
    callback = callback_map.get(output) if isinstance(output, str) else None
    if callback is None:
        return None
    items = [*body.get("inputs", []), *body.get("state", [])]
    values = [
        [entry.get("value") for entry in item] if isinstance(item, list) else item.get("value")
        for item in items
    ]
    position = wrong_type(callback["callback"], values)
    if position is None:
        return None
    item = items[position]
    name = "a wildcard input" if isinstance(item, list) else item.get("property")
    return f"value {position} ({name})"


def _bad_request(message: str) -> flask.Response:
    return flask.Response(
        flask.json.dumps({"message": message}), status=400, mimetype="application/json"
    )


def install(app: dash.Dash, prefix: str) -> None:
    """Check every POST to ``<prefix>_dash-update-component`` before Dash sees it. A callback
    that fails answers 400 (one log line) when the request asked for a job, tag or step that is
    not there (a URL naming ``./nope``), held a value the callback refused
    (:class:`~dash_insight.web.callback_types.CallbackValueError`) or one of a type it does not
    take (:func:`misfit_value`); any other failure is the server's (500 and its traceback)."""
    path = prefix + UPDATE_COMPONENT

    @app.server.errorhandler(Exception)
    def callback_failed(error: Exception) -> Any:
        if isinstance(error, HTTPException):
            return error  # Flask's own answer, as without this handler
        if flask.request.path != path:
            raise error
        if isinstance(error, JobNotFound | TagNotFound | StepNotFound):
            log.info("callback request for what is not there: %s", error)
            return _bad_request(str(error))
        if isinstance(error, CallbackValueError):
            log.warning("refused a callback request from %s: %s", flask.request.remote_addr, error)
            return _bad_request(f"Bad callback request: {error}")
        misfit = misfit_value(flask.request.get_json(silent=True), app.callback_map)
        if misfit is None:
            raise error
        log.warning(
            "refused a callback request from %s: %s is not of the type the callback takes (%s)",
            flask.request.remote_addr,
            misfit,
            type(error).__name__,
        )
        return _bad_request(f"Bad callback request: {misfit} is not of the type it takes")

    @app.server.before_request
    def check_callback_request() -> flask.Response | None:
        if flask.request.path != path or flask.request.method != "POST":
            return None
        try:
            body = parse_json_text(flask.request.get_data(cache=True), MAX_CALLBACK_BODY_DEPTH)
            check_callback_body(body, app.callback_map)
        except (JsonBodyError, CallbackBodyError) as error:
            log.warning(
                "refused a malformed callback request from %s: %s", flask.request.remote_addr, error
            )
            return _bad_request(f"Bad callback request: {error}")
        return None
