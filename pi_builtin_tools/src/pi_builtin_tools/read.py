"""The ``read`` tool: a text file's lines (with pi's limits and continuation notices) or an image."""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any, AnyStr

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
)
from pi_core.ai.abort import AbortSignal
from pi_core.ai.images import IMAGE_TOO_LARGE_NOTE, SNIFF_BYTES, sniff_image_mime
from pi_core.ai.messages import ImageContent, TextContent, ToolResultContentBlock
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, access, cwd_of
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
    try:
        with open(absolute, "rb") as handle:
            head = handle.read(max(SNIFF_BYTES, _BINARY_SNIFF_BYTES))
            mime = sniff_image_mime(head)
            data = head + handle.read()
    except IsADirectoryError as exc:
        raise ToolError("EISDIR: illegal operation on a directory, read") from exc
    except PermissionError as exc:
        raise ToolError(f"EACCES: permission denied, open '{absolute}'") from exc
    if mime is not None:
        return _image_result(data, mime, auto_resize, non_vision)
    if b"\x00" in head:
        raise ToolError(
            f"Cannot read {params.path}: it is a binary file (contains NUL bytes), not text or a "
            "supported image (jpg, png, gif, webp). Use bash (e.g. `file`, `xxd | head`) to inspect it."
        )
    # ASCII files (most source files) are handled as bytes: same lines, same sizes, and only the part
    # shown is ever decoded. Anything else is decoded as pi does, with replacement characters.
    text, details = _text_output(params, data if data.isascii() else data.decode("utf-8", "replace"))
    return AgentToolResult(content=[TextContent(text=text)], details=details)


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


def _text_output(params: ReadParams, text: str | bytes) -> tuple[str, dict[str, Any] | None]:
    # Text exactly as stored: no line numbers, CRs kept; only the selection and notices are ours.
    # Lines are only split as far as needed, so a 50 MB file costs little more than reading it.
    if isinstance(text, bytes):
        return _select(params, text, b"\n")
    return _select(params, text, "\n")


def _select(params: ReadParams, text: AnyStr, newline: AnyStr) -> tuple[str, dict[str, Any] | None]:
    total = text.count(newline) + 1
    offset = int(params.offset) if params.offset else 0
    start = max(0, offset - 1) if offset else 0
    if start >= total:
        raise ToolError(f"Offset {_js_number(params.offset)} is beyond end of file ({total} lines total)")
    rest = text[_line_start(text, start, newline) :] if start else text
    user_limited: int | None = None
    if params.limit is not None:
        limit = max(0, int(params.limit))
        selected = newline.join(rest.split(newline, limit)[:limit])
        user_limited = min(limit, total - start)
    else:
        selected = rest
    truncation = _truncate_head(selected)
    first_line = rest.split(newline, 1)[0]
    first_line_bytes = len(first_line) if isinstance(first_line, bytes) else _utf8_len(first_line)
    first = start + 1
    if truncation.first_line_exceeds_limit:
        size = format_size(first_line_bytes)
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
        shown = (
            f"{truncation.content}\n\n[Showing lines {first}-{last} of {total}{limit_note}. "
            f"Use offset={last + 1} to continue.]"
        )
        return shown, {"truncation": truncation.to_details()}
    if user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        next_offset = start + user_limited + 1
        notice = f"[{remaining} more lines in file. Use offset={next_offset} to continue.]"
        return f"{truncation.content}\n\n{notice}", None
    return truncation.content, None


def _truncate_head(selected: str | bytes) -> TruncationResult:
    if isinstance(selected, str):
        return truncate_head(selected)
    # ASCII bytes: only the first max_bytes + 1 bytes can contribute output, so only they are decoded;
    # the totals are taken from the whole selection.
    head = truncate_head(selected[: DEFAULT_MAX_BYTES + 1].decode("ascii"))
    return head.model_copy(update={"total_lines": selected.count(b"\n") + 1, "total_bytes": len(selected)})


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _line_start(text: AnyStr, line: int, newline: AnyStr) -> int:
    """Index where 0-based ``line`` starts: newlines are counted a megabyte at a time in C, and only
    the chunk holding the line is split."""
    position, remaining, chunk = 0, line, 1 << 20
    while True:
        end = min(len(text), position + chunk)
        found = text.count(newline, position, end)
        if found >= remaining or end == len(text):
            return end - len(text[position:end].split(newline, remaining)[-1])
        remaining -= found
        position = end


def _js_number(value: float | None) -> str:
    if value is None:
        return "undefined"
    return str(int(value)) if float(value).is_integer() else str(value)
