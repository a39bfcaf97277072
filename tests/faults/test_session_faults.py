"""Fault injection on session files: kills during appends and migration, torn and garbled bytes
at every structural position of a small session, bad UTF-8 and byte order marks, a full disk
(a real tmpfs).

Run alone with ``uv run pytest -m faults``. The kill tests use a fixed seed per run of the
suite (printed on failure through the parametrisation) so a failure can be repeated.

The torn and garbled tests visit a fixed sample of the file's byte offsets (:func:`sampled_offsets`:
every line boundary, and the start, second byte, middle and last byte of every JSON token of the
header and of the first entry of each shape): 382 of the 1,852 offsets. Set
``PI_FAULT_ALL_OFFSETS=1`` to visit every offset instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_core.session.manager import SessionManager
from pi_core.session.reader import SessionFileError

pytestmark = pytest.mark.faults

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}'
USAGE = {
    "input": 1,
    "output": 1,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 2,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _entry(index: int) -> str:
    message: dict[str, object] = {
        "role": "user" if index % 2 == 0 else "assistant",
        "content": [{"type": "text", "text": f"message number {index}"}],
        "timestamp": 1735689600000 + index,
    }
    if index % 2:
        message.update(api="a", provider="p", model="m", usage=USAGE, stopReason="stop")
    return json.dumps(
        {
            "type": "message",
            "id": f"e{index}",
            "parentId": f"e{index - 1}" if index else None,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": message,
        },
        separators=(",", ":"),
    )


COUNT = 6
LINES = [HEADER] + [_entry(i) for i in range(COUNT)]
DATA = ("\n".join(LINES) + "\n").encode()
#: Byte offset where each line starts, and the line that holds each offset.
STARTS = [sum(len(line) + 1 for line in LINES[:i]) for i in range(len(LINES))]


#: One JSON token of a line: a string (escapes included), a number, a literal or a punctuation mark.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|[{}\[\]:,]')
#: The lines sampled token by token: the header, the first user entry, the first assistant entry
#: (the other entries repeat these shapes with other numbers).
_FIRST_OF_EACH_SHAPE = (0, 1, 2)


def sampled_offsets() -> list[int]:
    """The byte offsets the torn and garbled tests visit, deterministic and in order.

    For every line: its first two bytes, its last byte and its newline (so every line boundary,
    an empty and a one-byte line, a line missing only its newline). For the header and the first
    entry of each shape, also the first, second, middle and last byte of each JSON token: inside
    every key, every kind of value (string, number, ``null``, nested object and array) and at
    every colon, comma and bracket. With ``PI_FAULT_ALL_OFFSETS=1``: every offset.
    """
    if os.environ.get("PI_FAULT_ALL_OFFSETS") == "1":
        return list(range(len(DATA)))
    chosen: set[int] = set()
    for index, (line, start) in enumerate(zip(LINES, STARTS, strict=True)):
        end = start + len(line)  # the offset of its newline
        chosen.update((start, start + 1, end - 1, end))
        if index in _FIRST_OF_EACH_SHAPE:
            for token in _TOKEN.finditer(line):
                first, last = token.start(), token.end() - 1
                inside = (first, first + 1, (first + last + 1) // 2, last)
                chosen.update(start + o for o in inside if o <= last)
    return sorted(o for o in chosen if o < len(DATA))


OFFSETS = sampled_offsets()


def test_the_sample_reaches_every_line_and_token_kind() -> None:
    """The sample is what its docstring says: each line's edges, each token of the sampled lines."""
    for line, start in zip(LINES, STARTS, strict=True):
        assert {start, start + 1, start + len(line) - 1, start + len(line)} <= set(OFFSETS)
    for index in _FIRST_OF_EACH_SHAPE:
        tokens = list(_TOKEN.finditer(LINES[index]))
        assert "".join(t.group() for t in tokens) == LINES[index]  # the tokens tile the line
        assert {STARTS[index] + t.start() for t in tokens} <= set(OFFSETS)
    kinds = {t.group()[0] for i in _FIRST_OF_EACH_SHAPE for t in _TOKEN.finditer(LINES[i])}
    assert {'"', "n", "1", "{", "}", "[", "]", ":", ","} <= kinds  # string, null, number, punctuation


def _line_of(offset: int) -> int:
    """0-based line index holding byte ``offset`` (a newline belongs to the line it ends)."""
    return max(i for i, start in enumerate(STARTS) if start <= offset)


