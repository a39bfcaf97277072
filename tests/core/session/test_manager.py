from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pi_core.ai.messages import Usage
from pi_core.session.entries import LabelEntry, MessageEntry
from pi_core.session.manager import SessionManager
from pi_core.session.paths import encode_cwd
from session_helpers import assistant, tool_result, user


def lines(path: str | None) -> list[dict]:
    assert path is not None
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_encode_cwd() -> None:
    assert encode_cwd("/home/ana/src/app") == "--home-ana-src-app--"
    assert encode_cwd("/") == "----"
    assert encode_cwd("C:\\Users\\ana\\app") == "--C--Users-ana-app--"


def test_create_layout_and_lazy_file(agent_dir: Path) -> None:
    sm = SessionManager.create("/srv/my-proj")
    path = Path(sm.get_session_file() or "")
    assert path.parent == agent_dir / "sessions" / "--srv-my-proj--"
    stamp, _, rest = path.name.partition("_")
    assert rest == f"{sm.get_session_id()}.jsonl" and len(stamp) == len("2025-03-14T09-26-53-120Z")
    sm.append_model_change("loop", "m")
    sm.append_thinking_level_change("medium")
    sm.append_message(user("hi"))
    assert not path.exists()  # no assistant message yet: pi would not have written anything
    sm.append_message(assistant("hello"))
    written = lines(str(path))
    assert [o["type"] for o in written] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
        "message",
    ]
    header = written[0]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"] and header["version"] == 3
    assert written[1]["parentId"] is None and written[2]["parentId"] == written[1]["id"]
    sm.append_message(user("again"))
    assert len(lines(str(path))) == 6
    raw = path.read_text().splitlines()[4]
    # JS number formatting: integral costs written as 0, not 0.0
    assert '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}' in raw


def test_reopen_gives_same_tree_and_leaf_is_last_line(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), tmp_path / "s")
    u = sm.append_message(user("q"))
    a = sm.append_message(assistant("r", tool=True))
    sm.append_message(tool_result("file"))
    sm.branch(u)
    b = sm.append_message(assistant("other"))
    sm.append_label_change(u, "start")
    sm.append_session_info("  my session ")
    again = SessionManager.open(sm.get_session_file() or "")
    assert [e.id for e in again.get_entries()] == [e.id for e in sm.get_entries()]
    assert again.get_leaf_id() == sm.get_leaf_id()
    assert again.get_label(u) == "start"
    assert again.get_session_name() == "my session"
    assert [e.id for e in again.get_branch(b)] == [u, b]
    tree = again.get_tree()
    assert len(tree) == 1 and tree[0].label == "start"
    assert [child.entry.id for child in tree[0].children][:2] == [a, b]
    ctx = again.build_session_context()
    assert [m.role for m in ctx.messages] == ["user", "assistant"]
    assert again.get_cwd() == str(tmp_path)


def test_label_clear_and_unknown_target(tmp_path: Path) -> None:
    sm = SessionManager.in_memory(str(tmp_path))
    u = sm.append_message(user("q"))
    sm.append_label_change(u, "x")
    sm.append_label_change(u)
    assert sm.get_label(u) is None
    with pytest.raises(KeyError):
        sm.append_label_change("nope", "x")
    assert sm.get_session_file() is None


def test_branch_with_summary_and_reset_leaf() -> None:
    sm = SessionManager.in_memory("/x")
    u = sm.append_message(user("q"))
    left = sm.append_message(assistant("r"))
    s = sm.branch_with_summary(u, "went elsewhere", details={"readFiles": []}, usage=Usage(input=7))
    entry = sm.get_entry(s)
    # pi 1.6.0: fromId names the leaf that was left, the entry records what the summary cost
    assert entry is not None and entry.parent_id == u and entry.from_id == left  # type: ignore[union-attr]
    assert entry.to_json_dict()["usage"]["input"] == 7
    root = sm.branch_with_summary(None, "from root")
    assert sm.get_entry(root).from_id == s  # type: ignore[union-attr]
    sm.reset_leaf()
    assert sm.get_entry(sm.branch_with_summary(None, "nothing left")).from_id == "root"  # type: ignore[union-attr]
    sm.reset_leaf()
    assert sm.build_session_context().messages == []
    new_root = sm.append_message(user("fresh"))
    assert sm.get_entry(new_root).parent_id is None  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        sm.branch("nope")


