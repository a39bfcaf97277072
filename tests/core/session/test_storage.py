from __future__ import annotations

import json
import threading
from pathlib import Path

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
