"""Images on their way to a model: what kind a file is, and what a resized one reports.

Shared by ``@file`` command-line arguments and the read tool: both recognise images by their
leading bytes (never by extension), and both tell the model how a shrunk image maps back to the
original with pi's dimension note.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How many leading bytes :func:`sniff_image_mime` needs at most.
SNIFF_BYTES = 4100

#: Stands in for an image that stays too large to inline even after resizing (``read``, ``@file``).
IMAGE_TOO_LARGE_NOTE = "[Image omitted: even resized, it stays above the inline image size limit.]"


def sniff_image_mime(head: bytes) -> str | None:
    """The image type pi accepts (png, jpeg, gif, webp) from a file's first bytes, else ``None``."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class ResizedImage:
    """An image fitted to pi's inline limits (pi's ``resizeImage`` result); ``data`` is base64."""

    data: str
    mime_type: str
    width: int
    height: int
    original_width: int
    original_height: int
    was_resized: bool

    def dimension_note(self) -> str | None:
        """pi's note telling the model how a resized image maps back to the original."""
        if not self.was_resized:
            return None
        scale = self.original_width / self.width
        return (
            f"[Image: original {self.original_width}x{self.original_height}, displayed at "
            f"{self.width}x{self.height}. Multiply coordinates by {scale:.2f} to map to original image.]"
        )