def test_summary_messages_cannot_be_appended_as_messages() -> None:
    from pi_core.ai.messages import CompactionSummaryMessage

    with pytest.raises(ValueError, match="own entry types"):
        SessionManager.in_memory("/x").append_message(CompactionSummaryMessage(summary="s", tokens_before=1))


def test_create_branched_session_copies_path_and_labels(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), tmp_path / "s")
    u = sm.append_message(user("q"))
    a = sm.append_message(assistant("r"))
    sm.append_label_change(u, "here")
    sm.append_message(user("later"))
    old = sm.get_session_file()
    new = sm.create_branched_session(a)
    assert new and new != old
    written = lines(new)
    assert written[0]["parentSession"] == old
    assert [o["type"] for o in written[1:]] == ["message", "message", "label"]
    label = written[3]
    assert label["parentId"] == a and label["targetId"] == u
    assert isinstance(sm.get_entry(label["id"]), LabelEntry)


def test_fork_from_copies_everything(tmp_path: Path) -> None:
    sm = SessionManager.create("/a", tmp_path / "a")
    sm.append_message(user("q"))
    sm.append_message(assistant("r"))
    forked = SessionManager.fork_from(sm.get_session_file() or "", "/b", tmp_path / "b")
    assert forked.get_cwd() == "/b"
    header = lines(forked.get_session_file())[0]
    assert header["cwd"] == "/b" and header["parentSession"] == sm.get_session_file()
    assert [e.id for e in forked.get_entries()] == [e.id for e in sm.get_entries()]


def test_continue_recent_and_listing(tmp_path: Path) -> None:
    directory = tmp_path / "s"
    first = SessionManager.create("/p", directory)
    first.append_message(user("first question"))
    first.append_message(assistant("a"))
    second = SessionManager.create("/p", directory)
    second.append_message(user("second question"))
    second.append_message(assistant("b"))
    second.append_session_info("named")
    os.utime(first.get_session_file() or "", (1, 1))
    assert SessionManager.continue_recent("/p", directory).get_session_id() == second.get_session_id()
    infos = SessionManager.list_sessions("/p", directory)
    assert len(infos) == 2
    by_id = {i.id: i for i in infos}
    assert by_id[second.get_session_id()].name == "named"
    assert by_id[second.get_session_id()].first_message == "second question"
    assert by_id[first.get_session_id()].message_count == 2


def test_continue_recent_without_sessions_creates_new(tmp_path: Path) -> None:
    sm = SessionManager.continue_recent("/p", tmp_path / "none")
    assert sm.get_entries() == [] and sm.get_session_file() is not None


def test_open_missing_path_is_created_lazily_there(tmp_path: Path) -> None:
    target = tmp_path / "mine.jsonl"
    sm = SessionManager.open(target)
    sm.append_message(user("q"))
    assert not target.exists()
    sm.append_message(assistant("r"))
    assert lines(str(target))[0]["type"] == "session"


def test_existing_file_without_assistant_is_not_duplicated(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}\n'
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}\n'
    )
    sm = SessionManager.open(path)
    sm.append_message(assistant("r"))
    written = lines(str(path))
    assert [o["type"] for o in written] == ["session", "message", "message"]
    assert isinstance(sm.get_entries()[1], MessageEntry)


def test_latest_compaction_on_branch_reads_only_records(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path)
    first = sm.append_message(user("one"))
    sm.append_message(assistant("two"))
    assert sm.latest_compaction_on_branch() is None
    compaction = sm.append_compaction("summary", first, 100)
    sm.append_message(user("three"))
    later = sm.append_compaction("summary 2", first, 200)
    assert sm.latest_compaction_on_branch().id == later  # type: ignore[union-attr]
    assert sm.latest_compaction_on_branch(compaction).id == compaction  # type: ignore[union-attr]
    sm.branch(first)
    assert sm.latest_compaction_on_branch() is None
    reopened = SessionManager.open(sm.get_session_file() or "")
    assert reopened.latest_compaction_on_branch().id == later  # type: ignore[union-attr]
    assert all(meta.entry is None for meta in reopened._metas if meta.type == "message")
