"""JSON mode must write the lines the TypeScript pi writes for the same scripted turns.

Compared by shape: the sequence of event types (runs of ``message_update`` collapsed, since the
number of deltas depends on how the server chunks) and, line by line, the set of key paths.
The reference is a capture of pi 0.73.1 (tests/fixtures/ts_pi) with the stream changes of pi 1.6.0
applied (:func:`as_pi16`), and live runs of the real pi against the same loopback server: pi 0.73.1
(``PI073_DIR``, its lines through :func:`as_pi16`) and pi 1.6.0 (``PI16_DIR``, as they are); each
skips without its variable (tests/fixtures/real_pi.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core.testing import HttpError, ToolUse, text_turn, tool_turn

from tests.fixtures.real_pi import PI073_MISSING, PI16_MISSING, pi073, pi16

if TYPE_CHECKING:
    from conftest import PiEnv

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ts_pi"

#: Where pi's output differs from ours on purpose (or because of JavaScript object sharing):
#: - pi leaks its stream parser's private ``partialArgs``/``streamIndex`` into tool-call blocks
#:   of partial messages;
#: - partial messages are shared, growing objects in both implementations, so what a
#:   ``message_update`` line shows of the content (text so far, tool arguments parsed so far)
#:   depends on timing: those contents are compared as opaque values. ``message_start`` is a
#:   snapshot in both (content ``[]``, zero usage) and compared as such.
#: - the captures are pi 0.73.1's; what pi 1.6.0 added is put in by :func:`as_pi16`, except
#:   the system message pair before the prompt and the reply's ``thinkingLevel``.
IGNORED = ("partialArgs", "streamIndex", "thinkingLevel")
OPAQUE = ("arguments",)


def _without_system_messages(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for line in lines:
        if (line.get("message") or {}).get("role") == "system":
            continue
        if isinstance(line.get("messages"), list):  # agent_end
            line = {**line, "messages": [m for m in line["messages"] if m.get("role") != "system"]}
        out.append(line)
    return out


def _paths(value: Any, prefix: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in IGNORED:
                continue
            found.add(f"{prefix}.{key}")
            if key not in OPAQUE:
                found |= _paths(item, f"{prefix}.{key}")
    elif isinstance(value, list):
        for item in value:
            found |= _paths(item, f"{prefix}[]")
    return found


def _collapse(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in lines:
        if line["type"] == "message_update" and out and out[-1]["type"] == "message_update":
            continue
        out.append(line)
    return out


def _assistant_start(line: dict[str, Any]) -> bool:
    return line["type"] == "message_start" and line["message"]["role"] == "assistant"


#: The OpenAI finish reason behind each normalised stop reason (errors and aborts have none).
_RAW_STOP_REASONS = {"stop": "stop", "toolUse": "tool_calls", "length": "length"}


def _with_raw_stop_reason(message: dict[str, Any]) -> dict[str, Any]:
    """A finished message as 1.6.0 writes it: a reply has ``durationMs`` and, when the API
    answered, its own finish reason beside the normalised one and the usage with ``reasoning``
    (0: the server reports none) and ``cost.totalFromProvider``; a tool result has ``durationMs``."""
    if message["role"] == "toolResult":
        return {**message, "durationMs": 0}
    if message["role"] != "assistant":
        return message
    message = {**message, "durationMs": 0}
    raw = _RAW_STOP_REASONS.get(message.get("stopReason", ""))
    if raw is None:
        return message
    usage = message["usage"]
    usage = {**usage, "reasoning": 0, "cost": {**usage["cost"], "totalFromProvider": False}}
    return {**message, "rawStopReason": raw, "usage": usage}


def as_pi16(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A pi 0.73.1 stream as pi 1.6.0 writes it (json.md): ``message_update`` is the provider event
    without ``partial`` plus the message's ``usage`` (``toolcall_start`` names the call), an
    assistant message carries ``rawStopReason``, every
    ``agent_end`` says ``willRetry`` (an ``auto_retry_start`` follows), and ``agent_settled`` closes
    the prompt."""
    out: list[dict[str, Any]] = []
    for index, line in enumerate(lines):
        if line["type"] == "message_update":
            update = {k: v for k, v in line["assistantMessageEvent"].items() if k != "partial"}
            if update["type"] == "toolcall_start":
                block = line["message"]["content"][update["contentIndex"]]
                update.update(id=block["id"], toolName=block["name"])
            line = {
                "type": "message_update",
                "usage": line["message"]["usage"],
                "assistantMessageEvent": update,
            }
        elif line["type"] in ("message_end", "turn_end"):
            line = {**line, "message": _with_raw_stop_reason(line["message"])}
            if line["type"] == "turn_end":
                line["toolResults"] = [_with_raw_stop_reason(result) for result in line["toolResults"]]
        elif _assistant_start(line) and line["message"]["stopReason"] == "stop":
            # the stream opened; an answer that failed before it starts as the finished message
            line = {**line, "message": {**line["message"], "stopReason": "pending"}}
        elif line["type"] == "message_start" and line["message"]["role"] in ("assistant", "toolResult"):
            line = {**line, "message": _with_raw_stop_reason(line["message"])}
        elif line["type"] == "tool_execution_end":
            line = {**line, "durationMs": 0}
        elif line["type"] == "agent_end":
            following = lines[index + 1]["type"] if index + 1 < len(lines) else None
            messages = [_with_raw_stop_reason(message) for message in line["messages"]]
            line = {**line, "messages": messages, "willRetry": following == "auto_retry_start"}
        out.append(line)
        if line["type"] == "agent_end" and not line["willRetry"]:
            out.append({"type": "agent_settled", "aborted": False})
    return out


