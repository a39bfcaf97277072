"""Damaged and unusual files: clear messages with file and line, nothing lost, nothing rewritten."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pi_core.session.manager import SessionManager, SessionReadOnlyError
from pi_core.session.reader import SessionFileError
from session_helpers import assistant, user

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}'


def entry(id: str, parent: str | None, text: str = "hi", role: str = "user") -> str:
    message: dict = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}
    if role == "assistant":
        message = {
            **message,
            "api": "a",
            "provider": "p",
            "model": "m",
            "stopReason": "stop",
            "usage": {
                "input": 0,
                "output": 0,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 0,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
        }
    return json.dumps(
        {
            "type": "message",
            "id": id,
            "parentId": parent,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": message,
        },
        separators=(",", ":"),
    )


def write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def kinds(sm: SessionManager) -> list[tuple[int, str]]:
    return [(issue.line, issue.kind) for issue in sm.load_issues]


def test_truncated_last_line_is_skipped_with_warning_and_terminated_before_append(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = [HEADER, entry("u1", None), entry("a1", "u1", role="assistant")]
    path = write(tmp_path, "\n".join(good) + "\n" + entry("u2", "a1")[:40])
    with caplog.at_level(logging.WARNING, logger="pi.session"):
        sm = SessionManager.open(path)
    assert kinds(sm) == [(4, "truncated")]
    assert f"{path}:4:" in caplog.text
    assert [e.id for e in sm.get_entries()] == ["u1", "a1"]
    sm.append_message(user("next"))
    raw = path.read_text().split("\n")
    assert raw[3] == entry("u2", "a1")[:40]  # fragment kept verbatim, on its own line
    assert json.loads(raw[4])["parentId"] == "a1"
    assert [e.id for e in SessionManager.open(path).get_entries()][:2] == ["u1", "a1"]


def test_garbled_middle_line_reported_and_kept(tmp_path: Path) -> None:
    content = "\n".join([HEADER, entry("u1", None), "{not json", entry("a1", "u1", role="assistant")]) + "\n"
    path = write(tmp_path, content)
    sm = SessionManager.open(path)
    assert kinds(sm) == [(3, "garbled")]
    assert str(sm.load_issues[0]).startswith(f"{path}:3: ")
    assert [e.id for e in sm.get_entries()] == ["u1", "a1"]
    assert path.read_text() == content


def test_empty_file_starts_a_new_session_in_it(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    sm = SessionManager.open(path)
    assert sm.get_entries() == []
    assert path.read_bytes() == b""  # nothing written until there is an assistant message
    sm.append_message(user("q"))
    sm.append_message(assistant("a"))
    assert json.loads(path.read_text().splitlines()[0])["id"] == sm.get_session_id()


def test_no_header_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, entry("u1", None) + "\n")
    with pytest.raises(SessionFileError, match=rf"{path}:1: not a pi session file"):
        SessionManager.open(path)
    assert path.read_text() == entry("u1", None) + "\n"


def test_future_version_is_read_only(tmp_path: Path) -> None:
    content = HEADER.replace('"version":3', '"version":9') + "\n" + entry("u1", None) + "\n"
    path = write(tmp_path, content)
    sm = SessionManager.open(path)
    assert kinds(sm) == [(1, "future-version")] and sm.is_read_only()
    assert [e.id for e in sm.get_entries()] == ["u1"]
    with pytest.raises(SessionReadOnlyError, match="newer pi"):
        sm.append_message(user("x"))
    assert path.read_text() == content


def test_duplicate_ids_later_line_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, entry("u1", None, "old"), entry("u1", None, "new")]) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(3, "duplicate-id")]
    (only,) = sm.get_entries()
    assert only.message.content[0].text == "new"  # type: ignore[union-attr]


def test_dangling_parent_becomes_root(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, entry("u1", None), entry("u2", "ghost")]) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(3, "dangling-parent")]
    assert [node.entry.id for node in sm.get_tree()] == ["u1", "u2"]
    assert [m.role for m in sm.build_session_context().messages] == ["user"]


def test_non_utf8_line_reported_rest_loaded(tmp_path: Path) -> None:
    bad = b'{"type":"custom","customType":"x","data":"\xff\xfe","id":"c1","parentId":"u1","timestamp":"t"}'
    content = (
        (HEADER + "\n" + entry("u1", None) + "\n").encode()
        + bad
        + b"\n"
        + (entry("u2", "u1") + "\n").encode()
    )
    path = write(tmp_path, content)
    sm = SessionManager.open(path)
    assert kinds(sm) == [(3, "encoding")]
    assert "U+FFFD" in sm.load_issues[0].message
    assert [e.id for e in sm.get_entries()] == ["u1", "c1", "u2"]  # read as pi reads it
    custom = sm.get_entry("c1")
    assert custom is not None and custom.data == "\ufffd\ufffd"  # type: ignore[union-attr]
    assert path.read_bytes() == content


def test_bad_utf8_in_a_middle_message_keeps_every_message(tmp_path: Path) -> None:
    lines = [HEADER.encode()] + [
        entry(
            f"e{i}", f"e{i - 1}" if i else None, f"text {i}", "user" if i % 2 == 0 else "assistant"
        ).encode()
        for i in range(8)
    ]
    lines[4] = lines[4].replace(b"text 3", b"text \xff3")
    path = write(tmp_path, b"\n".join(lines) + b"\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(5, "encoding")]
    messages = sm.build_session_context().messages
    assert len(messages) == 8
    assert messages[3].content[0].text == "text \ufffd3"  # type: ignore[union-attr]


def test_garbled_middle_line_does_not_cut_the_conversation(tmp_path: Path) -> None:
    broken = entry("u2", "a1", "lost")[:-7] + "#garbage"  # its id and parent are still readable
    lines = [HEADER, entry("u1", None), entry("a1", "u1", role="assistant"), broken]
    lines += [entry("a2", "u2", role="assistant"), entry("u3", "a2")]
    path = write(tmp_path, "\n".join(lines) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(4, "garbled"), (5, "bridged-parent")]
    assert "attached to entry 'a1'" in sm.load_issues[1].message
    assert [e.id for e in sm.get_branch()] == ["u1", "a1", "a2", "u3"]
    assert len(sm.build_session_context().messages) == 4


def test_unreadable_middle_line_bridges_to_the_entry_before_it(tmp_path: Path) -> None:
    lines = [HEADER, entry("u1", None), entry("a1", "u1", role="assistant"), "%%%"]
    lines += [entry("u2", "gone"), entry("a2", "u2", role="assistant")]
    path = write(tmp_path, "\n".join(lines) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(4, "garbled"), (5, "bridged-parent")]
    assert [e.id for e in sm.get_branch()] == ["u1", "a1", "u2", "a2"]


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + (HEADER + "\n" + entry("u1", None) + "\n").encode())
    sm = SessionManager.open(path)
    assert kinds(sm) == [(1, "bom")]
    assert sm.get_session_id() == "s1" and [e.id for e in sm.get_entries()] == ["u1"]


@pytest.mark.parametrize("header", [HEADER[:30], HEADER[:-1] + "#", "\x00" + HEADER])
def test_damaged_header_is_refused_in_one_line(tmp_path: Path, header: str) -> None:
    path = write(tmp_path, header + "\n" + entry("u1", None) + "\n")
    with pytest.raises(
        SessionFileError, match=rf"^{path}:1: not a usable pi session file: its session header is damaged"
    ):
        SessionManager.open(path)
    assert path.read_text() == header + "\n" + entry("u1", None) + "\n"


def test_damaged_header_with_bad_bytes_is_still_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(tmp_path, b"\x13\x99garbage{{\n" + entry("u1", None).encode() + b"\n")
    with pytest.raises(SessionFileError, match="its session header is damaged"):
        SessionManager.open(path)
    assert caplog.records == []  # no separate line about the bad bytes of a refused header


def test_a_line_nested_too_deeply_is_skipped_like_any_garbled_line(tmp_path: Path) -> None:
    deep = '{"type":"custom","id":"c1","parentId":"u1","timestamp":"t","customType":"x","data":'
    deep += "[" * 100_000 + "]" * 100_000 + "}"
    path = write(tmp_path, "\n".join([HEADER, entry("u1", None), deep, entry("u2", "c1")]) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(3, "garbled"), (4, "bridged-parent")]
    assert "nested too deeply to read" in sm.load_issues[0].message
    assert [e.id for e in sm.get_branch()] == ["u1", "u2"]


def test_a_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "s.jsonl"
    folder.mkdir()
    with pytest.raises(SessionFileError, match=rf"^{folder}: cannot read the session file: Is a directory$"):
        SessionManager.open(folder)


def test_header_with_bad_utf8_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path, HEADER.replace("/x", "/\xff").encode("latin-1") + b"\n" + entry("u1", None).encode() + b"\n"
    )
    sm = SessionManager.open(path)
    assert kinds(sm) == [(1, "encoding")]
    assert sm.get_cwd() == "/\ufffd" and [e.id for e in sm.get_entries()] == ["u1"]


def test_extra_header_lines_ignored(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, entry("u1", None), HEADER, entry("u1", None)]) + "\n")
    sm = SessionManager.open(path)
    assert (3, "extra-header") in kinds(sm)
    assert [e.id for e in sm.get_entries()] == ["u1"]


def test_unknown_entry_type_and_fields_survive(tmp_path: Path) -> None:
    odd = (
        '{"type":"future_thing","id":"f1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","x":[1,2.5]}'
    )
    extra = entry("u2", "f1").replace('"parentId"', '"mood":"calm","parentId"')
    path = write(tmp_path, "\n".join([HEADER, entry("u1", None), odd, extra]) + "\n")
    sm = SessionManager.open(path)
    assert sm.load_issues == []
    unknown = sm.get_entry("f1")
    assert unknown is not None and unknown.type == "future_thing" and unknown.model_extra == {"x": [1, 2.5]}
    assert [m.role for m in sm.build_session_context().messages] == ["user", "user"]
    forked = SessionManager.fork_from(path, "/y", tmp_path / "f")
    assert Path(forked.get_session_file() or "").read_text().splitlines()[1:] == [
        entry("u1", None),
        odd,
        extra,
    ]


def test_v1_file_is_migrated_and_rewritten(tmp_path: Path) -> None:
    v1 = [
        '{"type":"session","id":"old","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/x"}',
        '{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}',
        '{"type":"message","timestamp":"2024-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"h",'
        '"content":"hook","display":true,"timestamp":2}}',
        '{"type":"compaction","timestamp":"2024-01-01T00:00:03.000Z","summary":"S","firstKeptEntryIndex":2,'
        '"tokensBefore":10}',
    ]
    path = write(tmp_path, "\n".join(v1) + "\n")
    sm = SessionManager.open(path)
    rewritten = [json.loads(line) for line in path.read_text().splitlines()]
    assert rewritten[0]["version"] == 3 and list(rewritten[0])[-1] == "version"
    ids = [obj["id"] for obj in rewritten[1:]]
    assert [obj["parentId"] for obj in rewritten[1:]] == [None, ids[0], ids[1]]
    assert rewritten[2]["message"]["role"] == "custom"
    assert rewritten[3]["firstKeptEntryId"] == ids[1] and "firstKeptEntryIndex" not in rewritten[3]
    assert [m.role for m in sm.build_session_context().messages] == ["compactionSummary", "custom"]


def test_parent_cycle_does_not_hang(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, entry("u1", "u2"), entry("u2", "u1")]) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(2, "parent-cycle")]
    assert str(sm.load_issues[0]) == (
        f"{path}:2: parentId 'u2' of entry 'u1' closes a cycle of parent links; shown as a root"
    )
    assert [e.id for e in sm.get_branch()] == ["u1", "u2"]
    assert len(sm.build_session_context().messages) == 2
    assert path.read_text().count('"parentId":"u2"') == 1  # nothing rewritten


def test_a_long_parent_cycle_is_cut_once(tmp_path: Path) -> None:
    ring = [entry("a", "d"), entry("b", "a"), entry("c", "b"), entry("d", "c"), entry("e", "d")]
    sm = SessionManager.open(write(tmp_path, "\n".join([HEADER, *ring]) + "\n"))
    assert kinds(sm) == [(2, "parent-cycle")]
    assert [e.id for e in sm.get_branch()] == ["a", "b", "c", "d", "e"]


def test_self_parented_entry_is_a_root(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, entry("u1", "u1"), entry("u2", "u1")]) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(2, "parent-cycle")]
    assert [node.entry.id for node in sm.get_tree()] == ["u1"]
    assert [e.id for e in sm.get_branch()] == ["u1", "u2"]
    assert len(sm.build_session_context().messages) == 2


def test_non_object_message_is_loaded_leniently(tmp_path: Path) -> None:
    odd = entry("u2", "u1").replace('"message":{', '"message":[{').replace("}}", "}]}")
    path = write(tmp_path, "\n".join([HEADER, entry("u1", None), odd, "[1,2]", '"text"']) + "\n")
    sm = SessionManager.open(path)
    assert kinds(sm) == [(4, "garbled"), (5, "garbled")]
    assert sm.get_leaf_id() == "u2"
    assert [m.role for m in sm.build_session_context().messages] == ["user"]
    assert kinds(sm)[-1] == (3, "invalid-entry")
    assert str(sm.load_issues[-1]).startswith(f"{path}:3: invalid message entry (message: ")
    assert [e.type for e in sm.get_branch()] == ["message", "invalid"]


def test_invalid_message_is_left_out_and_the_rest_kept(tmp_path: Path) -> None:
    odd = entry("u2", "a1").replace('"content":[{"type":"text","text":"hi"}]', '"content":5')
    lines = [HEADER, entry("u1", None), entry("a1", "u1", role="assistant"), odd]
    lines += [entry("a2", "u2", role="assistant")]
    path = write(tmp_path, "\n".join(lines) + "\n")
    sm = SessionManager.open(path)
    assert [m.role for m in sm.build_session_context().messages] == ["user", "assistant", "assistant"]
    assert kinds(sm) == [(4, "invalid-entry")]
    assert [node.entry.id for node in sm.get_tree()] == ["u1"]  # the tree keeps its shape
    assert [m.role for m in sm.build_session_context().messages] == ["user", "assistant", "assistant"]
    assert len(sm.load_issues) == 1  # reported once


def test_a_file_above_the_size_limit_is_refused_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [HEADER] + [entry(f"e{i}", f"e{i - 1}" if i else None, "x" * 900) for i in range(1200)]
    path = write(tmp_path, "\n".join(lines) + "\n")  # about 1.2 MB
    monkeypatch.setenv("PI_SESSION_MAX_MB", "1")
    with pytest.raises(SessionFileError) as refused:
        SessionManager.open(path)
    text = str(refused.value)
    assert text.startswith(f"{path}: this session file is 1 MB, more than pi opens (1 MB")
    assert "Start a new session, or open it anyway with PI_SESSION_MAX_MB=2" in text and "\n" not in text
    with pytest.raises(SessionFileError, match="more than pi opens"):
        SessionManager.fork_from(path, "/y", tmp_path / "forks")
    monkeypatch.setenv("PI_SESSION_MAX_MB", "2")
    assert len(SessionManager.open(path).build_session_context().messages) == 1200
