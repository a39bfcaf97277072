from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from pi_core.session.storage import SessionWriter


def test_concurrent_writers_never_interleave_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    big = "x" * 200_000  # far above PIPE_BUF and a page: would tear without single writes + lock

    def writer(name: str) -> None:
        out = SessionWriter(path)  # its own descriptor, as a second process would have
        for index in range(40):
            out.append([json.dumps({"w": name, "i": index, "pad": big})])
        out.close()

    threads = [threading.Thread(target=writer, args=(name,)) for name in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = path.read_text().split("\n")
    assert lines[-1] == ""
    records = [json.loads(line) for line in lines[:-1]]
    assert sorted((r["w"], r["i"]) for r in records) == sorted((w, i) for w in "ab" for i in range(40))


def test_fragment_is_terminated_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"a":1}\n{"b":')
    SessionWriter(path).append(['{"c":3}'])
    assert path.read_text() == '{"a":1}\n{"b":\n{"c":3}\n'


def test_rewrite_is_atomic_and_keeps_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("old\n")
    SessionWriter(path).rewrite(["new", b"\xff raw"])
    assert path.read_bytes() == b"new\n\xff raw\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]


def test_a_full_disk_loses_nothing_and_leaves_no_broken_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails half-way is cut back; the entries wait in memory and go out later."""
    import errno

    from pi_core.session import storage
    from pi_core.session.manager import SessionManager

    from .session_helpers import assistant, user

    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    manager.append_message(user("first"))
    manager.append_message(assistant("first answer"))  # the file exists from here on
    path = Path(manager.get_session_file() or "")
    size_before = path.stat().st_size

    real_write = os.write
    calls = {"n": 0}

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, bytes(data[:7]))  # part of the batch fits ...
        raise OSError(errno.ENOSPC, "No space left on device")  # ... then the disk is full

    monkeypatch.setattr(storage.os, "write", full_disk)
    manager.append_message(user("second"))  # no exception: the caller's flow goes on
    assert isinstance(manager.write_error, OSError) and manager.unsaved_entries == 1
    assert path.stat().st_size == size_before  # the half-written line was cut off again
    manager.append_message(assistant("second answer"))
    assert manager.unsaved_entries == 2

    monkeypatch.setattr(storage.os, "write", real_write)  # room again
    assert manager.retry_write() and manager.write_error is None and manager.unsaved_entries == 0
    reopened = SessionManager.open(path)
    assert [m.role for m in reopened.build_session_context().messages] == [
        "user", "assistant", "user", "assistant",
    ]  # fmt: skip
    assert reopened.load_issues == []
