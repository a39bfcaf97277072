from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_core.session.listing import find_most_recent_session, read_session_info
from pi_core.session.manager import SessionManager
from session_helpers import assistant, tool_result, user


def test_summary_of_a_long_session(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path)
    sm.append_session_info("first name")
    sm.append_message(user("the very first question"))
    for index in range(300):
        sm.append_message(assistant(f"answer {index}"))
        sm.append_message(user(f"follow-up {index}"))
    sm.append_session_info("final name")
    last = sm.append_message(assistant("done"))
    info = read_session_info(Path(sm.get_session_file() or ""))
    assert info is not None
    assert info.name == "final name"
    assert info.first_message == "the very first question"
    assert info.message_count == 602
    entry = sm.get_entry(last)
    assert entry is not None
    assert int(info.modified.timestamp() * 1000) == entry.message.timestamp  # type: ignore[union-attr]
    assert info.cwd == "/proj" and info.id == sm.get_session_id()


def test_cleared_name_and_no_messages(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": "i",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/c",
    }
    info_line = {"type": "session_info", "id": "a", "parentId": None, "timestamp": "2025-01-01T00:00:00.000Z"}
    path.write_text(json.dumps(header) + "\n" + json.dumps({**info_line, "name": "  "}) + "\n")
    info = read_session_info(path)
    assert info is not None and info.name is None and info.first_message == "(no messages)"
    assert info.modified == info.created


def test_non_session_files_are_ignored(tmp_path: Path) -> None:
    (tmp_path / "junk.jsonl").write_text('{"type":"message"}\n')
    assert read_session_info(tmp_path / "junk.jsonl") is None
    assert find_most_recent_session(tmp_path) is None


def test_a_large_file_is_read_only_at_its_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_core.session import listing

    monkeypatch.setattr(listing, "FULL_SCAN_BYTES", 64 << 10)
    monkeypatch.setattr(listing, "WINDOW_BYTES", 16 << 10)
    sm = SessionManager.create("/proj", tmp_path)
    sm.append_message(user("the very first question"))
    for index in range(2000):
        sm.append_message(assistant(f"answer {index}"))
        sm.append_message(user(f"follow-up {index}"))
    sm.append_session_info("named late")
    last = sm.append_message(assistant("done"))
    path = Path(sm.get_session_file() or "")
    info = read_session_info(path)
    assert info is not None and not info.message_count_exact
    assert info.first_message == "the very first question" and info.name == "named late"
    assert abs(info.message_count - 4002) < 4002 * 0.05  # an estimate from the two windows
    entry = sm.get_entry(last)
    assert int(info.modified.timestamp() * 1000) == entry.message.timestamp  # type: ignore[union-attr]
    monkeypatch.setattr(listing, "FULL_SCAN_BYTES", 1 << 30)
    exact = read_session_info(path)
    assert exact is not None and exact.message_count_exact and exact.message_count == 4002


HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}'


@pytest.mark.parametrize(
    "stamp",
    ["1" + "0" * 400, "1e300", "NaN", "-5", "Infinity"],
    ids=["huge-int", "far-future", "nan", "neg", "inf"],
)
def test_a_message_timestamp_no_date_can_hold_is_ignored(tmp_path: Path, stamp: str) -> None:
    """The listing (``/resume``) reads the timestamps of the last messages: one beyond any float
    or date used to raise OverflowError and take the whole list down."""
    path = tmp_path / "s.jsonl"
    line = '{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-02T00:00:00.000Z",'
    line += f'"message":{{"role":"user","content":"hello","timestamp":{stamp}}}}}'
    path.write_text(HEADER + "\n" + line + "\n")
    info = read_session_info(path)
    assert info is not None and info.first_message == "hello"
    assert info.modified.year == 2025


def test_a_header_with_bad_bytes_is_listed_as_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER.replace("/x", "/\xff").encode("latin-1") + b"\n")
    info = read_session_info(path)
    assert info is not None and info.cwd == "/\ufffd"


def test_a_file_another_writer_spaced_is_summarised_the_same(tmp_path: Path) -> None:
    """Python's json.dumps puts a space after ':' and ','; pi reads such a file like its own."""
    sm = SessionManager.create("/proj", tmp_path)
    sm.append_session_info("named")
    sm.append_message(user("the very first question"))
    sm.append_message(assistant("an answer"))
    compact = Path(sm.get_session_file() or "")
    spaced = tmp_path / "spaced.jsonl"
    lines = compact.read_text().splitlines()
    spaced.write_text("".join(json.dumps(json.loads(line)) + "\n" for line in lines))
    assert spaced.read_text().startswith('{"type": "session"')
    ours, theirs = read_session_info(compact), read_session_info(spaced)
    assert ours is not None and theirs is not None
    assert (theirs.first_message, theirs.message_count, theirs.name, theirs.modified) == (
        "the very first question",
        2,
        "named",
        ours.modified,
    )


def _searchable_session(tmp_path: Path) -> Path:
    from pi_core.ai.messages import UserMessage

    sm = SessionManager.create("/proj", tmp_path)
    sm.append_message(user("First Question"))
    sm.append_message(assistant("reading it", tool=True))
    sm.append_message(tool_result("TOOL OUTPUT only"))
    sm.append_message(assistant('An "Answer"\nover two lines'))
    sm.append_message(UserMessage(content="plain string ünïcode"))
    sm.append_custom_message_entry("note", "custom TEXT", True)
    return Path(sm.get_session_file() or "")


def test_the_message_text_holds_user_and_assistant_text_only(tmp_path: Path) -> None:
    """What /resume searches, as pi's allMessagesText: every user and assistant message's text
    blocks (not tool results, tool calls or custom messages), lowercased."""
    from pi_core.session.listing import read_session_text, read_session_texts

    path = _searchable_session(tmp_path)
    text = read_session_text(path)
    assert text == 'first question reading it an "answer"\nover two lines plain string ünïcode'
    # Another writer's key order and spacing reads the same (those lines are parsed in full).
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_text("".join(json.dumps(json.loads(line)) + "\n" for line in path.read_text().splitlines()))
    assert read_session_text(spaced) == text
    assert read_session_texts([str(path), str(tmp_path / "gone.jsonl")], budget=0) == {str(path): text}
    assert read_session_texts([str(tmp_path / "gone.jsonl")]) == {str(tmp_path / "gone.jsonl"): None}


def test_a_cut_line_adds_nothing_to_the_message_text(tmp_path: Path) -> None:
    from pi_core.session.listing import read_session_text

    path = _searchable_session(tmp_path)
    whole = read_session_text(path)
    with path.open("ab") as out:  # a write cut short inside a text block, then bytes that are not UTF-8
        out.write(
            b'{"type":"message","id":"z","message":{"role":"user","content":[{"type":"text","text":"cut\n'
        )
        out.write(b'{"type":"message","id":"y","message":{"role":"user","content":"\xff bytes"}}\n')
    assert read_session_text(path) == f"{whole} \ufffd bytes"
