"""``@file`` command-line arguments: text files inlined in pi's ``<file>`` format, images attached."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from pi_core.ai.images import IMAGE_TOO_LARGE_NOTE, SNIFF_BYTES, ResizedImage, sniff_image_mime
from pi_core.ai.messages import ImageContent

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


class FileArgumentError(RuntimeError):
    """An ``@file`` argument cannot be used; the CLI prints ``Error: <message>`` and exits 1."""


#: Shrinks an image to pi's inline limits, or returns ``None`` if it cannot get small enough.
ImageResizer = Callable[[ImageContent], Awaitable[ResizedImage | None]]


@dataclass
class FileArguments:
    """The text to put before the first message and the images to attach to it."""

    text: str = ""
    images: list[ImageContent] = field(default_factory=list)


def _expand(path: str) -> str:
    normalized = _UNICODE_SPACES.sub(" ", path.removeprefix("@"))
    home = os.path.expanduser("~")
    if normalized == "~":
        return home
    if normalized.startswith("~/"):
        return home + normalized[1:]
    return normalized


def resolve_read_path(path: str, cwd: str) -> str:
    """Resolve like pi's ``read`` tool: ``~``, odd Unicode spaces, and macOS screenshot name variants."""
    expanded = _expand(path)
    resolved = os.path.normpath(os.path.join(os.path.abspath(cwd), expanded))
    if os.path.exists(resolved):
        return resolved
    am_pm = re.sub(r" (AM|PM)\.", "\u202f\\1.", resolved, flags=re.IGNORECASE)
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", "\u2019")
    for variant in (am_pm, nfd, curly, nfd.replace("'", "\u2019")):
        if variant != resolved and os.path.exists(variant):
            return variant
    return resolved


def _read_bytes(path: str, limit: int | None = None) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(limit) if limit is not None else handle.read()


async def process_file_arguments(
    file_args: Sequence[str],
    cwd: str,
    *,
    auto_resize_images: bool = True,
    resize_image: ImageResizer | None = None,
) -> FileArguments:
    """Turn ``@file`` arguments (``@`` already removed or not) into prompt text and image attachments.

    In order: a missing file raises :class:`FileArgumentError` (``File not found: ABS``); empty files
    are skipped; images become attachments with ``<file name="ABS"></file>`` (plus pi's dimension note
    when ``resize_image`` shrank it); text files become ``<file name="ABS">\\nCONTENT\\n</file>\\n``.
    Without ``resize_image`` images are attached unchanged.
    """
    result = FileArguments()
    for arg in file_args:
        path = await asyncio.to_thread(resolve_read_path, arg, cwd)
        try:
            size = (await asyncio.to_thread(os.stat, path)).st_size
        except OSError:
            raise FileArgumentError(f"File not found: {path}") from None
        if size == 0:
            continue
        try:
            head = await asyncio.to_thread(_read_bytes, path, SNIFF_BYTES)
            mime_type = sniff_image_mime(head)
            raw = await asyncio.to_thread(_read_bytes, path)
        except OSError as error:
            raise FileArgumentError(f"Could not read file {path}: {error.strerror or error}") from None
        if mime_type is None:
            try:
                content = raw.decode("utf-8")
            except UnicodeDecodeError:
                # Node decodes invalid UTF-8 with replacement characters rather than failing.
                content = raw.decode("utf-8", errors="replace")
            result.text += f'<file name="{path}">\n{content}\n</file>\n'
            continue
        image = ImageContent(data=base64.b64encode(raw).decode("ascii"), mime_type=mime_type)
        note: str | None = None
        if auto_resize_images and resize_image is not None:
            resized = await resize_image(image)
            if resized is None:
                result.text += f'<file name="{path}">{IMAGE_TOO_LARGE_NOTE}</file>\n'
                continue
            note = resized.dimension_note()
            image = ImageContent(data=resized.data, mime_type=resized.mime_type)
        result.images.append(image)
        result.text += f'<file name="{path}">{note or ""}</file>\n'
    return result
