"""pi 1.6.0's additions to the v3 format: system messages, context edits, usage entries, new fields.

Small hand-written files; the files pi 1.6.0 itself wrote are checked in tests/e2e/test_session_pi16.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_core.ai.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    current_system_message,
    system_message_text,
)
from pi_core.session.convert import convert_to_llm
from pi_core.session.manager import SessionManager

HEADER = {"type": "session", "version": 3, "id": "s16", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "reasoning": 2,
    "totalTokens": 15,
    "cost": {
        "input": 0.01,
        "output": 0.02,
        "cacheRead": 0,
        "cacheWrite": 0,
        "total": 0.03,
        "totalFromProvider": False,
    },
}


def _entry(type_: str, id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": type_, "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", **fields}


def _message(id: str, parent: str | None, role: str, content: Any, **fields: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": content, "timestamp": 1, **fields}
    if role == "assistant":
        message = {
            "api": "openai-completions",
            "provider": "loop",
            "model": "echo",
            "usage": USAGE,
            "stopReason": "stop",
            **message,
        }
    return _entry("message", id, parent, message=message)


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


SYSTEM = _message(
    "sys1",
    None,
    "system",
    "",
    sections={"preamble": "You help.", "cwd": "<cwd>\n/p\n</cwd>"},
    toolsAdded=[{"name": "read", "description": "Read a file", "parameters": {"type": "object"}}],
)


def _write(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(item, separators=(",", ":")) + "\n" for item in [HEADER, *entries]))
    return path


def _texts(manager: SessionManager) -> list[tuple[str, str]]:
    out = []
    for message in convert_to_llm(manager.build_session_context().messages):
        content = message.content
        text = content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content)
        out.append((message.role, text))
    return out


def test_system_messages_stay_in_the_tree_and_are_never_sent(tmp_path: Path) -> None:
    patch = _message(
        "sys2",
        "a1",
        "system",
        "",
        sections={"cwd": None, "skills": "<skills>s</skills>"},
        toolsRemoved=[{"name": "read"}],
    )
    path = _write(
        tmp_path,
        [
            SYSTEM,
            _message("u1", "sys1", "user", _text("hi")),
            _message("a1", "u1", "assistant", _text("hello")),
            patch,
            _message("u2", "sys2", "user", _text("again")),
        ],
    )
    manager = SessionManager.open(path)
    assert manager.load_issues == []
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "user", "assistant", "system", "user"]
    assert _texts(manager) == [("user", "hi"), ("assistant", "hello"), ("user", "again")]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.sections == {"preamble": "You help.", "skills": "<skills>s</skills>"}
    assert replayed.tools_added is None  # read was removed again
    assert system_message_text(replayed) == "You help.\n\n<skills>s</skills>"
    # written back as read: the section removal stays an explicit null
    again = manager.get_entry("sys2")
    assert again is not None and again.to_json_dict()["message"]["sections"] == patch["message"]["sections"]


def test_context_edits_omit_and_replace_the_latest_wins_and_are_branch_relative(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            SYSTEM,
            _message("u1", "sys1", "user", _text("read it")),
            _message(
                "a1",
                "u1",
                "assistant",
                [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}}],
                stopReason="toolUse",
            ),
            _message(
                "t1",
                "a1",
                "toolResult",
                _text("secret output"),
                toolCallId="c1",
                toolName="read",
                isError=False,
            ),
            _message("a2", "t1", "assistant", _text("done")),
            _entry("context_edit", "e1", "a2", targetId="t1", replacement={"content": "first edit"}),
            _entry(
                "context_edit", "e2", "e1", targetId="t1", replacement={"content": "[tool output removed]"}
            ),
            _entry("context_edit", "e3", "e2", targetId="a2", replacement=None),
            _message("u2", "e3", "user", _text("next")),
        ],
    )
    manager = SessionManager.open(path)
    assert manager.load_issues == []
    assert _texts(manager) == [
        ("user", "read it"),
        ("assistant", ""),
        ("toolResult", "[tool output removed]"),
        ("user", "next"),
    ]
    edited = manager.build_session_context().messages[3]
    assert edited.role == "toolResult" and edited.content[0].type == "text"  # type: ignore[union-attr]
    # the raw entry is untouched
    raw = manager.get_entry("t1")
    assert raw is not None and raw.message.content[0].text == "secret output"  # type: ignore[union-attr]
    manager.branch("e1")  # before the second and third edit
    assert _texts(manager)[2:] == [("toolResult", "first edit"), ("assistant", "done")]


def test_compaction_system_checkpoint_leads_and_kept_system_messages_are_dropped(tmp_path: Path) -> None:
    checkpoint = {"role": "system", "content": "", "sections": {"preamble": "Checkpoint."}, "timestamp": 5}
    path = _write(
        tmp_path,
        [
            SYSTEM,
            _message("u1", "sys1", "user", _text("one")),
            _message("a1", "u1", "assistant", _text("two")),
            _message("sys2", "a1", "system", "", sections={"preamble": "Changed."}),
            _message("u2", "sys2", "user", _text("three")),
            _entry(
                "compaction",
                "c1",
                "u2",
                summary="S.",
                firstKeptEntryId="a1",
                tokensBefore=100,
                usage=USAGE,
                systemMessage=checkpoint,
            ),
        ],
    )
    manager = SessionManager.open(path)
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "compactionSummary", "assistant", "user"]
    assert isinstance(messages[0], SystemMessage) and messages[0].sections == {"preamble": "Checkpoint."}


def test_bad_edits_and_usage_are_reported_by_line_and_change_nothing(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _message("u1", None, "user", _text("hi")),
            _message("a1", "u1", "assistant", _text("hello")),
            _entry("context_edit", "e1", "a1", targetId="gone", replacement=None),
            _entry("context_edit", "e2", "e1", targetId="e1", replacement=None),
            _entry("context_edit", "e3", "e2", targetId="a1", replacement={"content": 42}),
            _entry(
                "usage", "g1", "e3", kind="cache_warm", provider="loop", model="echo", usage={"input": "lots"}
            ),
            _entry("usage", "g2", "g1", kind="cache_warm", provider="loop", model="echo", usage="junk"),
            _entry(
                "usage", "g3", "g2", kind="cache_warm", provider="loop", model="echo", usage=USAGE, note="ok"
            ),
        ],
    )
    before = path.read_bytes()
    manager = SessionManager.open(path)
    issues = [(issue.line, issue.kind) for issue in manager.load_issues]
    assert issues == [
        (4, "invalid-edit"),
        (5, "invalid-edit"),
        (6, "invalid-edit"),
        (7, "invalid-usage"),
        (8, "invalid-usage"),
    ]
    text = "\n".join(str(issue) for issue in manager.load_issues)
    assert "'gone' points to no entry" in text
    assert "edits do not chain" in text
    assert "field replacement" in text
    assert "field usage.input" in text and "'junk'" in text
    assert f"{path}:7:" in text
    assert _texts(manager) == [("user", "hi"), ("assistant", "hello")]  # nothing applied, nothing lost
    assert len(manager.get_entries()) == 8
    assert path.read_bytes() == before


def test_non_object_tool_arguments_open_and_read_as_an_arguments_error(tmp_path: Path) -> None:
    calls = [
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": "path=x"},
        {"type": "toolCall", "id": "c2", "name": "read", "arguments": None},
    ]
    path = _write(
        tmp_path,
        [
            _message("u1", None, "user", _text("hi")),
            _message("a1", "u1", "assistant", calls, stopReason="toolUse"),
        ],
    )
    manager = SessionManager.open(path)
    message = manager.build_session_context().messages[1]
    assert isinstance(message, AssistantMessage)
    first, second = message.content
    assert isinstance(first, ToolCall) and first.arguments == {}
    assert first.arguments_error is not None and first.arguments_error.endswith("Received arguments:\npath=x")
    assert isinstance(second, ToolCall) and second.arguments_error is not None


def test_new_message_fields_are_read_and_written(tmp_path: Path) -> None:
    fields = {"rawStopReason": "stop", "durationMs": 39, "thinkingLevel": "off", "responseModel": "echo-2"}
    path = _write(
        tmp_path,
        [
            _message("u1", None, "user", _text("hi")),
            _message("a1", "u1", "assistant", _text("hello"), **fields),
        ],
    )
    message = SessionManager.open(path).build_session_context().messages[1]
    assert isinstance(message, AssistantMessage)
    assert (message.raw_stop_reason, message.duration_ms, message.thinking_level, message.response_model) == (
        "stop",
        39,
        "off",
        "echo-2",
    )
    assert message.usage.reasoning == 2 and message.usage.cost.total_from_provider is False
    written = message.to_json_dict()
    assert {key: written[key] for key in fields} == fields
    assert written["usage"] == USAGE


def test_stats_count_system_messages_usage_entries_and_summary_usage(tmp_path: Path) -> None:
    from pi_core.runtime.stats import compute_session_stats

    path = _write(
        tmp_path,
        [
            SYSTEM,
            _message("u1", "sys1", "user", _text("hi")),
            _message("a1", "u1", "assistant", _text("hello")),
            _entry("usage", "g1", "a1", kind="cache_warm", provider="loop", model="echo", usage=USAGE),
            _entry("usage", "g2", "g1", kind="cache_warm", provider="loop", model="echo", usage="junk"),
            _entry(
                "compaction", "c1", "g2", summary="S.", firstKeptEntryId="a1", tokensBefore=9, usage=USAGE
            ),
        ],
    )
    manager = SessionManager.open(path)
    stats = compute_session_stats(
        manager.iter_counted(), session_file=str(path), session_id="s16", context_usage=None
    )
    assert (stats.total_messages, stats.user_messages, stats.assistant_messages) == (3, 1, 1)
    assert (stats.tokens.input, stats.tokens.output) == (30, 15)  # assistant + usage entry + compaction
    assert abs(stats.cost - 0.09) < 1e-9


def test_a_system_message_whose_parent_is_missing_is_reported_and_kept(tmp_path: Path) -> None:
    # Bad input of issue 10: a system message pointing at an entry that is not in the file.
    orphan = _message(
        "sys2", "gone", "system", "", sections={"rules": "Be brief."}, toolsRemoved=[{"name": "x"}]
    )
    path = _write(
        tmp_path,
        [
            SYSTEM,
            _message("u1", "sys1", "user", _text("hi")),
            orphan,
            _message("u2", "sys2", "user", _text("more")),
        ],
    )
    before = path.read_bytes()
    manager = SessionManager.open(path)
    assert [(issue.line, issue.kind) for issue in manager.load_issues] == [(4, "dangling-parent")]
    assert f"{path}:4:" in str(manager.load_issues[0])
    messages = manager.build_session_context().messages
    replayed = current_system_message(messages)
    # the orphan starts its own root and leads the branch of the leaf; removing an unknown tool is a no-op
    assert (
        replayed is not None and replayed.sections == {"rules": "Be brief."} and replayed.tools_added is None
    )
    assert _texts(manager) == [("user", "more")]
    assert len(manager.get_entries()) == 4 and path.read_bytes() == before
