from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pi_core.agent.tools import AgentTool, AgentToolResult, ToolUpdate
from pi_core.ai.abort import AbortSignal

from pi_builtin_tools import create_all_tools

RunTool = Callable[..., Awaitable[AgentToolResult]]


@pytest.fixture
def ctx(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(cwd=str(tmp_path), model=None)


@pytest.fixture
def tools() -> dict[str, AgentTool]:
    return {tool.name: tool for tool in create_all_tools()}


@pytest.fixture
def run(tools: dict[str, AgentTool], ctx: SimpleNamespace) -> RunTool:
    """Prepare, validate and execute a tool the way the agent loop does."""

    async def call(
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: ToolUpdate | None = None,
        context: Any = None,
    ) -> AgentToolResult:
        tool = tools[name]
        if tool.prepare_arguments is not None:
            args = tool.prepare_arguments(args)
        assert not isinstance(tool.parameters, dict)
        params = tool.parameters.model_validate(args)
        return await tool.execute("call-1", params, signal, on_update, context or ctx)

    return call
