"""Side by side with the TypeScript pi: the loop emits the same event sequence for the same script."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_core.agent.agent import Agent, AgentState
from pi_core.agent.events import AgentEvent
from pi_core.agent.loop import AgentLoopConfig
from pi_core.ai.builtin_providers import register_builtin_api_providers
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn

from tests.fixtures.real_pi import PI073_MISSING, pi073

PI = pi073()
API = "openai-completions"


def _pi_argv() -> list[str]:
    assert PI is not None
    return PI.argv()


pytestmark = [
    pytest.mark.conformance,
    pytest.mark.slow,
    pytest.mark.skipif(PI is None, reason=PI073_MISSING),
]


def script(server: LoopbackLLMServer) -> None:
    server.add(
        tool_turn(
            ToolUse("ls", {"path": "."}, id="call_1"), ToolUse("nope", {}, id="call_2"), text="Looking"
        ),
        text_turn("done"),
    )


def key(event: dict[str, Any]) -> str:
    kind = event["type"]
    if kind in ("message_start", "message_end"):
        return f"{kind}:{event['message']['role']}"
    if kind.startswith("tool_execution"):
        return f"{kind}:{event['toolCallId']}:{event.get('isError')}"
    if kind == "message_update":
        return f"{kind}:{event['assistantMessageEvent']['type']}"
    return kind


async def test_event_sequence_matches_typescript_pi(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    provider = {
        "baseUrl": pi_llm_server.base_url(API),
        "api": API,
        "apiKey": "k-conf",
        "models": [{"id": "m1"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
    script(pi_llm_server)
    env = {**os.environ, "HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(agent_dir)}
    done = await asyncio.to_thread(
        subprocess.run,
        [*_pi_argv(), "--mode", "json", "-p", "list", "--model", "loop/m1"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # The TS default tools (read, bash, edit, write) do not include "ls": both calls are unknown tools.
    expected = [key(json.loads(line)) for line in done.stdout.splitlines()]
    expected = [k for k in expected if k != "session"]

    register_builtin_api_providers()
    script(pi_llm_server)
    model = pi_llm_server.model(API, id="m1", provider="loop")
    agent = Agent(AgentState(model=model), AgentLoopConfig(model=model, api_key="k-conf", max_retries=0))
    seen: list[str] = []

    def record(event: AgentEvent, signal: Any) -> None:
        seen.append(key(event.to_json_dict()))

    agent.subscribe(record)
    await agent.prompt("list")
    assert seen == expected
