"""The loopback server speaks the wire formats; checked here with plain HTTP (no SDK)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from pi_core.testing import HttpError, LoopbackLLMServer, Text, Thinking, ToolUse, Turn, overflow, text_turn
from pi_core.testing.script import split


def post(server: LoopbackLLMServer, path: str, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        server.url + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def events(text: str) -> list[tuple[str | None, str]]:
    out = []
    for frame in text.strip().split("\n\n"):
        name = None
        data = ""
        for line in frame.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        out.append((name, data))
    return out


def test_split_fragments() -> None:
    assert split("abcdefg", 3) == ["abc", "def", "g"]
    assert split("ab", 5) == ["a", "b"]
    assert split("", 3) == []


def test_anthropic_wire_format(pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(
        Turn(blocks=[Thinking("hm", signature="s"), Text("hi"), ToolUse("ls", {"p": 1}, id="t1")])
    )
    status, body = post(pi_llm_server, "/v1/messages", {"model": "claude-x", "stream": True})
    assert status == 200
    names = [name for name, _ in events(body)]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    data = [json.loads(d) for _, d in events(body)]
    assert data[0]["message"]["model"] == "claude-x"
    deltas = [d["delta"] for d in data if d["type"] == "content_block_delta"]
    assert {"type": "signature_delta", "signature": "s"} in deltas
    assert "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta") == '{"p": 1}'
    assert data[-2]["delta"]["stop_reason"] == "tool_use"
    assert pi_llm_server.requests[0].body == {"model": "claude-x", "stream": True}
    assert pi_llm_server.requests[0].api == "anthropic-messages"


def test_completions_wire_format_with_usage(pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(text_turn("hello"))
    _, body = post(
        pi_llm_server,
        "/v1/chat/completions",
        {"model": "m", "stream": True, "stream_options": {"include_usage": True}},
    )
    frames = [d for _, d in events(body)]
    assert frames[-1] == "[DONE]"
    usage = json.loads(frames[-2])
    assert usage["choices"] == [] and usage["usage"]["prompt_tokens"] == 10
    assert json.loads(frames[-3])["choices"][0]["finish_reason"] == "stop"


def test_responses_wire_format(pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(text_turn("hello"))
    _, body = post(pi_llm_server, "/v1/responses", {"model": "m", "stream": True})
    names = [name for name, _ in events(body)]
    assert names[0] == "response.created" and names[-1] == "response.completed"
    assert "response.output_text.delta" in names


@pytest.mark.parametrize(
    ("path", "api", "needle"),
    [
        ("/v1/messages", "anthropic-messages", "prompt is too long"),
        ("/v1/chat/completions", "openai-completions", "maximum context length is 128000 tokens"),
        ("/v1/responses", "openai-responses", "exceeds the context window"),
    ],
)
def test_overflow_errors_per_api(pi_llm_server: LoopbackLLMServer, path: str, api: str, needle: str) -> None:
    pi_llm_server.add(overflow(api))
    status, body = post(pi_llm_server, path, {"model": "m"})
    assert status == 400 and needle in body


def test_http_error_and_empty_script(pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(HttpError(529, "Overloaded", "overloaded_error"))
    status, body = post(pi_llm_server, "/v1/messages", {})
    assert status == 529 and json.loads(body)["error"]["type"] == "overloaded_error"
    status, body = post(pi_llm_server, "/v1/messages", {})
    assert status == 500 and "no scripted response left" in body
    status, _ = post(pi_llm_server, "/v2/other", {})
    assert status == 404
