"""The images plugin's REST routes: MindInsight's ``image/metadata`` and ``image/single-image``
(``ImageProcessor``).

Deliberate difference from MindInsight 2.3.1: every step is served (no 10-image reservoir)
unless the server was started with ``--samples-per-plugin``.
"""

from __future__ import annotations

from collections.abc import Iterator

from flask import Response

from dash_insight.core.provider import DataProvider, StepNotFound
from dash_insight.core.service import DataService
from dash_insight.core.store.budget import ByteBudget
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.images.query import image
from dash_insight.web import errors
from dash_insight.web.http import json_response, required_args, resolve_job, to_int, value_steps_or
from dash_insight.web.plugin import Route


def routes(service: DataService) -> list[Route]:
    views = _ImageViews(service.provider, service.settings.max_record_bytes)
    return [
        Route("datavisual/image/metadata", views.image_metadata),
        Route("datavisual/image/single-image", views.single_image),
    ]


def sniff_image_type(data: bytes) -> str:
    """MindInsight's ``get_img_mimetype`` (``imghdr``: png, jpeg, gif, bmp)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[6:10] in (b"JFIF", b"Exif") or data.startswith(b"\xff\xd8\xff\xdb"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data.startswith(b"BM"):
        return "image/bmp"
    return "application/octet-stream"


#: Bytes handed to the WSGI server at a time.
CHUNK_BYTES = 1 << 20


class _Sending:
    """The body of an image answer: ``data`` in pieces of :data:`CHUNK_BYTES`, holding its share
    of the sending budget until the server closes it (sent, or the client went away).

    A WSGI server buffers what the application hands it until the client has read it (waitress
    copies it into memory, then into a temporary file), so one 100 MB piece cost another
    100-200 MB per concurrent request; pieces are written as the client reads them.
    """

    def __init__(self, data: bytes, budget: ByteBudget, share: int) -> None:
        self.data = data
        self._budget = budget
        self._share: int | None = share

    def __iter__(self) -> Iterator[bytes]:
        view = memoryview(self.data)
        for start in range(0, len(view), CHUNK_BYTES):
            yield bytes(view[start : start + CHUNK_BYTES])

    def close(self) -> None:
        if self._share is not None:
            self._budget.release(self._share)
            self._share = None


class _ImageViews:
    def __init__(self, provider: DataProvider, max_record_bytes: int) -> None:
        self.provider = provider
        # Images being decoded and sent hold at most one largest record's worth of bytes:
        # eight requests for 100 MB images take turns instead of holding 800 MB at once,
        # while small images are sent side by side.
        self.sending = ByteBudget(max_record_bytes)

    def image_metadata(self) -> Response:
        """``GET /datavisual/image/metadata?train_id=&tag=`` -> ``{"metadatas": [{wall_time,
        step, width, height}]}`` (``ImageProcessor.get_metadata_list``; size = the canvas)."""
        train_id, tag = required_args("train_id", "tag")
        resolve_job(self.provider, train_id)
        raw, steps = value_steps_or(
            self.provider, train_id, PluginName.IMAGE, tag, errors.image_not_exist
        )
        result = []
        for position, (step, wall_time) in enumerate(
            zip(steps.step.tolist(), steps.wall_time.tolist(), strict=True)
        ):
            meta = steps.meta[position] if position < len(steps.meta) else None
            if meta is None:
                value = image(self.provider, train_id, raw, step)
                meta = {"width": value.width, "height": value.height}
            result.append(
                {
                    "wall_time": wall_time,
                    "step": step,
                    "width": int(meta["width"]),
                    "height": int(meta["height"]),
                }
            )
        return json_response({"metadatas": result})

    def single_image(self) -> Response:
        """``GET /datavisual/image/single-image?train_id=&tag=&step=`` -> the encoded image as
        written (PNG from MindSpore) with its sniffed content type; ``step=-1`` = the last
        (``ImageProcessor.get_single_image``)."""
        train_id, tag, step_text = required_args("train_id", "tag", "step")
        step = to_int(step_text, "step")
        resolve_job(self.provider, train_id)
        raw, _ = value_steps_or(
            self.provider, train_id, PluginName.IMAGE, tag, errors.image_not_exist
        )
        try:
            size = self.provider.value_size(train_id, PluginName.IMAGE, raw, step)
        except StepNotFound:
            raise errors.image_not_exist(
                "Can not find the step with given train job id and tag."
            ) from None
        share = self.sending.acquire(size)
        try:
            value = image(self.provider, train_id, raw, step)
        except BaseException:
            self.sending.release(share)
            raise
        response = Response(
            _Sending(value.encoded, self.sending, share), mimetype=sniff_image_type(value.encoded)
        )
        response.content_length = len(value.encoded)
        return response
