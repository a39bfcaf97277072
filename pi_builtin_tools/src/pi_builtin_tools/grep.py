"""The ``grep`` tool: ripgrep (JSON output, stopped at the match limit) or a pure-Python search."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    truncate_line,
)
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, check_aborted, cwd_of
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.binaries import find_rg
from pi_builtin_tools.globmatch import compile_glob
from pi_builtin_tools.listing import Notice, listing_result
from pi_builtin_tools.longlines import LongMatch, head_of_line, iter_line_windows, rg_json_lines
from pi_builtin_tools.paths import resolve_to_cwd
from pi_builtin_tools.ripgrep import run_ripgrep
from pi_builtin_tools.walk import walk_files

DEFAULT_LIMIT = 100


class GrepParams(ToolParams):
    pattern: str = Field(description="What to search for: a regular expression, or plain text with literal")
    path: str | None = Field(default=None, description="Directory or file to search (default: the cwd)")
    glob: str | None = Field(default=None, description="Only search files matching this glob, e.g. '*.py'")
    ignoreCase: bool | None = Field(default=None, description="Match case-insensitively (default: false)")
    literal: bool | None = Field(default=None, description="Treat the pattern as plain text (default: false)")
    context: float | None = Field(default=None, description="Lines to show around each match (default: 0)")
    limit: float | None = Field(default=None, description="Most matches to return (default: 100)")


DESCRIPTION = (
    "Search the contents of files for a pattern and get the matching lines with their file paths and "
    f"line numbers. Files ignored by .gitignore are skipped. Output stops at {DEFAULT_LIMIT} matches or "
    f"{DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; lines longer than {GREP_MAX_LINE_LENGTH} "
    "characters are cut."
)


@dataclass
class _Match:
    path: str
    line: int
    text: str | None
    #: Only the start of the line (``text``) is known: it was too long to keep whole.
    long: bool = False


@dataclass
class _Search:
    matches: list[_Match] = field(default_factory=list)
    limit_reached: bool = False


def create_grep_tool() -> AgentTool:
    async def execute(
        tool_call_id: str,
        params: GrepParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        check_aborted(signal)
        search_path = resolve_to_cwd(params.path or ".", cwd_of(ctx))
        try:
            is_dir = stat.S_ISDIR(os.stat(search_path).st_mode)
        except OSError as exc:
            raise ToolError(f"Path not found: {search_path}") from exc
        limit = max(1, int(params.limit) if params.limit else DEFAULT_LIMIT)
        context = int(params.context) if params.context and params.context > 0 else 0
        rg = find_rg(getattr(ctx, "agent_dir", None))
        if rg is not None:
            search = await _search_rg(rg, params, search_path, limit, signal)
        else:
            search = await abortable(asyncio.to_thread(_search_python, params, search_path, limit), signal)
        check_aborted(signal)
        return await asyncio.to_thread(_format, search, search_path, is_dir, context, limit)

    return AgentTool(
        name="grep",
        label="grep",
        description=DESCRIPTION,
        parameters=GrepParams,
        execute=execute,
        prompt_snippet="Search file contents for patterns (respects .gitignore)",
        render_call=render.render_grep_call,
        render_result=render.render_search_result,
    )


async def _search_rg(
    rg: str, params: GrepParams, search_path: str, limit: int, signal: AbortSignal | None
) -> _Search:
    args = ["--json", "--line-number", "--color=never", "--hidden"]
    if params.ignoreCase:
        args.append("--ignore-case")
    if params.literal:
        args.append("--fixed-strings")
    if params.glob:
        args += ["--glob", params.glob]
    args += ["--", params.pattern, search_path]
    search = _Search()

    async def read(stdout: asyncio.StreamReader) -> bool:
        async for line in rg_json_lines(stdout):
            if isinstance(line, LongMatch):  # a match in a line too long to hold: its start is shown
                if line.line_number is not None:
                    search.matches.append(_Match(line.path, line.line_number, line.head, long=True))
            elif line.startswith(b'{"type":"match"'):  # only match events matter: no JSON for the rest
                data = json.loads(line)["data"]
                path = data.get("path", {}).get("text")
                number = data.get("line_number")
                if path is not None and isinstance(number, int):
                    search.matches.append(_Match(path, number, data.get("lines", {}).get("text")))
            else:
                continue
            if len(search.matches) >= limit:
                search.limit_reached = True
                return True
        return False

    run = await run_ripgrep(rg, args, signal, read)
    if not run.stopped and run.failed:
        raise run.error()
    return search


def _search_python(params: GrepParams, search_path: str, limit: int) -> _Search:
    flags = re.IGNORECASE if params.ignoreCase else 0
    try:
        regex = re.compile(re.escape(params.pattern) if params.literal else params.pattern, flags)
    except re.error as exc:
        raise ToolError(f"regex parse error: {params.pattern}\nerror: {exc}") from exc
    if os.path.isdir(search_path):
        glob = compile_glob(params.glob) if params.glob else None
        full = bool(params.glob and "/" in params.glob)
        files = []
        for path, _ in walk_files(search_path):
            rel = os.path.relpath(path, search_path).replace(os.sep, "/")
            if glob is None or glob.match(rel if full else os.path.basename(path)):
                files.append(path)
    else:
        files = [search_path]
    search = _Search()
    for path in files:
        try:
            with open(path, "rb") as handle:
                if b"\x00" in handle.read(8000):
                    continue  # binary, as ripgrep skips it
                handle.seek(0)
                # Line by line, a long line window by window: memory stays bounded whatever the
                # file and its lines.
                matched, head = 0, ""
                for number, raw, first in iter_line_windows(handle):
                    if number == matched:
                        continue  # the line matched in an earlier window
                    line = raw.decode("utf-8", "replace")
                    if first:
                        head = line
                    if regex.search(line):
                        matched = number
                        search.matches.append(_Match(path, number, head + "\n", long=not first))
                        if len(search.matches) >= limit:
                            search.limit_reached = True
                            return search
        except OSError:
            continue
    return search


#: Files up to this size are read whole for context lines (lines split as pi splits them, a lone
#: ``\r`` included); a larger one is streamed, keeping only the lines shown, each cut at LINE_CAP.
_WHOLE_FILE_LIMIT = 8 << 20


def _read_lines(path: str, numbers: set[int]) -> tuple[dict[int, str], int]:
    """The lines ``numbers`` of ``path`` (1-based) and its line count; ``({}, 0)`` if unreadable."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size <= _WHOLE_FILE_LIMIT:
                content = handle.read().decode("utf-8", "replace")
                split = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
                return {n: split[n - 1] for n in numbers if 0 < n <= len(split)}, len(split)
            kept: dict[int, str] = {}
            count = 0
            while (raw := head_of_line(handle)) is not None:
                count += 1
                if count in numbers:
                    kept[count] = raw.decode("utf-8", "replace").removesuffix("\r")
            size = os.fstat(handle.fileno()).st_size
            ends_with_newline = size > 0 and os.pread(handle.fileno(), 1, size - 1) == b"\n"
            return kept, count + ends_with_newline  # as split(): "" after a last newline is a line
    except OSError:
        return {}, 0


