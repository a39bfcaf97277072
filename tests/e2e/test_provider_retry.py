"""Transient provider failures are retried the same way in every dialect (real pi, real SDKs).

One ``pi --mode rpc`` per dialect; each prompt meets one scripted failure, then a good answer. With
the default settings (SDK retries off, as in pi 1.6.0) every failure costs exactly one extra request
and shows as pi's own ``auto_retry_start``/``auto_retry_end``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import HttpError, Text, Turn, overloaded, rate_limited, text_turn
from pi_core.testing.script import ScriptEntry

if TYPE_CHECKING:
    from conftest import PiEnv

FAILURES: dict[str, ScriptEntry] = {
    "dropped mid-stream": Turn(blocks=[Text("half an ans")], drop=True),
    "dropped before any content": Turn(blocks=[], drop=True),
    "cut at an event boundary": Turn(blocks=[Text("half an ans")], cut=True),
    "overloaded mid-stream": Turn(blocks=[Text("half")], stream_error=overloaded()),
    "502": HttpError(502, "Bad gateway", "api_error"),
    "503": HttpError(503, "Service Unavailable", "api_error"),
    "504": HttpError(504, "Gateway Timeout", "api_error"),
    "429": rate_limited(),
    "529 overloaded": overloaded(),
}


@pytest.mark.parametrize("model", ["loopa/fake-claude", "loop/fake-model"], ids=["anthropic", "openai"])
def test_transient_failures_are_retried_alike(pi_env: PiEnv, model: str) -> None:
    # Only the backoff is shortened: the SDK-retry default (off) is the one under test.
    (pi_env.agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 1}}))
    rpc = pi_env.rpc(model=model)
    try:
        for name, failure in FAILURES.items():
            before = len(pi_env.server.requests)
            pi_env.server.add(failure, text_turn(f"recovered from {name}"))
            reply = rpc.call({"type": "prompt", "message": name})
            assert reply["success"] is True, reply
            start = rpc.wait_for(lambda r: r.get("type") == "auto_retry_start")
            assert start["attempt"] == 1, (name, start)
            end = rpc.wait_for(lambda r: r.get("type") == "auto_retry_end")
            assert end["success"] is True, (name, start["errorMessage"], end)
            rpc.events_until("agent_end")
            state = rpc.call({"type": "get_last_assistant_text"})
            assert state["data"]["text"] == f"recovered from {name}", (name, state)
            assert len(pi_env.server.requests) - before == 2, (name, start["errorMessage"])
            rpc.seen.clear()
    finally:
        assert rpc.close() == 0, rpc.stderr


@pytest.mark.parametrize("model", ["loopa/fake-claude", "loop/fake-model"], ids=["anthropic", "openai"])
def test_a_stalled_stream_times_out_and_is_retried_alike(pi_env: PiEnv, model: str) -> None:
    """A server that stops sending mid-answer: ``retry.provider.timeoutMs`` ends the wait in either
    dialect's SDK, and the timeout is retried like any transient failure."""
    settings = {"retry": {"baseDelayMs": 1, "provider": {"timeoutMs": 1500}}}
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    rpc = pi_env.rpc(model=model)
    try:
        pi_env.server.add(Turn(blocks=[Text("never finished " * 5, chunks=5)], delay=4), text_turn("after"))
        assert rpc.call({"type": "prompt", "message": "stall"})["success"] is True
        start = rpc.wait_for(lambda r: r.get("type") == "auto_retry_start", timeout=30)
        assert "timed out" in start["errorMessage"].lower(), start
        end = rpc.wait_for(lambda r: r.get("type") == "auto_retry_end", timeout=30)
        assert end["success"] is True, end
        rpc.events_until("agent_end", timeout=30)
        assert rpc.call({"type": "get_last_assistant_text"})["data"]["text"] == "after"
    finally:
        assert rpc.close() == 0, rpc.stderr
