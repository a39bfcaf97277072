"""Messages built straight from lines: the same models as entry validation, shared field sets,
the same errors, and the collector kept away from large loads."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.messages import AssistantMessage, ToolResultMessage, UserMessage
from pi_core.session.entries import MessageEntry
from pi_core.session.lines import message_from_line
from pi_core.session.manager import SessionManager

from pi_core import _gc

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}'
USAGE = {
    "input": 10,
    "output": 2,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 12,
    "cost": {"input": 0.001, "output": 0.5, "cacheRead": 0, "cacheWrite": 0, "total": 0.501},
}
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "plain text", "timestamp": 1},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png", "futureKey": 1},
        ],
        "timestamp": 2,
        "unknownTopLevel": {"kept": True},
    },
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"},
            {"type": "text", "text": "Reading."},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}},
        ],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude",
        "usage": USAGE,
        "stopReason": "toolUse",
        "timestamp": 3,
    },
    {
        "role": "assistant",
        "content": [],
        "api": "x",
        "provider": "p",
        "model": "m",
        "usage": USAGE,
        "stopReason": "error",
        "errorMessage": "boom",
        "timestamp": 4,
    },
    {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "read",
        "content": [{"type": "text", "text": "x = 1\n"}],
        "details": {"lines": [1, 2]},
        "isError": False,
        "timestamp": 5,
    },
    {
        "role": "bashExecution",
        "command": "ls",
        "output": "a\n",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": 6,
    },
    {"role": "custom", "customType": "note", "content": "hi", "display": True, "timestamp": 7},
]


def line(id: str, parent: str | None, message: dict[str, Any]) -> str:
    entry = {"type": "message", "id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:01.000Z"}
    return json.dumps({**entry, "message": message}, separators=(",", ":"), ensure_ascii=False)


def write_session(tmp_path: Path, messages: list[dict[str, Any]]) -> Path:
    lines = [HEADER]
    parent = None
    for number, message in enumerate(messages):
        lines.append(line(f"e{number}", parent, message))
        parent = f"e{number}"
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_context_messages_equal_entry_validation(tmp_path: Path) -> None:
    path = write_session(tmp_path, MESSAGES)
    messages = SessionManager.open(path).build_session_context().messages
    expected = [MessageEntry.model_validate_json(text).message for text in path.read_text().splitlines()[1:]]
    assert [type(m) for m in messages] == [type(m) for m in expected]
    assert messages == expected
    assert [m.model_fields_set for m in messages] == [m.model_fields_set for m in expected]
    assert [m.to_json_dict() for m in messages] == MESSAGES
    first_image = messages[1].content[1]  # type: ignore[union-attr,index]
    assert first_image.model_extra == {"futureKey": 1}


def test_field_sets_are_shared_but_copies_are_independent(tmp_path: Path) -> None:
    path = write_session(tmp_path, [MESSAGES[2], MESSAGES[2]])
    first, second = SessionManager.open(path).build_session_context().messages
    assert isinstance(first, AssistantMessage) and isinstance(second, AssistantMessage)
    assert first.model_fields_set is second.model_fields_set
    assert first.usage.cost.model_fields_set is second.usage.cost.model_fields_set
    copy = first.model_copy(update={"response_id": "r1"})
    assert "response_id" in copy.model_fields_set
    assert "response_id" not in second.model_fields_set
    first.stop_reason = "stop"  # a field the file gave: the shared set does not change
    assert (
        second.model_fields_set
        == MessageEntry.model_validate_json(line("x", None, MESSAGES[2])).message.model_fields_set
    )
    assert second.stop_reason == "toolUse"


def test_lone_surrogate_escape_as_javascript_writes_it(tmp_path: Path) -> None:
    # A tool output cut in the middle of an emoji: JSON.stringify writes the lone half escaped.
    result = {**MESSAGES[4], "content": [{"type": "text", "text": "cut \\ud83d"}]}
    path = tmp_path / "s.jsonl"
    path.write_text(HEADER + "\n" + line("e0", None, result).replace("\\\\ud83d", "\\ud83d") + "\n")
    sm = SessionManager.open(path)
    assert sm.load_issues == []
    (message,) = sm.build_session_context().messages
    assert isinstance(message, ToolResultMessage)
    assert message.content[0].text == "cut \ud83d"  # type: ignore[union-attr]


def test_invalid_message_names_file_and_line(tmp_path: Path) -> None:
    bad = {"role": "user", "content": 5, "timestamp": 1}
    path = write_session(tmp_path, [MESSAGES[0], bad])
    sm = SessionManager.open(path)
    assert len(sm.build_session_context().messages) == 1
    (issue,) = sm.load_issues
    assert str(issue).startswith(f"{path}:3: invalid message entry (message.user.content")


def test_unknown_role_is_reported_like_entry_validation(tmp_path: Path) -> None:
    path = write_session(tmp_path, [{"role": "oracle", "content": "?", "timestamp": 1}])
    sm = SessionManager.open(path)
    assert sm.build_session_context().messages == []
    (issue,) = sm.load_issues
    assert str(issue).startswith(f"{path}:2: invalid message entry (message: Input tag 'oracle'")


def test_message_from_line_without_role_uses_entry_model() -> None:
    text = line("e0", None, MESSAGES[0])
    assert message_from_line(text, None) == UserMessage(content="plain text", timestamp=1)


def test_large_load_freezes_what_it_created(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_gc, "FREEZE_ABOVE", 1000)
    before = gc.get_freeze_count()
    try:
        with _gc.gc_paused():
            kept = [[number] for number in range(5000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(kept)
    finally:
        gc.unfreeze()
    with _gc.gc_paused():
        small = [[number] for number in range(10)]
    assert gc.get_freeze_count() == 0 and len(small) == 10
    numbers = [[number] for number in range(5000)]  # old enough: made outside any pause
    try:
        with _gc.gc_paused(references=len(numbers)):  # few new objects, one long list of old ones
            context = list(numbers)
        assert gc.get_freeze_count() >= 1 and len(context) == 5000
    finally:
        gc.unfreeze()
    with _gc.gc_paused(freeze=False):  # a request body: paused while built, never frozen
        assert not gc.isenabled()
        body = [[number] for number in range(5000)]
    assert gc.isenabled() and gc.get_freeze_count() == 0 and len(body) == 5000


def compaction_line(id: str, parent: str, first_kept: str) -> str:
    entry = {
        "type": "compaction",
        "id": id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:02.000Z",
        "summary": "S",
        "firstKeptEntryId": first_kept,
        "tokensBefore": 100,
    }
    return json.dumps(entry, separators=(",", ":"))


def test_messages_prepared_at_open_are_handed_out_and_kept_for_the_branch(tmp_path: Path) -> None:
    path = write_session(tmp_path, MESSAGES)
    sm = SessionManager.open(path)
    prepared = [meta.message for meta in sm._metas]
    assert all(message is not None for message in prepared)
    first = sm.build_session_context().messages
    assert all(a is b for a, b in zip(first, prepared, strict=True))
    again = sm.build_session_context().messages  # the same instances, not parsed again
    assert all(a is b for a, b in zip(again, first, strict=True))
    # The entry models wrap those instances too, and equal entries validated from the lines.
    branch = sm.get_branch()
    assert all(entry.message is m for entry, m in zip(branch, first, strict=True))  # type: ignore[union-attr]
    fresh = [MessageEntry.model_validate_json(text) for text in path.read_text().splitlines()[1:]]
    assert branch == fresh
    assert [e.model_fields_set for e in branch] == [e.model_fields_set for e in fresh]


def test_only_messages_after_the_latest_compaction_are_prepared(tmp_path: Path) -> None:
    lines = [HEADER]
    for number in range(6):
        lines.append(line(f"e{number}", f"e{number - 1}" if number else None, MESSAGES[0]))
    lines.append(compaction_line("c1", "e5", "e4"))
    lines.append(line("e6", "c1", MESSAGES[2]))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    sm = SessionManager.open(path)
    assert [meta.id for meta in sm._metas if meta.message is not None] == ["e6"]
    context = sm.build_session_context().messages
    assert [m.role for m in context] == ["compactionSummary", "user", "user", "assistant"]


def test_branch_off_the_prepared_path_is_dropped_after_the_context(tmp_path: Path) -> None:
    lines = [HEADER, line("a", None, MESSAGES[0]), line("b", "a", MESSAGES[2]), line("c", "a", MESSAGES[4])]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    sm = SessionManager.open(path)
    assert [m.role for m in sm.build_session_context().messages] == ["user", "toolResult"]
    assert [meta.id for meta in sm._metas if meta.message is not None] == ["a", "c"]
    sm.branch("b")
    assert [m.role for m in sm.build_session_context().messages] == ["user", "assistant"]


def test_entries_from_lines_equal_entry_validation(tmp_path: Path) -> None:
    path = write_session(tmp_path, MESSAGES)
    texts = path.read_text().splitlines()[1:]
    texts[0] = texts[0].replace('"parentId"', '"entryLevelExtra":[1],"parentId"')
    path.write_text("\n".join([HEADER, *texts]) + "\n")
    entries = SessionManager.open(path).get_entries()
    expected = [MessageEntry.model_validate_json(text) for text in texts]
    assert [type(entry) for entry in entries] == [MessageEntry] * len(expected)
    assert entries == expected
    assert [e.model_fields_set for e in entries] == [e.model_fields_set for e in expected]
    assert [e.message.model_fields_set for e in entries] == [e.message.model_fields_set for e in expected]
    assert entries[0].model_extra == {"entryLevelExtra": [1]}
    assert [e.model_dump() for e in entries] == [e.model_dump() for e in expected]