def _format(search: _Search, search_path: str, is_dir: bool, context: int, limit: int) -> AgentToolResult:
    if not search.matches:
        return AgentToolResult(content=[TextContent(text="No matches found")])
    lines_truncated = False
    cache: dict[str, tuple[dict[int, str], int]] = {}
    wanted: dict[str, set[int]] = {}
    for match in search.matches:
        if context or match.text is None:
            wanted.setdefault(match.path, set()).update(range(match.line - context, match.line + context + 1))

    def shown(path: str) -> str:
        if is_dir:
            rel = os.path.relpath(path, search_path)
            if rel and not rel.startswith(".."):
                return rel.replace(os.sep, "/")
        return os.path.basename(path)

    def file_lines(path: str) -> tuple[dict[int, str], int]:
        """The lines of ``path`` that the matches show (by number) and how many lines it has."""
        if path not in cache:
            cache[path] = _read_lines(path, wanted.get(path, set()))
        return cache[path]

    out: list[str] = []
    for match in search.matches:
        rel = shown(match.path)
        if context == 0 and match.text is not None:
            text = match.text.replace("\r\n", "\n").replace("\r", "").removesuffix("\n")
            cut = truncate_line(text)
            lines_truncated |= cut.was_truncated
            out.append(f"{rel}:{match.line}: {cut.text}")
            continue
        lines, count = file_lines(match.path)
        if not count:
            out.append(f"{rel}:{match.line}: (unable to read file)")
            continue
        start = max(1, match.line - context) if context else match.line
        end = min(count, match.line + context) if context else match.line
        for current in range(start, end + 1):
            raw = lines.get(current, "")
            cut = truncate_line(raw.replace("\r", ""))
            lines_truncated |= cut.was_truncated
            sep = ":" if current == match.line else "-"
            out.append(f"{rel}{sep}{current}{sep} {cut.text}")
    match_limit = f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
    long_lines = f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
    return listing_result(
        out,
        Notice(match_limit, "matchLimitReached", limit) if search.limit_reached else None,
        Notice(long_lines, "linesTruncated", True) if lines_truncated else None,
    )
