"""A ``todo`` tool for the model and a ``/todos`` command for you.

The list lives in the ``details`` of the tool's results, so it is part of the session: it is rebuilt
from the current branch on every call, and after ``/fork`` or ``/tree`` it is the list of that point.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError
from pi_core.ai.messages import TextContent
from pi_core.plugins.context import CommandContext, ExtensionContext

from pi_core import hookimpl

# A JSON schema rather than a pydantic model: building a model class costs start-up time (pi plugins).
PARAMETERS = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["list", "add", "toggle", "clear"]},
        "text": {"type": "string", "description": "Text of the todo (add)"},
        "id": {"type": "integer", "description": "Id of the todo (toggle)"},
    },
    "required": ["action"],
}


def todos_on_branch(branch: Sequence[Any]) -> list[dict[str, Any]]:
    """The list as the last ``todo`` result on this branch left it."""
    for entry in reversed(branch):
        message = getattr(entry, "message", None) if entry.type == "message" else None
        if message is not None and message.role == "toolResult" and message.tool_name == "todo":
            details = message.details if isinstance(message.details, dict) else {}
            if isinstance(details.get("todos"), list):
                return [dict(item) for item in details["todos"]]
    return []


def render(todos: Sequence[dict[str, Any]]) -> str:
    if not todos:
        return "No todos."
    return "\n".join(f"[{'x' if t['done'] else ' '}] #{t['id']} {t['text']}" for t in todos)


async def run_todo(
    tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext
) -> AgentToolResult:
    todos = todos_on_branch(ctx.session_manager.get_branch())
    action, text, number = params["action"], params.get("text"), params.get("id")
    if action == "add":
        if not text:
            raise ToolError("add needs a text")
        todos.append({"id": max((t["id"] for t in todos), default=0) + 1, "text": text, "done": False})
    elif action == "toggle":
        match = next((t for t in todos if t["id"] == number), None)
        if match is None:
            raise ToolError(f"no todo #{number}")
        match["done"] = not match["done"]
    elif action == "clear":
        todos = []
    return AgentToolResult(content=[TextContent(text=render(todos))], details={"todos": todos})


TODO_TOOL = AgentTool(
    name="todo",
    label="Todo",
    description="Keep a todo list for this task: list, add (text), toggle (id) or clear.",
    parameters=PARAMETERS,
    execute=run_todo,
    execution_mode="sequential",  # each call builds on the list the previous one left
    prompt_snippet="todo: keep a todo list for multi-step work",
    prompt_guidelines=["Use todo to plan multi-step work and tick items off as they are done."],
)


async def show_todos(args: str, ctx: CommandContext) -> None:
    ctx.ui.notify(render(todos_on_branch(ctx.session_manager.get_branch())), "info")


@hookimpl
def register_tools(register: Callable[[AgentTool], None]) -> None:
    register(TODO_TOOL)


@hookimpl
def register_commands(register: Callable[..., None]) -> None:
    register("todos", show_todos, description="Show the todo list of this branch")
