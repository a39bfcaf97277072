"""Shared helpers for the resources tests (imported by path: tests have no packages)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult

# The prompt data of pi 0.73.1's built-in tools, as their definitions carry it.
PI_TOOL_PROMPTS: dict[str, tuple[str, list[str]]] = {
    "read": ("Read file contents", ["Use read to examine files instead of cat or sed."]),
    "bash": ("Execute bash commands (ls, grep, find, etc.)", []),
    "edit": (
        "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
        [
            "Use edit for precise changes (edits[].oldText must match exactly)",
            "When changing multiple separate locations in one file, use one edit call with multiple entries"
            " in edits[] instead of multiple edit calls",
            "Each edits[].oldText is matched against the original file, not after earlier edits are applied."
            " Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
            "Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with"
            " large unchanged regions.",
        ],
    ),
    "write": ("Create or overwrite files", ["Use write only for new files or complete rewrites."]),
    "grep": ("Search file contents for patterns (respects .gitignore)", []),
    "find": ("Find files by glob pattern (respects .gitignore)", []),
    "ls": ("List directory contents", []),
}


async def _never_called(*_args: Any) -> AgentToolResult:
    raise AssertionError("the prompt builder must not run tools")


def make_tool(name: str, snippet: str | None = None, guidelines: list[str] | None = None) -> AgentTool:
    return AgentTool(
        name=name,
        label=name,
        description=f"{name} tool",
        parameters={"type": "object", "properties": {}},
        execute=_never_called,
        prompt_snippet=snippet,
        prompt_guidelines=list(guidelines or []),
    )


def pi_tools(*names: str) -> list[AgentTool]:
    return [make_tool(n, *PI_TOOL_PROMPTS[n]) for n in names]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# The documentation block: its header line and the "- " bullets right under it.
_DOCS_BLOCK = re.compile(r"^Pi documentation \(.*(?:\n- .*)*", re.MULTILINE)


def mask_docs_block(prompt: str) -> str:
    """``prompt`` with its documentation block replaced by ``<DOCS>``.

    pi's block names pi's own doc files and ours names this project's, so the two prompts are
    compared with the block masked on both sides; everything else must match byte for byte.
    """
    masked, count = _DOCS_BLOCK.subn("<DOCS>", prompt)
    assert count <= 1, "more than one documentation block"
    return masked
