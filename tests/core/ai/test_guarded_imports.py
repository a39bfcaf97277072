"""Background imports that requests wait for (``pi_core.ai.sdk_import.import_in_background``).

The openai SDK looks ``httpx`` up in ``sys.modules`` during a request; while the MCP plugin's
worker thread is still importing it, the SDK met a module without its attributes and the run
failed. Requests now wait for the guarded part of such an import.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pi_core.ai.messages import UserMessage
from pi_core.ai.provider import Context, StreamOptions
from pi_core.ai.sdk_import import import_in_background, settle_guarded_imports
from pi_core.ai.stream import stream_simple
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, text_turn

SLOW_MODULE = "import time\ntime.sleep({delay})\nFINISHED = True\n"


@pytest.fixture
def slow_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, float]]:
    """Modules ``name -> seconds`` to create; each sleeps that long while it is imported."""
    made: dict[str, float] = {}
    monkeypatch.syspath_prepend(str(tmp_path))
    yield made
    for name in made:
        sys.modules.pop(name, None)


def _write(tmp_path: Path, made: dict[str, float], name: str, delay: float) -> str:
    (tmp_path / f"{name}.py").write_text(SLOW_MODULE.format(delay=delay))
    made[name] = delay
    return name


def _finished(name: str) -> bool:
    return getattr(sys.modules.get(name), "FINISHED", False) is True


async def test_settle_waits_for_the_guarded_part_only(tmp_path: Path, slow_modules: dict[str, float]) -> None:
    gate = _write(tmp_path, slow_modules, "pi_test_guard_gate", 0.3)
    rest = _write(tmp_path, slow_modules, "pi_test_guard_rest", 1.5)
    future = import_in_background([rest], requests_wait_for=[gate])
    await settle_guarded_imports()
    assert _finished(gate)
    assert not future.done()  # the rest goes on importing; nobody waits for it
    await asyncio.wrap_future(future)
    assert _finished(rest)
    await settle_guarded_imports()  # nothing left: returns at once


async def test_a_failed_import_is_the_callers_and_releases_requests() -> None:
    future = import_in_background(["pi_test_guard_missing_rest"], requests_wait_for=["pi_test_guard_missing"])
    await asyncio.wait_for(settle_guarded_imports(), 10)
    with pytest.raises(ImportError):
        await asyncio.wrap_future(future)


async def test_a_request_goes_out_only_after_the_guarded_import(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, slow_modules: dict[str, float]
) -> None:
    from pi_core.ai.builtin_providers import register_builtin_api_providers

    register_builtin_api_providers()
    gate = _write(tmp_path, slow_modules, "pi_test_guard_request", 0.8)
    pi_llm_server.add(text_turn("ok"))
    import_in_background([], requests_wait_for=[gate])
    context = Context(system_prompt="", messages=[UserMessage(content="hi")])
    options = StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0)

    async def ask() -> str:
        response = stream_simple(pi_llm_server.model("openai-completions"), context, options)
        async for _ in response:
            pass
        return (await response.result()).stop_reason

    task = asyncio.create_task(ask())
    while not _finished(gate):
        assert not pi_llm_server.requests, "the request went out while the guarded import ran"
        await asyncio.sleep(0.01)
    assert await asyncio.wait_for(task, 30) == "stop"
    assert len(pi_llm_server.requests) == 1
