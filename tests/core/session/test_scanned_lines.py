"""Long compacted sessions: message lines before the latest compaction are only scanned when the
file opens, their text is read back from the file when an entry is needed, and a problem in one
of them is reported (file and line) when it is found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_core.session.context import build_session_context
from pi_core.session.entries import parse_entry
from pi_core.session.manager import SessionManager
from pi_core.session.reader import SessionFileError

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}'
USAGE = {
    "input": 1,
    "output": 2,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 3,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def message_line(index: int, parent: str | None, *, model: str = "m") -> str:
    if index % 2 == 0:
        text = f"ask {index}"
        message: dict = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
    else:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"answer {index}"}],
            "api": "openai-completions",
            "provider": "p",
            "model": model,
            "usage": USAGE,
            "stopReason": "stop",
            "timestamp": 1,
        }
    entry = {
        "type": "message",
        "id": f"e{index:04d}",
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": message,
    }
    return json.dumps(entry, separators=(",", ":"))


def compaction_line(parent: str, first_kept: str) -> str:
    entry = {
        "type": "compaction",
        "id": "c0",
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:02.000Z",
        "summary": "what happened",
        "firstKeptEntryId": first_kept,
        "tokensBefore": 1000,
    }
    return json.dumps(entry, separators=(",", ":"))


def session_lines(before: int = 40, kept: int = 4, after: int = 2) -> list[str]:
    """Header, ``before`` messages, a compaction keeping the last ``kept`` of them, ``after`` more."""
    lines = [HEADER]
    parent = None
    for index in range(before):
        lines.append(message_line(index, parent, model="old-model"))
        parent = f"e{index:04d}"
    assert parent is not None
    lines.append(compaction_line(parent, f"e{before - kept:04d}"))
    parent = "c0"
    for index in range(before, before + after):
        lines.append(message_line(index, parent))
        parent = f"e{index:04d}"
    return lines


def write(tmp_path: Path, lines: list[str] | bytes) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines if isinstance(lines, bytes) else ("\n".join(lines) + "\n").encode())
    return path


def reference_context(lines: list[str]) -> list[dict]:
    """The context built from every line parsed in full (no scanning involved)."""
    entries = [parse_entry(line) for line in lines[1:]]
    return [m.model_dump(by_alias=True, exclude_none=True) for m in build_session_context(entries).messages]


def dumped(sm: SessionManager) -> list[dict]:
    return [m.model_dump(by_alias=True, exclude_none=True) for m in sm.build_session_context().messages]


def test_lines_before_the_compaction_are_scanned_and_read_back_on_demand(tmp_path: Path) -> None:
    lines = session_lines()
    sm = SessionManager.open(write(tmp_path, lines))
    assert sm.load_issues == []
    scanned = [meta for meta in sm._metas if meta.line is None]
    assert [meta.id for meta in scanned] == [f"e{i:04d}" for i in range(40)]  # no text kept for them
    assert all(meta.span for meta in scanned)
    assert dumped(sm) == reference_context(lines)
    for index in (0, 17, 39):
        line = lines[1 + index]
        assert sm.get_entry(f"e{index:04d}") == parse_entry(line)
    assert [entry.id for entry in sm.get_branch()] == [json.loads(line)["id"] for line in lines[1:]]
    assert sm.load_issues == []


def test_the_model_of_a_scanned_assistant_line_is_read_when_the_context_needs_it(tmp_path: Path) -> None:
    lines = session_lines(after=0)  # no assistant after the compaction: the last model is before it
    sm = SessionManager.open(write(tmp_path, lines))
    context = sm.build_session_context()
    assert context.model is not None
    assert (context.model.provider, context.model.model_id) == ("p", "old-model")


def test_a_garbled_scanned_line_is_reported_when_reached_and_keeps_the_lines_before_it(
    tmp_path: Path,
) -> None:
    lines = session_lines()
    lines[38] = lines[38].replace('"content":[', '"content":[[', 1)  # e0037, in the kept part
    path = write(tmp_path, lines)
    sm = SessionManager.open(path)
    assert sm.load_issues == []  # only scanned so far
    messages = dumped(sm)
    (issue,) = sm.load_issues
    assert (issue.line, issue.kind) == (39, "garbled")  # file line 39: the header is line 1
    assert str(issue).startswith(f"{path}:39: line is not valid JSON (Invalid JSON: ")
    bad = [{"type": "text", "text": "answer 37"}]
    expected = [m for m in reference_context(session_lines()) if m.get("content") != bad]
    assert messages == expected  # only the bad entry is missing
    dumped(sm)
    assert len(sm.load_issues) == 1  # reported once
    assert path.read_text().splitlines() == lines  # nothing rewritten


def test_bad_utf8_in_a_scanned_line_is_reported_and_read_as_replacement_characters(tmp_path: Path) -> None:
    lines = session_lines()
    raw = ("\n".join(lines) + "\n").encode().replace(b"answer 37", b"answer \xff7")
    sm = SessionManager.open(write(tmp_path, raw))
    assert sm.load_issues == []
    texts = [m["content"][0]["text"] for m in dumped(sm) if m["role"] == "assistant"]
    assert "answer \ufffd7" in texts
    assert [(issue.line, issue.kind) for issue in sm.load_issues] == [(39, "encoding")]


def test_appending_forking_and_counting_work_on_scanned_entries(tmp_path: Path) -> None:
    lines = session_lines()
    path = write(tmp_path, lines)
    sm = SessionManager.open(path)
    counted = [(kind, role) for kind, role, _item in sm.iter_counted()]
    assert counted.count(("message", "assistant")) == 21
    assert all(item is not None for kind, role, item in sm.iter_counted() if role == "assistant")
    new_file = sm.create_branched_session("e0010")
    assert new_file is not None
    written = Path(new_file).read_text().splitlines()
    assert written[1:] == lines[1:12]  # the scanned lines, copied byte for byte
    assert SessionManager.open(new_file).load_issues == []
    again = SessionManager.open(path)
    again.append_session_info("named")
    assert Path(path).read_text().splitlines()[:-1] == lines
    assert SessionManager.open(path).get_session_name() == "named"


def test_only_the_part_since_the_latest_compaction_counts_against_the_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    filler = "x" * 900
    long_before = session_lines(before=1200, kept=2, after=2)
    long_before = [line.replace("ask ", f"ask {filler} ") for line in long_before]
    path = write(tmp_path, long_before)  # about 0.6 MB of user text, all before the compaction
    monkeypatch.setenv("PI_SESSION_MAX_MB", "0.1")
    assert len(SessionManager.open(path).build_session_context().messages) == 1 + 2 + 2
    long_after = [HEADER, compaction_line("e9999", "e9999").replace('"parentId":"e9999"', '"parentId":null')]
    parent = "c0"
    for index in range(300):
        long_after.append(message_line(index, parent).replace("ask ", f"ask {filler} "))
        parent = f"e{index:04d}"
    path = write(tmp_path, long_after)
    with pytest.raises(SessionFileError) as refused:
        SessionManager.open(path)
    text = str(refused.value)
    assert text.startswith(f"{path}: the part of this session file since its latest compaction is 0 MB")
    assert "PI_SESSION_MAX_MB=1 in the environment" in text and "\n" not in text


def test_branch_queries_build_only_what_they_return(tmp_path: Path) -> None:
    lines = session_lines()
    custom = {
        "type": "custom",
        "id": "x0",
        "parentId": "e0041",
        "timestamp": "2025-01-01T00:00:03.000Z",
        "customType": "plan-mode",
        "data": {"enabled": True},
    }
    lines.append(json.dumps(custom, separators=(",", ":")))
    sm = SessionManager.open(write(tmp_path, lines))
    (entry,) = sm.get_branch(types=("custom",))
    assert entry.id == "x0" and entry.type == "custom"
    assert sm.get_branch("e0041", types=("custom",)) == []
    tail = sm.get_branch_since_compaction()
    assert [e.id for e in tail] == ["c0", "e0040", "e0041", "x0"]
    unbuilt = [meta for meta in sm._metas if meta.span and meta.entry is None]
    assert len(unbuilt) == 40  # the queries above built none of the scanned entries
    assert [e.id for e in sm.get_branch()][-len(tail) :] == [e.id for e in tail]
    assert not [meta for meta in sm._metas if meta.span and meta.entry is None]  # this one did


def test_fork_of_a_compacted_file_over_the_limit_copies_every_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    filler = "x" * 900
    lines = [line.replace("ask ", f"ask {filler} ") for line in session_lines(before=1200, kept=2, after=2)]
    raw = ("\n".join(lines) + "\n").encode().replace(b"answer 37", b"answer \xff7")  # copied as is
    path = write(tmp_path, raw)  # about 0.6 MB, all but the last lines before the compaction
    monkeypatch.setenv("PI_SESSION_MAX_MB", "0.1")
    forked = SessionManager.fork_from(path, "/elsewhere", tmp_path / "forks", session_id="f1")
    target = forked.get_session_file()
    assert target is not None and Path(target).parent == tmp_path / "forks"
    written = Path(target).read_bytes().split(b"\n")
    header = json.loads(written[0])
    assert (header["id"], header["cwd"], header["parentSession"]) == ("f1", "/elsewhere", str(path))
    assert written[1:] == raw.split(b"\n")[1:]  # every entry, byte for byte, bad byte included
    assert len(forked.build_session_context().messages) == 1 + 2 + 2
    assert forked.load_issues == []
    assert [p.name for p in (tmp_path / "forks").iterdir()] == [Path(target).name]  # no temp file
    linear = [HEADER]
    parent = None
    for index in range(300):  # 0.3 MB since the start and no compaction: refused as before
        linear.append(message_line(index, parent).replace("ask ", f"ask {filler} "))
        parent = f"e{index:04d}"
    with pytest.raises(SessionFileError) as refused:
        SessionManager.fork_from(write(tmp_path, linear), "/elsewhere", tmp_path / "other")
    assert "this session file is 0 MB, more than pi opens" in str(refused.value)
    assert not (tmp_path / "other").exists()
