"""The ``read`` tool: a text file's lines (with pi's limits and continuation notices) or an image."""

from __future__ import annotations

import asyncio
import base64
import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
)
from pi_core.ai.abort import AbortSignal
from pi_core.ai.images import IMAGE_TOO_LARGE_NOTE, SNIFF_BYTES, sniff_image_mime
from pi_core.ai.messages import ImageContent, TextContent, ToolResultContentBlock
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, access, cwd_of, special_file
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.images import fit_image
from pi_builtin_tools.paths import resolve_read_path

#: How far into a file we look for NUL bytes to call it binary (git uses the same window).
_BINARY_SNIFF_BYTES = 8000
NON_VISION_NOTE = "[Current model does not support images. The image will be omitted from this request.]"


class ReadParams(ToolParams):
    path: str = Field(description="Path of the file to read, relative or absolute")
    offset: float | None = Field(default=None, description="First line to read, counting from 1")
    limit: float | None = Field(default=None, description="Largest number of lines to read")


DESCRIPTION = (
    "Read a file. Text files and images (jpg, png, gif, webp) are supported; images come back as "
    f"attachments. Text output stops after {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, "
    "whichever comes first. For big files use offset/limit, and keep reading with offset until you "
    "have what you need."
)


def create_read_tool(*, auto_resize_images: bool = True) -> AgentTool:
    async def execute(
        tool_call_id: str,
        params: ReadParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        absolute = resolve_read_path(params.path, cwd_of(ctx))
        non_vision = _non_vision_note(ctx)
        return await abortable(
            asyncio.to_thread(_read, params, absolute, auto_resize_images, non_vision), signal
        )

    return AgentTool(
        name="read",
        label="read",
        description=DESCRIPTION,
        parameters=ReadParams,
        execute=execute,
        prompt_snippet="Read file contents",
        prompt_guidelines=["Look at files with read rather than with cat or sed."],
        render_call=render.render_read_call,
        render_result=render.render_read_result,
    )


def _non_vision_note(ctx: Any) -> str | None:
    model = getattr(ctx, "model", None)
    if model is None:
        return None
    inputs = getattr(model, "input", None)
    if inputs is None and isinstance(model, dict):
        inputs = model.get("input")
    if inputs is None or "image" in inputs:
        return None
    return NON_VISION_NOTE


def _read(params: ReadParams, absolute: str, auto_resize: bool, non_vision: str | None) -> AgentToolResult:
    access(absolute, os.R_OK)
    kind = special_file(absolute)
    if kind is not None:
        raise ToolError(f"Cannot read {params.path}: it is {kind}, not a file. Use bash to work with it.")
    try:
        with open(absolute, "rb") as handle:
            head = handle.read(max(SNIFF_BYTES, _BINARY_SNIFF_BYTES))
            mime = sniff_image_mime(head)
            if mime is not None:
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_IMAGE_FILE_BYTES:
                    note = f"Read image file [{mime}]\n{IMAGE_TOO_LARGE_NOTE}"
                    return AgentToolResult(content=[TextContent(text=note)])
                return _image_result(head + handle.read(), mime, auto_resize, non_vision)
            if b"\x00" in head:  # decided before anything more of the file is read
                raise ToolError(
                    f"Cannot read {params.path}: it is a binary file (contains NUL bytes), not text or "
                    "a supported image (jpg, png, gif, webp). Use bash (e.g. `file`, `xxd | head`) to "
                    "inspect it."
                )
            text, details = _text_output(params, _chunks(head, handle))
    except IsADirectoryError as exc:
        raise ToolError("EISDIR: illegal operation on a directory, read") from exc
    except PermissionError as exc:
        raise ToolError(f"EACCES: permission denied, open '{absolute}'") from exc
    return AgentToolResult(content=[TextContent(text=text)], details=details)


#: Images above this size are not loaded (no model takes them; resizing would need it all in memory).
MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


def _chunks(head: bytes, handle: io.BufferedReader) -> Iterator[bytes | bytearray]:
    """``head``, then the rest of the file a megabyte at a time (one buffer, read into again)."""
    if head:
        yield head
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    while size := handle.readinto(view):
        yield buffer if size == _CHUNK else bytes(view[:size])


def _image_result(data: bytes, mime: str, auto_resize: bool, non_vision: str | None) -> AgentToolResult:
    content: list[ToolResultContentBlock]
    if auto_resize:
        fitted = fit_image(data, mime)
        if fitted is None:
            note = f"Read image file [{mime}]\n{IMAGE_TOO_LARGE_NOTE}"
            if non_vision:
                note += f"\n{non_vision}"
            return AgentToolResult(content=[TextContent(text=note)])
        note = f"Read image file [{fitted.mime_type}]"
        dimension = fitted.dimension_note()
        if dimension:
            note += f"\n{dimension}"
        if non_vision:
            note += f"\n{non_vision}"
        content = [TextContent(text=note), ImageContent(data=fitted.data, mime_type=fitted.mime_type)]
        return AgentToolResult(content=content)
    note = f"Read image file [{mime}]"
    if non_vision:
        note += f"\n{non_vision}"
    encoded = base64.b64encode(data).decode("ascii")
    return AgentToolResult(content=[TextContent(text=note), ImageContent(data=encoded, mime_type=mime)])


_Chunks = Iterable[bytes | bytearray]


@dataclass(slots=True)
class _Selection:
    """What one pass over a file gives: its line count and the beginning of the selected lines."""

    total_lines: int
    #: The first ``DEFAULT_MAX_BYTES + 1`` bytes of the selection: all that the output can show.
    window: bytes
    selected_bytes: int
    selected_lines: int
    first_line_bytes: int


def _scan(chunks: _Chunks, start: int, limit: int | None) -> _Selection:
    """Stream the file once: count its lines and keep the beginning of lines ``start`` up to
    ``start + limit`` (0-based, joined by their newlines; ``limit=None``: to the end of the file).
    Memory stays at one chunk plus the window, whatever the file's size."""
    cap = DEFAULT_MAX_BYTES + 1
    total_newlines = 0
    line = 0  # 0-based index of the line at the scan position
    window = bytearray()
    selected_bytes = selected_newlines = first_line_bytes = 0
    first_line_open = True
    done = False
    for chunk in chunks:
        in_chunk = chunk.count(b"\n")
        total_newlines += in_chunk
        size = len(chunk)
        position = 0
        while not done and position < size:
            if line < start:  # skip to the first selected line
                need = start - line
                found = chunk.count(b"\n", position)
                if found < need:
                    line += found
                    break
                for _ in range(need):
                    position = chunk.index(b"\n", position) + 1
                line = start
                continue
            end = size
            if limit == 0:
                end, done = position, True
            elif limit is not None:
                at = position - 1
                for _ in range(limit - (line - start)):  # the newline that ends the selection
                    at = chunk.find(b"\n", at + 1)
                    if at < 0:
                        break
                if at >= 0:
                    end, done = at, True
            whole = position == 0 and end == size
            piece = chunk if whole else chunk[position:end]
            if len(window) < cap:
                window += piece[: cap - len(window)]
            selected_bytes += len(piece)
            newlines = in_chunk if whole else piece.count(b"\n")
            selected_newlines += newlines
            line += newlines
            if first_line_open:
                cut = piece.find(b"\n")
                first_line_bytes += len(piece) if cut < 0 else cut
                first_line_open = cut < 0
            position = end
    return _Selection(
        total_lines=total_newlines + 1,
        window=bytes(window),
        selected_bytes=selected_bytes,
        selected_lines=selected_newlines + 1,
        first_line_bytes=first_line_bytes,
    )


def _text_output(
    params: ReadParams, chunks: Iterable[bytes | bytearray]
) -> tuple[str, dict[str, Any] | None]:
    # Text exactly as stored: no line numbers, CRs kept; only the selection and notices are ours.
    offset = int(params.offset) if params.offset else 0
    start = max(0, offset - 1) if offset else 0
    limit = max(0, int(params.limit)) if params.limit is not None else None
    found = _scan(chunks, start, limit)
    total = found.total_lines
    if start >= total:
        raise ToolError(f"Offset {_js_number(params.offset)} is beyond end of file ({total} lines total)")
    user_limited = min(limit, total - start) if limit is not None else None
    # ASCII (most source files) stays bytes until shown; anything else is decoded as pi does,
    # with replacement characters. Only the window is ever decoded.
    window = found.window
    shown = window.decode("ascii") if window.isascii() else window.decode("utf-8", "replace")
    truncation = truncate_head(shown)
    if found.selected_bytes > len(window):  # only its beginning was kept: the totals are the scan's
        truncation = truncation.model_copy(
            update={"total_lines": found.selected_lines, "total_bytes": found.selected_bytes}
        )
    first = start + 1
    if truncation.first_line_exceeds_limit:
        size = format_size(found.first_line_bytes)
        notice = (
            f"[Line {first} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {params.path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return notice, {"truncation": truncation.to_details()}
    if truncation.truncated:
        last = first + truncation.output_lines - 1
        limit_note = (
            "" if truncation.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        )
        text = (
            f"{truncation.content}\n\n[Showing lines {first}-{last} of {total}{limit_note}. "
            f"Use offset={last + 1} to continue.]"
        )
        return text, {"truncation": truncation.to_details()}
    if user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        next_offset = start + user_limited + 1
        notice = f"[{remaining} more lines in file. Use offset={next_offset} to continue.]"
        return f"{truncation.content}\n\n{notice}", None
    return truncation.content, None


def _js_number(value: float | None) -> str:
    if value is None:
        return "undefined"
    return str(int(value)) if float(value).is_integer() else str(value)
