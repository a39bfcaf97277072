"""runtime/session_views.py: the last answer (``/copy``), fork points and the exports, over session
files on disk, as pi 1.6.0 gives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.messages import AssistantMessage, ImageContent, TextContent, ToolCall, UserMessage
from pi_core.runtime import session_views as views
from pi_core.session.manager import SessionManager


def _reply(*blocks: Any, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(content=list(blocks), api="faux", provider="faux", model="m", stop_reason=stop)


def _written(tmp_path: Path) -> SessionManager:
    """A session on disk: a question and its answer, then a fork with another question."""
    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    first = manager.append_message(UserMessage(content="first question"))
    manager.append_message(_reply(TextContent(text="first answer")))
    manager.append_message(UserMessage(content=[ImageContent(data="aGk=", mime_type="image/png")]))
    manager.branch(first)
    manager.append_message(UserMessage(content=[TextContent(text="other "), TextContent(text="question")]))
    manager.append_message(_reply(TextContent(text="other answer")))
    return manager


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (_reply(ToolCall(id="c", name="read", arguments={}), stop="toolUse"), "earlier"),  # only tools
        (_reply(stop="error"), "earlier"),  # failed without a word
        (_reply(TextContent(text="  "), stop="aborted"), "earlier"),  # aborted, blank
        (_reply(TextContent(text=" half an answer "), stop="aborted"), "half an answer"),
        (
            _reply(
                TextContent(text="Let me look"), ToolCall(id="c", name="ls", arguments={}), stop="toolUse"
            ),
            "Let me look",
        ),
        (_reply(), None),  # ended normally without text: that is the last answer
    ],
)
def test_last_assistant_text_skips_replies_that_said_nothing_and_did_not_end_normally(
    last: AssistantMessage, expected: str | None
) -> None:
    messages = [
        UserMessage(content="q"),
        _reply(TextContent(text="earlier")),
        UserMessage(content="go"),
        last,
    ]
    assert views.last_assistant_text(messages) == expected


def test_fork_points_are_the_user_messages_with_text_of_every_branch(tmp_path: Path) -> None:
    written = _written(tmp_path)
    reopened = SessionManager.open(str(written.get_session_file()))
    found = views.user_messages_for_forking(reopened.get_entries())
    assert [text for _, text in found] == ["first question", "other question"]  # not the image
    assert all(reopened.get_entry(entry_id) is not None for entry_id, _ in found)


async def test_export_jsonl_writes_the_branch_rechained_where_pi_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # were ~ taken literally, the files would land here, not in the worktree
    manager = _written(tmp_path)
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    target = await views.export_jsonl(manager, "~/exports/branch.jsonl")
    assert target == home / "exports" / "branch.jsonl"  # ~ is the home folder, as in pi
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    header, *entries = lines
    assert (header["type"], header["id"], header["cwd"]) == (
        "session",
        manager.get_session_id(),
        str(tmp_path),
    )
    texts = [e["message"]["content"] for e in entries]
    assert texts[0] == "first question" and len(entries) == 3  # the fork's branch only
    assert [e["parentId"] for e in entries] == [None, entries[0]["id"], entries[1]["id"]]
    assert SessionManager.open(str(target)).build_session_context().messages[-1].role == "assistant"

    relative = await views.export_jsonl(manager, "out/../flat.jsonl")
    assert relative == tmp_path / "flat.jsonl"  # normalised, as Node's path.resolve
    url = await views.export_jsonl(manager, (tmp_path / "by url.jsonl").as_uri())
    assert url == tmp_path / "by url.jsonl" and url.exists()


async def test_export_html_takes_a_home_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    manager = _written(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    target = await views.export_html(manager, "system prompt", [], "~/page.html")
    assert target == tmp_path / "home" / "page.html"
    assert "other answer" in target.read_text(encoding="utf-8")


async def test_export_html_of_a_session_not_written_yet_says_so(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    with pytest.raises(RuntimeError, match="Nothing to export yet"):
        await views.export_html(manager, "", [], str(tmp_path / "x.html"))
    with pytest.raises(RuntimeError, match="in-memory"):
        await views.export_html(SessionManager.in_memory(str(tmp_path)), "", [], None)
