"""Image fitting for the read tool (recognising images is :mod:`pi_core.ai.images`).

Before images go to the model they are fitted within 2000x2000 pixels and a 4.5 MiB base64
payload (pi's inline image limits). Pillow is imported only when an image needs it.
"""

from __future__ import annotations

import base64
import io

from pi_core.ai.images import ResizedImage

MAX_WIDTH = 2000
MAX_HEIGHT = 2000
MAX_BASE64_BYTES = 4.5 * 1024 * 1024
_JPEG_QUALITIES = (80, 85, 70, 55, 40)


def fit_image(raw: bytes, mime_type: str) -> ResizedImage | None:
    """The image within pi's limits, unchanged if it already fits; ``None`` if it cannot be made to fit."""
    try:
        from PIL import Image, ImageOps
    except ImportError:  # pragma: no cover - Pillow is a declared dependency
        return None
    encoded = base64.b64encode(raw).decode("ascii")
    try:
        with Image.open(io.BytesIO(raw)) as opened:
            image = ImageOps.exif_transpose(opened)
            image.load()
    except Exception:
        return None
    width, height = image.size
    if width <= MAX_WIDTH and height <= MAX_HEIGHT and len(encoded) < MAX_BASE64_BYTES:
        return ResizedImage(encoded, mime_type, width, height, width, height, was_resized=False)

    target_w, target_h = width, height
    if target_w > MAX_WIDTH:
        target_h = _js_round(target_h * MAX_WIDTH / target_w)
        target_w = MAX_WIDTH
    if target_h > MAX_HEIGHT:
        target_w = _js_round(target_w * MAX_HEIGHT / target_h)
        target_h = MAX_HEIGHT
    while True:
        resized = image.resize((target_w, target_h), Image.Resampling.LANCZOS)
        for data, mime in _candidates(resized):
            if len(data) < MAX_BASE64_BYTES:
                return ResizedImage(data, mime, target_w, target_h, width, height, was_resized=True)
        next_w = max(1, int(target_w * 0.75))
        next_h = max(1, int(target_h * 0.75))
        if (next_w, next_h) == (target_w, target_h):
            return None
        target_w, target_h = next_w, next_h


def _candidates(image: object) -> list[tuple[str, str]]:
    from PIL import Image

    assert isinstance(image, Image.Image)
    out: list[tuple[str, str]] = []
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    out.append((base64.b64encode(buffer.getvalue()).decode("ascii"), "image/png"))
    rgb = image.convert("RGB")
    for quality in _JPEG_QUALITIES:
        buffer = io.BytesIO()
        rgb.save(buffer, format="JPEG", quality=quality)
        out.append((base64.b64encode(buffer.getvalue()).decode("ascii"), "image/jpeg"))
    return out


def _js_round(value: float) -> int:
    return int(value + 0.5)
