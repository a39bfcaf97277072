"""Side by side with the TypeScript pi: the same prompt produces the same request body per API."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.messages import TextContent, UserMessage
from pi_core.ai.provider import Context, StreamOptions
from pi_core.ai.stream import complete_simple
from pi_core.testing import LoopbackLLMServer, text_turn

from tests.fixtures.real_pi import PI073_MISSING, pi073

PI = pi073()


def _pi_argv() -> list[str]:
    assert PI is not None
    return PI.argv()


pytestmark = [
    pytest.mark.conformance,
    pytest.mark.slow,
    pytest.mark.skipif(PI is None, reason=PI073_MISSING),
]


def ts_request(server: LoopbackLLMServer, api: str, tmp_path: Path) -> dict[str, Any]:
    agent = tmp_path / "agent"
    agent.mkdir()
    provider = {
        "baseUrl": server.base_url(api),
        "api": api,
        "apiKey": "k-conformance",
        "models": [{"id": "m1", "reasoning": True, "input": ["text", "image"]}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
    env = {**os.environ, "HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(agent)}
    server.add(text_turn("ok"))
    args = [
        "-p",
        "hi there",
        "--model",
        "loop/m1",
        "--no-tools",
        "--system-prompt",
        "SYS",
        "--thinking",
        "medium",
    ]
    subprocess.run([*_pi_argv(), *args], env=env, cwd=tmp_path, capture_output=True, timeout=120, check=True)
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return body


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions", "openai-responses"])
async def test_request_body_matches_typescript_pi(
    pi_llm_server: LoopbackLLMServer, api: str, tmp_path: Path
) -> None:
    expected = await asyncio.to_thread(ts_request, pi_llm_server, api, tmp_path)
    pi_llm_server.add(text_turn("ok"))
    model = pi_llm_server.model(api, id="m1", provider="loop", reasoning=True, input=["text", "image"])
    # pi appends the date and cwd to a custom system prompt; send the same text.
    system = expected["system"][0]["text"] if api == "anthropic-messages" else None
    if system is None:
        first = expected["messages" if api == "openai-completions" else "input"][0]
        system = first["content"]
    session = expected.get("prompt_cache_key")
    context = Context(system_prompt=system, messages=[UserMessage(content=[TextContent(text="hi there")])])
    options = StreamOptions(api_key="k-conformance", reasoning="medium", session_id=session, max_retries=0)
    message = await complete_simple(model, context, options)
    assert message.stop_reason == "stop", message.error_message
    assert pi_llm_server.requests[-1].body == expected
