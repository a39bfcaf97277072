"""A ``subagent`` tool: hand a self-contained task to a child pi session and get its answer back.

The child is ``pi -p --no-session`` in the same project with the same model, its own fresh context
and its own tools (read-only ones unless the call asks for others). Only its final answer returns
to the parent, which keeps the parent's context small. Aborting the parent's run kills the child.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError
from pi_core.ai.messages import TextContent
from pi_core.plugins.context import ToolContext

from pi_core import hookimpl

DEFAULT_TOOLS = ["read", "grep", "find", "ls"]
TIMEOUT_S = 600


# A JSON schema rather than a pydantic model: building a model class costs start-up time (pi plugins).
PARAMETERS = {
    "type": "object",
    "properties": {
        "task": {
            "type": "string",
            "description": "The complete task; the subagent sees nothing of this chat",
        },
        "tools": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Its tools (default: read-only)",
        },
    },
    "required": ["task"],
}


def pi_command() -> str:
    """The ``pi`` next to this interpreter (the one running now), else the one on PATH."""
    beside = Path(sys.executable).with_name("pi")
    return str(beside) if beside.exists() else (shutil.which("pi") or "pi")


async def run_subagent(
    tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ToolContext
) -> AgentToolResult:
    tools = list(params.get("tools") or DEFAULT_TOOLS)
    args = ["-p", "--no-session", "--no-extensions", "--tools", ",".join(tools)]
    model = ctx.model
    if model is not None:
        args += ["--model", f"{model.provider}/{model.id}"]
    if on_update is not None:
        on_update(AgentToolResult(content=[TextContent(text="subagent working…")]))
    done = await ctx.exec(
        pi_command(), [*args, str(params["task"])], signal=signal, timeout=TIMEOUT_S, cwd=ctx.cwd
    )
    if done.killed:
        raise ToolError("The subagent was stopped (aborted or out of time)")
    answer = done.stdout.strip()
    if done.code != 0:
        raise ToolError(f"The subagent failed (exit {done.code}): {done.stderr.strip() or answer}")
    return AgentToolResult(
        content=[TextContent(text=answer or "(the subagent gave no answer)")],
        details={"tools": tools, "exitCode": done.code},
    )


SUBAGENT_TOOL = AgentTool(
    name="subagent",
    label="Subagent",
    description=(
        "Give a self-contained task to a separate agent with a fresh context and get its final answer."
        " Use it for research or review that would fill this conversation with detail."
    ),
    parameters=PARAMETERS,
    execute=run_subagent,
    prompt_snippet="subagent: delegate a self-contained task to a fresh agent and get its answer",
)


@hookimpl
def register_tools(register: Callable[[AgentTool], None]) -> None:
    register(SUBAGENT_TOOL)
