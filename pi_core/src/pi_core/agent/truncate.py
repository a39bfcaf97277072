"""Output truncation shared by tools: pi's two limits (lines and UTF-8 bytes), whichever is hit first.

Tools keep the *head* of file-like output (reads, search results) and the *tail* of logs (command
output). Whole lines are kept; the one exception is a tail whose last line alone is over the byte
limit, which keeps that line's end. The result record is what tools store in ``details.truncation``.
"""

from __future__ import annotations

from typing import Literal

from pi_core._model import PiModel

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
#: Longest match line the grep tool shows, in characters.
GREP_MAX_LINE_LENGTH = 500

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "TruncatedLine",
    "TruncationResult",
    "format_size",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]


class TruncationResult(PiModel):
    """What was kept and why; camelCase on the wire like pi's ``details.truncation``."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_details(self) -> dict[str, object]:
        """The record as pi stores it (``truncatedBy`` stays present even when null)."""
        return self.model_dump(mode="json", by_alias=True)


class TruncatedLine(PiModel):
    text: str
    was_truncated: bool


def format_size(num_bytes: int) -> str:
    """``512B``, ``50.0KB``, ``1.5MB`` — one decimal, 1024-based, as pi prints sizes."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{_js_fixed1(num_bytes / 1024)}KB"
    return f"{_js_fixed1(num_bytes / (1024 * 1024))}MB"


def _js_fixed1(value: float) -> str:
    # JavaScript's toFixed rounds half away from zero; Python's format rounds half to even.
    return f"{int(value * 10 + 0.5) / 10:.1f}"


def _utf8_len(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _untruncated(content: str, lines: int, size: int, max_lines: int, max_bytes: int) -> TruncationResult:
    return TruncationResult(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=lines,
        total_bytes=size,
        output_lines=lines,
        output_bytes=size,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the beginning: as many whole lines as fit under both limits.

    If the first line alone is over ``max_bytes`` the content is empty and
    ``first_line_exceeds_limit`` is set, so the caller can point at another way to read it.
    """
    total_bytes = _utf8_len(content)
    total_lines = content.count("\n") + 1
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    # Only the lines that can possibly fit are split off, so a huge input costs little.
    lines = content.split("\n", min(max_lines, max_bytes + 2))
    first_line_bytes = _utf8_len(lines[0])
    if first_line_bytes > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            last_line_partial=False,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )

    kept = 0
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    for index in range(min(len(lines), max_lines)):
        line_bytes = _utf8_len(lines[index]) + (1 if index > 0 else 0)
        if used + line_bytes > max_bytes:
            truncated_by = "bytes"
            break
        used += line_bytes
        kept += 1
    if kept >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    output = "\n".join(lines[:kept])
    return TruncationResult(
        content=output,
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=kept,
        output_bytes=_utf8_len(output),
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the end: as many whole lines as fit, or the end of the last line if it alone is too big."""
    total_bytes = _utf8_len(content)
    total_lines = content.count("\n") + 1
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    lines = content.rsplit("\n", min(max_lines, max_bytes + 2))
    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    last_line_partial = False
    index = len(lines) - 1
    while index >= 0 and len(kept) < max_lines:
        line = lines[index]
        line_bytes = _utf8_len(line) + (1 if kept else 0)
        if used + line_bytes > max_bytes:
            truncated_by = "bytes"
            if not kept:
                tail = _tail_bytes(line, max_bytes)
                kept.append(tail)
                used = _utf8_len(tail)
                last_line_partial = True
            break
        kept.append(line)
        used += line_bytes
        index -= 1
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    kept.reverse()
    output = "\n".join(kept)
    return TruncationResult(
        content=output,
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=_utf8_len(output),
        last_line_partial=last_line_partial,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def _tail_bytes(text: str, max_bytes: int) -> str:
    """The last ``max_bytes`` bytes of ``text``, starting on a character boundary."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "replace")


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> TruncatedLine:
    """Cut one line to ``max_chars`` characters, marking the cut with ``... [truncated]``."""
    if len(line) <= max_chars:
        return TruncatedLine(text=line, was_truncated=False)
    return TruncatedLine(text=f"{line[:max_chars]}... [truncated]", was_truncated=True)
