"""Test kit for pi and its plugins (a pytest plugin, entry point ``pytest11``).

Defines no autouse fixtures: installing pi-coding-agent-core must not change anybody else's test runs.

Fixtures:

- ``pi_llm_server`` — a started :class:`~pi_core.testing.server.LoopbackLLMServer` (Anthropic
  Messages, OpenAI Chat Completions and Responses over real SSE), scripted with ``add(...)``;
- ``pi_agent_dir`` — a temporary ``PI_CODING_AGENT_DIR`` (set in the environment for the test).

Script entries live in :mod:`pi_core.testing.script`; :mod:`pi_core.testing.faux` is an
in-process provider for tests that need no HTTP at all; :class:`pi_core.testing.session.PiSession`
runs a whole session with your plugins.

``async def`` tests run without any async plugin: when neither pytest-asyncio nor anyio handles
them, this plugin runs each one in a fresh event loop (install ``pi-coding-agent-core[testing]``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run an ``async def`` test in a fresh event loop when no async plugin took it."""
    function: Any = pyfuncitem.obj
    if not inspect.iscoroutinefunction(function):
        return None
    manager = pyfuncitem.config.pluginmanager
    if manager.hasplugin("asyncio") or pyfuncitem.get_closest_marker("anyio") is not None:
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(function(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True
