"""The ``write`` tool: create or overwrite a file, creating parent directories."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, check_aborted, cwd_of, os_error_text, special_file
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.mutation_queue import file_mutation_queue
from pi_builtin_tools.paths import resolve_to_cwd


class WriteParams(ToolParams):
    path: str = Field(description="Path of the file to write, relative or absolute")
    content: str = Field(description="The complete new content of the file")


DESCRIPTION = (
    "Write content to a file: the file is created if missing and overwritten if present. Missing parent "
    "directories are created."
)


def create_write_tool() -> AgentTool:
    async def execute(
        tool_call_id: str,
        params: WriteParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        absolute = resolve_to_cwd(params.path, cwd_of(ctx))
        async with file_mutation_queue(absolute):
            check_aborted(signal)
            await abortable(asyncio.to_thread(_write, absolute, params.content), signal)
        # pi reports the length in UTF-16 code units and calls it bytes; the model sees the same number.
        units = len(params.content.encode("utf-16-le", "surrogatepass")) // 2
        return AgentToolResult(
            content=[TextContent(text=f"Successfully wrote {units} bytes to {params.path}")]
        )

    return AgentTool(
        name="write",
        label="write",
        description=DESCRIPTION,
        parameters=WriteParams,
        execute=execute,
        prompt_snippet="Create or overwrite files",
        prompt_guidelines=["Keep write for new files and for rewriting a file as a whole."],
        render_call=render.render_write_call,
        render_result=render.render_write_result,
    )


def _write(absolute: str, content: str) -> None:
    kind = special_file(absolute)
    if kind is not None:
        raise ToolError(f"Cannot write {absolute}: it is {kind}, not a file. Use bash to work with it.")
    parent = os.path.dirname(absolute)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as exc:
        raise ToolError(os_error_text(exc, "mkdir", exc.filename or parent)) from exc
    try:
        with open(absolute, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
    except IsADirectoryError as exc:
        raise ToolError(f"EISDIR: illegal operation on a directory, open '{absolute}'") from exc
    except OSError as exc:
        raise ToolError(os_error_text(exc, "open", absolute)) from exc