def assert_same_shape(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> None:
    system = [line["type"] for line in ours if (line.get("message") or {}).get("role") == "system"]
    assert system == ["message_start", "message_end"]  # pi 1.6.0: the prompt, recorded once
    ours, theirs = _collapse(_without_system_messages(ours)), _collapse(_without_system_messages(theirs))
    assert [line["type"] for line in ours] == [line["type"] for line in theirs]
    for mine, reference in zip(ours, theirs, strict=True):
        mine_paths, reference_paths = _paths(mine), _paths(reference)
        if _assistant_start(reference):  # the message as the stream opened, in both
            assert mine["message"]["content"] == reference["message"]["content"] == []
            assert mine["message"]["usage"] == reference["message"]["usage"]
            assert mine["message"]["stopReason"] == reference["message"]["stopReason"]
        assert mine_paths == reference_paths, (reference["type"], mine_paths ^ reference_paths)


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _fixture(name: str) -> list[dict[str, Any]]:
    return _lines((FIXTURES / name).read_text())


def _write_tool_script(pi_env: PiEnv) -> None:
    pi_env.server.add(
        tool_turn(ToolUse("write", {"path": "hello.txt", "content": "hi there\n"}, id="call_1")),
        text_turn("Hello world"),
    )


def test_json_mode_matches_pi_for_a_tool_turn(pi_env: PiEnv) -> None:
    _write_tool_script(pi_env)
    result = pi_env.run("--mode", "json", "Write hello.txt")
    assert result.returncode == 0, result.stderr
    ours = _lines(result.stdout)
    assert_same_shape(ours, as_pi16(_fixture("json_mode_write_tool.jsonl")))
    assert ours[0]["cwd"] == str(pi_env.project)
    assert (pi_env.project / "hello.txt").read_text() == "hi there\n"


def test_json_mode_matches_pi_for_an_auto_retry(pi_env: PiEnv) -> None:
    pi_env.server.add(HttpError(503, "Service temporarily unavailable", "api_error"), text_turn("Recovered"))
    result = pi_env.run("--mode", "json", "Say something")
    assert result.returncode == 0, result.stderr
    ours = _lines(result.stdout)
    assert_same_shape(ours, as_pi16(_fixture("json_mode_retry.jsonl")))
    retry = next(line for line in ours if line["type"] == "auto_retry_start")
    assert (retry["attempt"], retry["maxAttempts"], retry["delayMs"]) == (1, 3, 10)
    assert retry["errorMessage"].startswith("503")


def test_json_mode_header_is_written_without_a_session_file(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("hi"))
    result = pi_env.run("--mode", "json", "--no-session", "hi")
    assert result.returncode == 0, result.stderr
    header = _lines(result.stdout)[0]
    assert set(header) == {"type", "version", "id", "timestamp", "cwd"} and header["version"] == 3
    assert pi_env.session_files() == []


@pytest.mark.conformance
@pytest.mark.parametrize(
    "version",
    [
        "0.73.1",
        pytest.param(
            "1.6.0",
            marks=pytest.mark.xfail(
                reason="pi 1.6.0's usage also carries cost.totalFromProvider and reasoning; ours not yet",
                strict=True,
            ),
        ),
    ],
)
def test_json_mode_matches_live_typescript_pi(pi_env: PiEnv, tmp_path: Path, version: str) -> None:
    real = pi073() if version == "0.73.1" else pi16()
    if real is None:
        pytest.skip(PI073_MISSING if version == "0.73.1" else PI16_MISSING)
    home = tmp_path / "ts-home"
    agent = home / "agent"
    agent.mkdir(parents=True)
    shutil.copy(pi_env.agent_dir / "models.json", agent / "models.json")
    shutil.copy(pi_env.agent_dir / "settings.json", agent / "settings.json")
    project = tmp_path / "ts-project"
    project.mkdir()
    _write_tool_script(pi_env)
    env = dict(os.environ, HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
    ts = subprocess.run(
        [*real.argv(), "--mode", "json", "--model", "loop/fake-model", "Write hello.txt"],
        cwd=project, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ts.returncode == 0, ts.stderr
    _write_tool_script(pi_env)
    ours = pi_env.run("--mode", "json", "Write hello.txt")
    assert ours.returncode == 0, ours.stderr
    theirs = _lines(ts.stdout)
    assert_same_shape(_lines(ours.stdout), as_pi16(theirs) if version == "0.73.1" else theirs)
