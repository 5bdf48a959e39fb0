"""The real image provider: one HTTP POST per render (``image_provider`` http, or auto with ``image_api_url``).

The request is ``POST image_api_url`` with JSON ``{"prompt": ...}`` and, when ``image_api_key`` is set, an
``Authorization: Bearer`` header. The answer is either the image itself (any ``image/*`` body) or JSON carrying
it in base64 (``{"b64_json": ...}``, ``{"image": ...}`` or the OpenAI shape ``{"data": [{"b64_json": ...}]}``).
Whatever comes back must start like an image (``ella.world.images.image_type``): a 200 with an HTML error page
is an error, not an anchor that would never be drawn again.

The key comes from the environment only (a SecretStr in the settings) and is never in an error or a log line:
errors name the status and the start of the body, never the request headers.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import httpx2
from pydantic import SecretStr

from ella.world.images import ImageProviderError, image_type

_BODY_IN_ERROR = 200


class HttpImages:
    """The image generator behind an HTTP endpoint."""

    name = "http"

    def __init__(self, url: str, api_key: SecretStr | None, timeout_s: float) -> None:
        self.url = url
        self._api_key = api_key
        self.timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"HttpImages({self.url!r})"

    def render(self, prompt: str) -> bytes:
        headers = {"Accept": "image/*, application/json"}
        if self._api_key is not None and self._api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        try:
            response = httpx2.post(self.url, json={"prompt": prompt}, headers=headers, timeout=self.timeout_s)
        except httpx2.HTTPError as exc:
            raise ImageProviderError(f"image provider unreachable: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            snippet = response.content[:_BODY_IN_ERROR].decode("utf-8", "replace")
            raise ImageProviderError(f"image provider answered HTTP {response.status_code}: {snippet!r}")
        data = _image_bytes(response)
        if image_type(data) is None:
            media = response.headers.get("content-type", "no content type")
            raise ImageProviderError(f"image provider answered {media} that is not an image ({len(data)} bytes)")
        return data


def _image_bytes(response: httpx2.Response) -> bytes:
    """The body, or the base64 image inside a JSON body."""
    if "json" not in response.headers.get("content-type", ""):
        return response.content
    try:
        payload: Any = response.json()
        if isinstance(payload, dict) and isinstance(payload.get("data"), list) and payload["data"]:
            payload = payload["data"][0]
        encoded = payload.get("b64_json") or payload.get("image") if isinstance(payload, dict) else None
        if not isinstance(encoded, str):
            raise ImageProviderError("image provider answered JSON without a base64 image (b64_json or image)")
        return base64.b64decode(encoded, validate=True)
    except (ValueError, binascii.Error) as exc:
        raise ImageProviderError(f"image provider answered JSON that is not a base64 image: {exc}") from exc
