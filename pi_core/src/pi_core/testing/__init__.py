"""Test kit for pi and its plugins (a pytest plugin, entry point ``pytest11``).

Defines no autouse fixtures: installing pi-coding-agent-core must not change anybody else's test runs.

Fixtures:

- ``pi_llm_server`` — a started :class:`~pi_core.testing.server.LoopbackLLMServer` (Anthropic
  Messages, OpenAI Chat Completions and Responses over real SSE), scripted with ``add(...)``;
- ``pi_agent_dir`` — a temporary ``PI_CODING_AGENT_DIR`` (set in the environment for the test).

Script entries live in :mod:`pi_core.testing.script`; :mod:`pi_core.testing.faux` is an
in-process provider for tests that need no HTTP at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_core.testing.script import (
    HttpError,
    RedactedThinking,
    Text,
    Thinking,
    ToolUse,
    Turn,
    Usage,
    overflow,
    overloaded,
    rate_limited,
    server_error,
    text_turn,
    tool_turn,
)
from pi_core.testing.server import LOOPBACK_API_KEY, LoopbackLLMServer, RecordedRequest

__all__ = [
    "LOOPBACK_API_KEY",
    "HttpError",
    "LoopbackLLMServer",
    "RecordedRequest",
    "RedactedThinking",
    "Text",
    "Thinking",
    "ToolUse",
    "Turn",
    "Usage",
    "overflow",
    "overloaded",
    "pi_agent_dir",
    "pi_llm_server",
    "rate_limited",
    "server_error",
    "text_turn",
    "tool_turn",
]


@pytest.fixture
def pi_llm_server() -> Iterator[LoopbackLLMServer]:
    """A loopback LLM server for this test; add script entries with ``pi_llm_server.add(...)``."""
    with LoopbackLLMServer() as server:
        yield server


@pytest.fixture
def pi_agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty agent directory, exported as ``PI_CODING_AGENT_DIR`` for the duration of the test."""
    path = tmp_path / "agent"
    path.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(path))
    return path
