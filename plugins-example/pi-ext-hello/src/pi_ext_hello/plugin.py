"""Entry point of pi-ext-hello (group ``pi``, name ``hello``): a tool, a command and a flag."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.messages import TextContent

from pi_core import hookimpl

PARAMETERS = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Who to greet"}},
    "required": ["name"],
}


async def say_hello(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> AgentToolResult:
    name = params["name"]
    return AgentToolResult(content=[TextContent(text=f"Hello, {name}!")], details={"greeted": name})


HELLO_TOOL = AgentTool(
    name="hello",
    label="Hello",
    description="Greet someone by name.",
    parameters=PARAMETERS,
    execute=say_hello,
    prompt_snippet="hello: greet someone by name",
)


async def hello_command(args: str, ctx: Any) -> None:
    ctx.ui.notify(f"Hello, {args.strip() or 'world'}!")


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    register(HELLO_TOOL)


@hookimpl
def register_commands(register: Callable[..., None]) -> None:
    register("hello", hello_command, description="Say hello")


@hookimpl
def register_flags(register: Callable[..., None]) -> None:
    register("hello-name", type="string", description="Name the hello plugin greets by default")
