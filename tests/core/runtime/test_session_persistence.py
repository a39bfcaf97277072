"""runtime/session_persistence.py: which entries a session's messages become in its file, and how
a failed reply leaves the context while staying in the file (pi 1.6.0), read back from disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_core.ai.messages import AssistantMessage, CustomMessage, TextContent, UserMessage
from pi_core.session.manager import SessionManager

if TYPE_CHECKING:
    from conftest import Harness


def _lines(session: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(session.session_file).read_text().splitlines()]


def _reply(text: str, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api="faux", provider="faux", model="faux-1", stop_reason=stop
    )


def test_messages_become_message_entries_and_custom_messages_their_own(harness: Harness) -> None:
    session = harness.build()
    persistence = session._persistence
    user_id = persistence.persist(UserMessage(content="question"))
    assert user_id is not None
    note = CustomMessage(custom_type="note", content="for the model", display=False, details={"n": 1})
    assert persistence.persist(note) is None  # not a transcript message: no id to hand back
    reply_id = persistence.persist(_reply("answer"))
    lines = _lines(session)
    kinds = [(line["type"], line.get("message", {}).get("role")) for line in lines[1:]]
    assert kinds == [("message", "user"), ("custom_message", None), ("message", "assistant")]
    custom = lines[2]
    assert (custom["customType"], custom["content"], custom["display"], custom["details"]) == (
        "note",
        "for the model",
        False,
        {"n": 1},
    )
    assert [lines[1]["id"], lines[3]["id"]] == [user_id, reply_id]


def test_a_dropped_failed_reply_stays_in_the_file_and_out_of_a_resumed_context(harness: Harness) -> None:
    session = harness.build()
    question, failed = UserMessage(content="question"), _reply("half", stop="error")
    session.agent.state.messages = [question, failed]
    session._persistence.persist(question)
    failed_id = session._persistence.persist(failed)
    session._persistence.drop_trailing_error()
    assert session.agent.state.messages == [question]
    edit = _lines(session)[-1]
    assert (edit["type"], edit["targetId"], edit["replacement"]) == ("context_edit", failed_id, None)
    resumed = SessionManager.open(str(session.session_file))
    assert [m.role for m in resumed.build_session_context().messages] == ["user"]
    assert any(line.get("id") == failed_id for line in _lines(session))  # still in the file


def test_only_the_reply_it_persisted_last_is_omitted(harness: Harness) -> None:
    session = harness.build()
    question = UserMessage(content="question")
    session._persistence.persist(question)
    session._persistence.persist(_reply("kept"))
    session.agent.state.messages = [question, _reply("never written", stop="error")]
    session._persistence.drop_trailing_error()
    assert session.agent.state.messages == [question]  # out of the context all the same
    assert [line["type"] for line in _lines(session)][-1] == "message"  # no context_edit
    session._persistence.drop_trailing_error()  # nothing to drop: the last message is the user's
    assert session.agent.state.messages == [question]
