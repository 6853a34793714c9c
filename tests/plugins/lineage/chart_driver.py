"""What a person does with the lineage page's SVG chart (assets/lineage-chart.js), for the
browser tests: read its axes, drag a brush on an axis, click an axis, hover a line."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys

from tests.browser import until

#: An axis' foot and top on screen (client px) and the middle of its brush band.
_AXIS_BOX = """
const axis = document.querySelector(
    `#lineage-chart .di-pc-axis[data-id="${CSS.escape(arguments[0])}"]`);
if (!axis) { return null; }
const area = document.querySelector(
    `#lineage-chart .di-pc-brush-area[data-axis="${axis.dataset.axis}"]`);
const domain = axis.querySelector('.di-pc-domain').getBoundingClientRect();
const band = area.getBoundingClientRect();
return {x: band.left + band.width / 2, top: domain.top, bottom: domain.bottom,
        brushes: Array.from(axis.querySelectorAll('.di-pc-brush')).map(r => {
            const b = r.getBoundingClientRect(); return [b.top, b.bottom]; })};"""


def axis_titles(dash_duo: Any) -> list[str]:
    """The axis titles as drawn, left to right (their lines joined by spaces, without their
    hover text)."""
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#lineage-chart .di-pc-axis .axis-title'))"
        ".map(t => Array.from(t.querySelectorAll('tspan')).map(s => s.textContent).join(' '));"
    )


def tick_texts(dash_duo: Any) -> list[list[str]]:
    """Each axis' tick labels, bottom to top."""
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#lineage-chart .di-pc-axis')).map(a =>"
        " Array.from(a.querySelectorAll('.tick text')).map(t => t.firstChild.nodeValue));"
    )


def axis_box(dash_duo: Any, axis_id: str) -> dict[str, Any]:
    return until(lambda: dash_duo.driver.execute_script(_AXIS_BOX, axis_id), 20)


def brushes(dash_duo: Any, axis_id: str) -> list[tuple[float, float]]:
    """The brushes drawn on an axis as fractions of its height (foot 0, top 1), low first."""
    box = axis_box(dash_duo, axis_id)
    height = box["bottom"] - box["top"]
    return [
        ((box["bottom"] - bottom) / height, (box["bottom"] - top) / height)
        for top, bottom in box["brushes"]
    ]


def _y(box: dict[str, Any], fraction: float) -> int:
    return round(box["bottom"] - fraction * (box["bottom"] - box["top"]))


def drag_axis(dash_duo: Any, axis_id: str, start: float, end: float, shift: bool = False) -> None:
    """Press on an axis at fraction ``start`` of its height, drag to ``end``, release (with
    Shift held: one more range)."""
    box = axis_box(dash_duo, axis_id)
    x = round(box["x"])
    actions = ActionBuilder(dash_duo.driver)
    if shift:
        actions.key_action.key_down(Keys.SHIFT)
        actions.pointer_action.pause(0)
    actions.pointer_action.move_to_location(x, _y(box, start)).pointer_down()
    actions.pointer_action.move_to_location(x, (_y(box, start) + _y(box, end)) // 2)
    actions.pointer_action.move_to_location(x, _y(box, end)).pointer_up()
    if shift:
        actions.key_action.pause(0)
        actions.key_action.key_up(Keys.SHIFT)
    actions.perform()


def click_axis(dash_duo: Any, axis_id: str, at: float = 0.5) -> None:
    box = axis_box(dash_duo, axis_id)
    actions = ActionBuilder(dash_duo.driver)
    actions.pointer_action.move_to_location(round(box["x"]), _y(box, at)).click()
    actions.perform()


#: A point of a job's line that the line itself is the top element at (client px), or null.
_LINE_POINT = """
const hit = document.querySelector(
    `#lineage-chart .di-pc-hits path[data-job="${CSS.escape(arguments[0])}"]`);
if (!hit) { return null; }
const svg = hit.ownerSVGElement.getBoundingClientRect(), length = hit.getTotalLength();
for (let i = 1; i < 40; i++) {
  const p = hit.getPointAtLength(length * i / 40);
  const x = Math.round(svg.left + p.x), y = Math.round(svg.top + p.y);
  if (document.elementFromPoint(x, y) === hit) { return [x, y]; }
}
return null;"""


def hover_line(dash_duo: Any, job: str) -> str:
    """Move the pointer onto a job's line; the tooltip's text, once it names the job."""
    point = until(lambda: dash_duo.driver.execute_script(_LINE_POINT, job), 20)
    actions = ActionBuilder(dash_duo.driver)
    actions.pointer_action.move_to_location(*point)
    actions.perform()
    return until(
        lambda: dash_duo.driver.execute_script(
            "const t = document.querySelector('#lineage-chart .di-pc-tooltip');"
            "return t && !t.hidden && t.dataset.job === arguments[0] ? t.innerText : null;",
            job,
        ),
        10,
    )
