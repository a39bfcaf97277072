"""The ``ls`` tool: one directory's entries, case-insensitively sorted, ``/`` after directories."""

from __future__ import annotations

import asyncio
import heapq
import os
import stat
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.agent.truncate import DEFAULT_MAX_BYTES
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, cwd_of
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.listing import Notice, listing_result
from pi_builtin_tools.paths import resolve_to_cwd

DEFAULT_LIMIT = 500


class LsParams(ToolParams):
    path: str | None = Field(default=None, description="Directory to list (default: the cwd)")
    limit: float | None = Field(default=None, description="Most entries to return (default: 500)")


DESCRIPTION = (
    "List a directory's contents in alphabetical order, with '/' after directory names. Dotfiles are "
    f"included. Output stops at {DEFAULT_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB, whichever "
    "comes first."
)


def create_ls_tool() -> AgentTool:
    async def execute(
        tool_call_id: str,
        params: LsParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        directory = resolve_to_cwd(params.path or ".", cwd_of(ctx))
        limit = int(params.limit) if params.limit else DEFAULT_LIMIT
        return await abortable(asyncio.to_thread(_list, directory, limit), signal)

    return AgentTool(
        name="ls",
        label="ls",
        description=DESCRIPTION,
        parameters=LsParams,
        execute=execute,
        prompt_snippet="List directory contents",
        render_call=render.render_ls_call,
        render_result=render.render_search_result,
    )


def _list(directory: str, limit: int) -> AgentToolResult:
    if not os.path.exists(directory):
        raise ToolError(f"Path not found: {directory}")
    if not os.path.isdir(directory):
        raise ToolError(f"Not a directory: {directory}")
    entries: list[str] = []
    limit_reached = False
    # The first names in sort order, without holding the directory's whole listing (a folder of a
    # million files): the limit + 1 smallest, again with more when some of them cannot be stat'ed.
    wanted = max(limit, 0) + 1
    while True:
        try:
            with os.scandir(directory) as listing:
                names = heapq.nsmallest(wanted, (entry.name for entry in listing), key=str.lower)
        except OSError as exc:
            raise ToolError(f"Cannot read directory: {exc.strerror or exc}, scandir '{directory}'") from exc
        entries, limit_reached = [], False
        for name in names:
            if len(entries) >= limit:
                limit_reached = True
                break
            try:
                is_dir = stat.S_ISDIR(os.stat(os.path.join(directory, name)).st_mode)
            except OSError:
                continue  # e.g. a broken symlink
            entries.append(name + "/" if is_dir else name)
        if limit_reached or len(names) < wanted:
            break
        wanted *= 2  # entries were skipped: the limit may still be reached further on
    if not entries:
        return AgentToolResult(content=[TextContent(text="(empty directory)")])
    notice = f"{limit} entries limit reached. Use limit={limit * 2} for more"
    return listing_result(entries, Notice(notice, "entryLimitReached", limit) if limit_reached else None)
