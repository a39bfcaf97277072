"""Finding the latest compaction from the end of a file, in chunks, within a window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pi_core.session import reader
from pi_core.session.reader import context_start

LINE = (
    '{"type":"message","id":"m%d","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}\n'
)
COMPACTION = '{"type":"compaction","id":"c1","parentId":"m1","summary":"s","firstKeptEntryId":"m1"}\n'


@pytest.mark.parametrize("chunk", [7, 16, 19, 64, 1 << 20])
def test_found_across_chunk_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(reader, "_SCAN_CHUNK", chunk)
    before = "".join(LINE % i for i in range(3))
    path = tmp_path / "s.jsonl"
    path.write_text(before + COMPACTION + "".join(LINE % i for i in range(3, 9)))
    assert context_start(path) == len(before.encode())
    path.write_text(before)
    assert context_start(path) == 0


def test_window_stops_the_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "_SCAN_CHUNK", 32)
    path = tmp_path / "s.jsonl"
    after = "".join(LINE % i for i in range(20))
    path.write_text(COMPACTION + after)
    assert context_start(path) == 0  # the compaction is the first line
    path.write_text(LINE % 0 + COMPACTION + after)
    assert context_start(path) == len((LINE % 0).encode())
    assert context_start(path, within=len(after) // 2) == 0  # too far back: not looked for
    assert context_start(path, within=len(after) + len(COMPACTION)) == len((LINE % 0).encode())


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak RSS is read from /proc")
def test_refusing_a_1gb_file_reads_200mb_of_it_and_maps_nothing(tmp_path: Path) -> None:
    """A 1 GB file (sparse, no compaction): refused after the last 200 MB, in bounded memory
    (the whole file used to be mapped, 1.1 GB of resident pages)."""
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as out:
        out.write(
            json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}).encode()
        )
        out.truncate(1 << 30)
    child = (
        "import sys\nfrom pathlib import Path\nfrom pi_core.session.manager import SessionManager\n"
        "from pi_core.session.reader import SessionFileError\n"
        "try:\n    SessionManager.open(Path(sys.argv[1]))\nexcept SessionFileError as e:\n    print(e)\n"
        "print([l for l in Path('/proc/self/status').read_text().splitlines() if l.startswith('VmHWM')][0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PI_SESSION_MAX_MB"},
    )
    message, peak = done.stdout.splitlines()
    assert "this session file is 1024 MB, more than pi opens (200 MB" in message
    assert int(peak.split()[1]) < 150 * 1024  # kB