def _open(path: Path) -> tuple[SessionManager | None, str | None]:
    """Open and build a context; the error text when the file is refused (never anything else)."""
    try:
        manager = SessionManager.open(path)
        manager.build_session_context()
        manager.get_tree()
        manager.get_branch()
    except SessionFileError as error:
        return None, str(error)
    return manager, None


@pytest.mark.parametrize("cut", OFFSETS)
def test_torn_at_every_structural_offset(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(DATA[:cut])
    manager, error = _open(path)
    complete = DATA[:cut].count(b"\n")  # whole lines before the cut
    if 0 < cut < len(HEADER):  # the header itself is torn: refused in one line, like pi
        assert error is not None and error.startswith(f"{path}:1: ") and "\n" not in error
        return
    assert error is None and manager is not None
    whole = max(complete - 1, 0)
    partial = cut > STARTS[min(complete, len(LINES) - 1)] and complete < len(LINES)
    # Every entry whose line is whole is there; a torn last line may still be valid JSON
    # when only its newline is missing.
    ids = [entry.id for entry in manager.get_entries()]
    assert ids[:whole] == [f"e{i}" for i in range(whole)]
    assert len(ids) in (whole, whole + int(partial))
    assert len(manager.build_session_context().messages) == len(ids)
    assert path.read_bytes() == DATA[:cut]  # nothing rewritten


@pytest.mark.parametrize("garbage", [b"\x00", b"\xff"], ids=["nul", "bad-utf8"])
def test_garbled_byte_at_every_structural_offset(tmp_path: Path, garbage: bytes) -> None:
    """One damaged byte anywhere: refused in one line only if it breaks the header, otherwise
    every message on an undamaged line stays in the context (a bad line never cuts it)."""
    for offset in OFFSETS:
        path = tmp_path / f"g{offset}.jsonl"
        data = DATA[:offset] + garbage + DATA[offset + 1 :]
        path.write_bytes(data)
        manager, error = _open(path)
        line = _line_of(offset)
        if error is not None:
            assert line == 0 and error.startswith(f"{path}:1: ") and "\n" not in error, (offset, error)
            continue
        assert manager is not None
        damaged = {line - 1} if line else set()
        if DATA[offset : offset + 1] == b"\n" and line + 1 < len(LINES):
            damaged.add(line)  # the newline is gone: two lines became one
        messages = manager.build_session_context().messages
        texts = "\n".join(message.model_dump_json() for message in messages)
        for index in range(COUNT):
            if index not in damaged:
                assert f'"message number {index}"' in texts, (offset, texts, manager.load_issues)
        if b'"version":3,' in data.split(b"\n", 1)[0]:  # else it reads as version 1: migrated, as in pi
            assert path.read_bytes() == data


@pytest.mark.parametrize(
    "prefix", [b"\xef\xbb\xbf", b"\xef\xbb\xbf\n", b"\n\n"], ids=["bom", "bom-own-line", "blank-lines"]
)
def test_byte_order_mark_and_blank_start(tmp_path: Path, prefix: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(prefix + DATA)
    manager, error = _open(path)
    assert error is None and manager is not None
    assert len(manager.build_session_context().messages) == COUNT


CHILD_APPEND = textwrap.dedent(
    """
    import sys
    from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
    from pi_core.session.manager import SessionManager
    manager = SessionManager.open(sys.argv[1])
    big = "x" * int(sys.argv[2])
    for index in range(100000):
        if index % 2:
            message = AssistantMessage(content=[TextContent(text=big)], api="a", provider="p", model="m")
        else:
            message = UserMessage(content=[TextContent(text=f"n{index}")])
        entry_id = manager.append_message(message)
        print(entry_id, flush=True)
    """
)


@pytest.fixture(scope="module")
def seed() -> int:
    return int(os.environ.get("PI_FAULT_SEED", time.time_ns() % 100000))


def _kill_after(argv: list[str], delay: float, stdout: int | None = None) -> subprocess.Popen[bytes]:
    child = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait()
    return child


@pytest.mark.parametrize("round", range(4))
def test_kill_during_appends_loses_no_committed_entry(tmp_path: Path, seed: int, round: int) -> None:
    rng = random.Random(seed * 10 + round)
    path = tmp_path / "s.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD_APPEND, str(path), str(rng.choice([10, 100_000, 2_000_000]))],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdout is not None
    first = child.stdout.readline()  # started appending
    time.sleep(rng.uniform(0, 0.3))
    child.send_signal(signal.SIGKILL)
    committed = [first.decode().strip(), *child.stdout.read().decode().split()]
    child.wait()
    child.stdout.close()
    manager, error = _open(path)
    assert error is None and manager is not None, f"seed {seed}"
    ids = {entry.id for entry in manager.get_entries()}
    # The lazy first write waits for an assistant message: only ids after it must be on disk.
    assert set(committed[1:]) <= ids, f"seed {seed}"
    assert [issue.kind for issue in manager.load_issues] in ([], ["truncated"]), f"seed {seed}"
    # And the file goes on. An assistant message too: when the kill came before the first one,
    # nothing was on disk yet, and a session is first written with its first assistant message.
    manager.append_message(UserMessage(content="after the kill"))
    manager.append_message(
        AssistantMessage(content=[TextContent(text="ok")], api="a", provider="p", model="m")
    )
    again, error = _open(path)
    assert again is not None and again.get_entries()[-1].id == manager.get_leaf_id()


def _v1_file(path: Path, count: int) -> None:
    lines = ['{"type":"session","id":"old","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/x"}']
    text = "y" * 2000
    for index in range(count):
        lines.append(
            json.dumps(
                {
                    "type": "message",
                    "timestamp": "2024-01-01T00:00:01.000Z",
                    "message": {"role": "user", "content": f"{index} {text}", "timestamp": index},
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")


CHILD_MIGRATE = (
    "import sys\nfrom pi_core.session.manager import SessionManager\nSessionManager.open(sys.argv[1])\n"
)


def test_kill_during_migration_leaves_no_temp_file(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    source = tmp_path / "v1.jsonl"
    _v1_file(source, 8000)  # ~16 MB: the rewrite takes a while
    original = source.read_bytes()
    folder = tmp_path / "sessions"
    folder.mkdir()
    # How long a whole migration takes here, to spread the kills over it.
    probe = folder / "probe.jsonl"
    probe.write_bytes(original)
    began = time.monotonic()
    subprocess.run([sys.executable, "-c", CHILD_MIGRATE, str(probe)], check=True)
    span = time.monotonic() - began
    probe.unlink()
    for attempt in range(6):
        target = folder / "s.jsonl"
        target.write_bytes(original)
        _kill_after([sys.executable, "-c", CHILD_MIGRATE, str(target)], rng.uniform(span * 0.3, span * 1.1))
        assert sorted(p.name for p in folder.iterdir()) == ["s.jsonl"], f"seed {seed}, kill {attempt}"
        data = target.read_bytes()
        if data != original:  # the rewrite happened whole
            assert json.loads(data.split(b"\n", 1)[0])["version"] == 3, f"seed {seed}"
        manager, _ = _open(target)
        assert manager is not None and len(manager.get_entries()) == 8000
        target.unlink()


def test_replace_file_leftover_of_a_dead_writer_is_removed(tmp_path: Path) -> None:
    """Where files cannot be unnamed, a killed writer's named temp file goes at the next write."""
    from pi_core._files import replace_file

    target = tmp_path / "settings.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    stale = tmp_path / f".settings.json.{int(dead.stdout)}.abcd.tmp"
    stale.write_text("half")
    foreign = tmp_path / ".other.json.1.tmp"
    foreign.write_text("not ours")
    replace_file(target, "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.json.1.tmp", "settings.json"]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs Linux and root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_loses_nothing(small_disk: Path) -> None:
    manager = SessionManager.create("/x", small_disk / "sessions")
    manager.append_message(UserMessage(content="first"))
    manager.append_message(
        AssistantMessage(content=[TextContent(text="ok")], api="a", provider="p", model="m")
    )
    filler = small_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk to the last byte
        for size in (65536, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    for index in range(20):
        manager.append_message(UserMessage(content=f"while full {index} " + "z" * 2000))
    assert manager.write_error is not None and manager.unsaved_entries > 0
    path = Path(manager.get_session_file() or "")
    reopened, _ = _open(path)
    assert reopened is not None and not reopened.load_issues  # no broken line was left behind
    filler.unlink()
    assert manager.retry_write()
    reopened, _ = _open(path)
    assert reopened is not None and len(reopened.get_entries()) == 22


def test_listing_reads_only_the_ends_of_a_huge_file(tmp_path: Path) -> None:
    """A 2 GB file whose middle is a hole (never read: it would take seconds and be garbage)."""
    from pi_core.session.listing import list_sessions

    path = tmp_path / "huge.jsonl"
    tail = "\n".join(LINES[1:]).encode() + b"\n"
    with path.open("wb") as out:
        out.write(DATA)
        out.truncate(2 << 30)
        out.seek(0, os.SEEK_END)
        out.write(b"\n" + tail)
    began = time.monotonic()
    (info,) = list_sessions(tmp_path)
    assert time.monotonic() - began < 1.0
    assert info.first_message == "message number 0" and not info.message_count_exact
