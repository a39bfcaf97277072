"""Files written by this SessionManager are accepted by the real TypeScript pi.

Runs ``pi --mode rpc --session FILE`` in a throwaway HOME against a loopback OpenAI-compatible
server; skipped unless ``PI073_DIR`` points at an install of pi 0.73.1 (tests/fixtures/real_pi.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pi_core.ai.messages import (
    AssistantMessage,
    Cost,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_core.session.manager import SessionManager

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
sys.path.insert(0, str(FIXTURES))

from loopback_openai import LoopbackServer  # noqa: E402
from ts_pi import PI073_MISSING, PiRpc, find_pi_cli, prepare_home  # noqa: E402

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(find_pi_cli() is None, reason=PI073_MISSING),
]


def _assistant(content: list[TextContent | ToolCall], stop: str = "stop") -> AssistantMessage:
    usage = Usage(input=12, output=5, total_tokens=17, cost=Cost(input=0.00005, total=0.00005))
    return AssistantMessage(
        content=content,  # type: ignore[arg-type]
        api="openai-completions",
        provider="loop",
        model="echo",
        usage=usage,
        stop_reason=stop,  # type: ignore[arg-type]
    )


def _write_session(project: Path, directory: Path) -> SessionManager:
    sm = SessionManager.create(str(project), directory)
    sm.append_model_change("loop", "echo")
    sm.append_thinking_level_change("off")
    first = sm.append_message(UserMessage(content=[TextContent(text="hello — ünïcode ✓")]))
    answer = sm.append_message(_assistant([TextContent(text="Echo: hello")]))
    sm.append_message(UserMessage(content=[TextContent(text="please TOOL read notes.txt")]))
    sm.append_message(
        _assistant([ToolCall(id="call_fx1", name="read", arguments={"path": "notes.txt"})], "toolUse")
    )
    sm.append_message(
        ToolResultMessage(tool_call_id="call_fx1", tool_name="read", content=[TextContent(text="alpha\n")])
    )
    sm.append_message(_assistant([TextContent(text="Done reading.")]))
    sm.append_label_change(first, "start")
    sm.branch_with_summary(
        answer, "The user explored reading notes.txt.", details={"readFiles": ["notes.txt"]}
    )
    sm.append_custom_entry("py-state", {"n": 1})
    sm.append_custom_message_entry("py-note", "A note from Python.", True, {"k": 2})
    kept = sm.append_message(UserMessage(content=[TextContent(text="after the branch")]))
    sm.append_message(_assistant([TextContent(text="Echo: after the branch")]))
    sm.append_compaction(
        "## Goal\nPython summary.", kept, 1234, {"readFiles": [], "modifiedFiles": []}, False
    )
    sm.append_session_info("python session")
    return sm


def test_pi_reads_and_continues_a_python_session(tmp_path: Path) -> None:
    cli = find_pi_cli()
    assert cli is not None
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("alpha\n")
    sm = _write_session(project, tmp_path / "sessions")
    path = Path(sm.get_session_file() or "")
    ours = [m.to_json_dict() for m in sm.build_session_context().messages]
    with LoopbackServer() as server:
        env = prepare_home(tmp_path, server.base_url)
        with PiRpc(cli, project, env, ["--session", str(path), "--no-skills", "--no-extensions"]) as pi:
            theirs = pi.call({"type": "get_messages"})["data"]["messages"]
            state = pi.call({"type": "get_state"})["data"]
            pi.prompt("continue please")
    assert theirs == ours
    assert state["sessionFile"] == str(path)
    assert state.get("sessionName") == "python session"
    old_leaf = sm.get_leaf_id()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines].count("session") == 1
    again = SessionManager.open(path)
    assert again.load_issues == []
    appended = again.get_entries()[len(sm.get_entries()) :]
    assert appended and appended[0].parent_id == old_leaf
    assert [m.role for m in again.build_session_context().messages][-2:] == ["user", "assistant"]
