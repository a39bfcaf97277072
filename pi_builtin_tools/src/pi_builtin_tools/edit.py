"""The ``edit`` tool: exact, unique, non-overlapping replacements in one file, with a diff in details."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError, ToolUpdate
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import TextContent
from pydantic import ConfigDict, Field

from pi_builtin_tools import render
from pi_builtin_tools._common import abortable, check_aborted, cwd_of, error_code, special_file
from pi_builtin_tools._schema import ToolParams
from pi_builtin_tools.edit_diff import (
    Edit,
    apply_edits,
    detect_line_ending,
    generate_diff,
    normalize_to_lf,
    restore_line_endings,
)
from pi_builtin_tools.mutation_queue import file_mutation_queue
from pi_builtin_tools.paths import resolve_to_cwd


class Replacement(ToolParams):
    model_config = ConfigDict(extra="forbid")

    oldText: str = Field(
        description="Exact text to replace. It must occur exactly once in the original file and must not "
        "overlap any other edits[].oldText of this call."
    )
    newText: str = Field(description="Text that replaces oldText.")


class EditParams(ToolParams):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="Path of the file to edit, relative or absolute")
    edits: list[Replacement] = Field(
        description="One or more replacements. Every edit is matched against the original file, not "
        "against the result of earlier edits. Edits must not overlap or nest; if two changes touch the "
        "same block or neighbouring lines, make them one edit."
    )


DESCRIPTION = (
    "Edit one file by exact text replacement. Each edits[].oldText must match one unique region of the "
    "original file, and no two regions may overlap. Changes to the same block or to nearby lines belong "
    "in a single edit. Do not pad oldText with large unchanged regions to bridge distant changes."
)

#: The tool's rules for the system prompt (the two points pi 1.6.0 makes, in our words).
GUIDELINES = [
    "Reach for edit for targeted changes, and put all changes to one file into a single call.",
    "Every edits[].oldText has to match the original file exactly and only once. Keep each one short "
    "and clear of the others; fold neighbouring changes into one edit instead of padding it with "
    "unchanged lines.",
]


def prepare_edit_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """Accept what models actually send: ``edits`` as a JSON string, or the old top-level shape."""
    if not isinstance(args, dict):
        return args
    args = dict(args)
    if isinstance(args.get("edits"), str):
        try:
            parsed = json.loads(args["edits"])
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            args["edits"] = parsed
    old, new = args.get("oldText"), args.get("newText")
    if not isinstance(old, str) or not isinstance(new, str):
        return args
    edits = list(args["edits"]) if isinstance(args.get("edits"), list) else []
    edits.append({"oldText": old, "newText": new})
    rest = {k: v for k, v in args.items() if k not in ("oldText", "newText")}
    return {**rest, "edits": edits}


def create_edit_tool() -> AgentTool:
    async def execute(
        tool_call_id: str,
        params: EditParams,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
    ) -> AgentToolResult:
        if not params.edits:
            raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
        absolute = resolve_to_cwd(params.path, cwd_of(ctx))
        edits = [Edit(e.oldText, e.newText) for e in params.edits]
        async with file_mutation_queue(absolute):
            check_aborted(signal)
            return await abortable(asyncio.to_thread(_edit_file, absolute, params.path, edits), signal)

    return AgentTool(
        name="edit",
        label="edit",
        description=DESCRIPTION,
        parameters=EditParams,
        execute=execute,
        prompt_snippet="Change files by exact text replacement; one call can carry several separate "
        "replacements",
        prompt_guidelines=GUIDELINES,
        prepare_arguments=prepare_edit_arguments,
        render_call=render.render_edit_call,
        render_result=render.render_edit_result,
    )


def _edit_file(absolute: str, path: str, edits: list[Edit]) -> AgentToolResult:
    if not os.path.exists(absolute):
        raise ToolError(f"Could not edit file: {path}. Error code: ENOENT.")
    if not os.access(absolute, os.R_OK | os.W_OK):
        raise ToolError(f"Could not edit file: {path}. Error code: EACCES.")
    kind = special_file(absolute)
    if kind is not None:
        raise ToolError(f"Could not edit file: {path}. It is {kind}, not a file. Use bash to work with it.")
    try:
        with open(absolute, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise ToolError(f"Could not edit file: {path}. Error code: {error_code(exc)}.") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # pi would decode with replacement characters and write them back, destroying the bytes.
        raise ToolError(
            f"Could not edit file: {path}. It is not valid UTF-8 text (invalid byte at offset {exc.start}); "
            "editing it would corrupt it. Use bash to change binary or non-UTF-8 files."
        ) from exc
    bom = ""
    if text.startswith("\ufeff"):
        bom, text = "\ufeff", text[1:]
    ending = detect_line_ending(text)
    applied = apply_edits(normalize_to_lf(text), edits, path)
    with open(absolute, "wb") as handle:
        handle.write((bom + restore_line_endings(applied.new, ending)).encode("utf-8", "surrogatepass"))
    diff, first_changed = generate_diff(
        applied.base, applied.new, known_head=applied.head, known_tail=applied.tail
    )
    details: dict[str, Any] = {"diff": diff}
    if first_changed is not None:
        details["firstChangedLine"] = first_changed
    return AgentToolResult(
        content=[TextContent(text=f"Successfully replaced {len(edits)} block(s) in {path}.")],
        details=details,
    )
