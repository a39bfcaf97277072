"""Session summaries for ``--resume`` / ``-c`` without loading whole files (spec/sessions.md §12.5).

A file up to :data:`FULL_SCAN_BYTES` is streamed line by line. A line's kind and message role are
read from its first bytes (pi writes ``{"type":"message",...,"message":{"role":"user"``); only the
lines that matter are parsed: the header, the first user message, ``session_info`` lines and the
last user/assistant messages (for the activity time). Lines in another key order are parsed in full.

A larger file is read only at its two ends (:data:`WINDOW_BYTES` each): the head gives the header
and the first message, the tail the latest activity and name (a ``session_info`` line in the
middle of a long file is not seen), and the message count is estimated from how densely the two
windows hold messages (``SessionInfo.message_count_exact`` is then false). So listing 1 GB of
sessions costs a few milliseconds per file and a few MB, whatever their size.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.decoder import scanstring  # type: ignore[attr-defined]  # C-accelerated; not in typeshed
from pathlib import Path
from typing import Any

from pi_core._files import open_regular
from pi_core.session.paths import sessions_root

_MESSAGE = b'{"type":"message",'
_SESSION_INFO = b'{"type":"session_info",'
_ROLE = b'"message":{"role":"'
#: How many trailing user/assistant messages are parsed to find the latest activity.
_TAIL = 32
#: Files up to this size are read whole (exact counts); larger ones only at both ends.
FULL_SCAN_BYTES = 4 << 20
WINDOW_BYTES = 256 << 10


@dataclass(frozen=True, slots=True)
class SessionInfo:
    path: str
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    #: False when ``message_count`` is an estimate (a file larger than :data:`FULL_SCAN_BYTES`).
    message_count_exact: bool = True


def _parse_dt(timestamp: Any) -> datetime | None:
    if not isinstance(timestamp, str):
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            block.get("text", "")
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _loads(line: bytes) -> Any:
    try:  # bytes that are not UTF-8 read as U+FFFD, as the session reader (and pi) reads them
        return json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # nested too deeply: as unreadable as any other bad line
        return None


def _role_hint(line: bytes) -> str | None:
    at = line.find(_ROLE, 0, 300)
    if at < 0:
        return None
    start = at + len(_ROLE)
    end = line.find(b'"', start, start + 40)
    return line[start:end].decode("ascii", "replace") if end > 0 else None


@dataclass(slots=True)
class _Scan:
    """What the lines read so far say about a session."""

    count: int = 0
    first_message: str = ""
    name: str | None = None
    has_name: bool = False
    pending_tail: deque[bytes] = field(default_factory=lambda: deque(maxlen=_TAIL))

    def set_name(self, entry: Any) -> None:
        if isinstance(entry, dict):
            value = entry.get("name")
            self.name = value.strip() or None if isinstance(value, str) else None
            self.has_name = True


def _scan_lines(lines: Iterable[bytes], scan: _Scan) -> None:
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line.startswith(_MESSAGE):
            role = _role_hint(line)
            scan.count += 1
            if role not in ("user", "assistant", None):
                continue
            if (role == "user" and not scan.first_message) or role is None:
                entry = _loads(line)
                if not isinstance(entry, dict) or entry.get("type") != "message":
                    scan.count -= 1 if entry is None else 0
                    continue
                message = entry.get("message")
                if isinstance(message, dict) and message.get("role") == "user" and not scan.first_message:
                    scan.first_message = _text_of(message)
                if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
                    scan.pending_tail.append(line)
                continue
            scan.pending_tail.append(line)
        elif line.startswith(_SESSION_INFO):
            scan.set_name(_loads(line))
        elif not line.startswith(b'{"type":"'):
            entry = _loads(line)  # another writer's key order or spacing: look at it in full
            if isinstance(entry, dict) and entry.get("type") == "message":
                scan.count += 1
                message = entry.get("message")
                role = message.get("role") if isinstance(message, dict) else None
                if role == "user" and not scan.first_message:
                    scan.first_message = _text_of(message)  # type: ignore[arg-type]
                if role in ("user", "assistant"):
                    scan.pending_tail.append(line)
            elif isinstance(entry, dict) and entry.get("type") == "session_info":
                scan.set_name(entry)


def _header_of(line: bytes) -> dict[str, Any] | None:
    header = _loads(line.removeprefix(b"\xef\xbb\xbf"))
    if (
        not isinstance(header, dict)
        or header.get("type") != "session"
        or not isinstance(header.get("id"), str)
    ):
        return None
    return header


def read_session_info(path: Path) -> SessionInfo | None:
    """Summary of one session file, or ``None`` if it is not a session file."""
    try:
        handle = os.fdopen(open_regular(path), "rb")  # not a named pipe someone left there
    except OSError:
        return None
    exact = True
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            header = _header_of(handle.readline(1 << 20))
            if header is None:
                return None
            scan = _Scan()
            if size <= FULL_SCAN_BYTES:
                _scan_lines(handle, scan)
            else:
                exact = False
                head = handle.read(WINDOW_BYTES).split(b"\n")[:-1]  # whole lines only
                tail = os.pread(handle.fileno(), WINDOW_BYTES, size - WINDOW_BYTES).split(b"\n")[1:]
                _scan_lines(head, scan)
                head_name = (scan.name, scan.has_name)
                scan.has_name = False
                _scan_lines(tail, scan)
                if not scan.has_name:  # the latest name seen is the tail's, else the head's
                    scan.name, scan.has_name = head_name
                window = sum(map(len, head)) + sum(map(len, tail)) + len(head) + len(tail)
                scan.count = round(scan.count * size / max(window, 1))
        except (OSError, ValueError):
            return None
    recent: deque[dict[str, Any]] = deque(maxlen=_TAIL)
    for line in scan.pending_tail:
        entry = _loads(line)
        if isinstance(entry, dict) and isinstance(entry.get("message"), dict):
            recent.append(entry)
    try:
        mtime = datetime.fromtimestamp(os.stat(path).st_mtime, UTC)
    except OSError:
        mtime = datetime.now(UTC)
    created = _parse_dt(header.get("timestamp"))
    modified = _last_activity(recent) or created or mtime
    cwd = header.get("cwd")
    parent = header.get("parentSession")
    return SessionInfo(
        path=str(path),
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        name=scan.name,
        parent_session_path=parent if isinstance(parent, str) else None,
        created=created or mtime,
        modified=modified,
        message_count=scan.count,
        first_message=scan.first_message or "(no messages)",
        message_count_exact=exact,
    )


def _last_activity(entries: deque[dict[str, Any]]) -> datetime | None:
    latest: float | None = None
    for entry in entries:
        message = entry["message"]
        if message.get("role") not in ("user", "assistant"):
            continue
        stamp = message.get("timestamp")
        if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
            try:
                value = float(stamp)
            except OverflowError:  # an integer beyond any float (a damaged or hostile file)
                continue
            if not math.isfinite(value):
                continue
        else:
            parsed = _parse_dt(entry.get("timestamp"))
            if parsed is None:
                continue
            value = parsed.timestamp() * 1000
        latest = value if latest is None else max(latest, value)
    if latest is None or latest <= 0:
        return None
    try:
        return datetime.fromtimestamp(latest / 1000, UTC)
    except (OverflowError, ValueError, OSError):  # beyond the years a datetime holds
        return None


#: A text block as pi's writer (and ours) puts it, and a user message whose content is a string.
_TEXT_BLOCK = '"type":"text","text":"'
_STRING_CONTENT = 'user","content":"'
_TEXT_ROLES = (b'user"', b'assistant"')


def _message_text(line: bytes) -> str | None:
    """The text of a line that may hold a user or assistant message (its text blocks joined by
    spaces, as pi joins them): ``""`` when it holds none, ``None`` when only parsing can tell."""
    if not line.startswith(_MESSAGE):
        return "" if line.startswith(b'{"type":"') or not line.strip() else None
    at = line.find(_ROLE, len(_MESSAGE), 300)
    if at < 0:
        return None
    at += len(_ROLE)
    if not line.startswith(_TEXT_ROLES, at):
        return "" if line.find(b'"', at, at + 40) > 0 else None  # a tool result, a bash run, ...
    text = line[at:].decode("utf-8", "replace")
    try:
        if text.startswith(_STRING_CONTENT):
            return scanstring(text, len(_STRING_CONTENT))[0]
        parts: list[str] = []
        start = text.find(_TEXT_BLOCK)
        while start >= 0:
            part, end = scanstring(text, start + len(_TEXT_BLOCK))
            parts.append(part)
            start = text.find(_TEXT_BLOCK, end)
    except ValueError:  # a damaged string: the parsed line says what it holds, if anything
        return None
    if not parts and '"type":"text"' in text:
        return None  # text blocks in another key order
    return " ".join(parts)


def _parsed_message_text(line: bytes) -> str:
    entry = _loads(line.strip())
    if not isinstance(entry, dict) or entry.get("type") != "message":
        return ""
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return ""
    return _text_of(message)


def read_session_text(path: Path) -> str | None:
    """Every user and assistant message's text in a session file, in file order and joined by
    spaces, lowercased: what pi 1.6.0's ``/resume`` search matches besides the name, id and
    folder (its ``allMessagesText``; read here only when a search needs it, not while listing).
    A line's kind and role are read from its first bytes, as the listing reads them, and only the
    text blocks of user and assistant messages are decoded (tool results and calls never are);
    a line in another key order is parsed in full. ``None`` when the file cannot be read."""
    try:
        handle = os.fdopen(open_regular(path), "rb")
    except OSError:
        return None
    texts: list[str] = []
    with handle:
        try:
            handle.readline(1 << 20)  # the header
            for line in handle:
                text = _message_text(line)
                if text is None:
                    text = _parsed_message_text(line)
                if text:
                    texts.append(text)
        except (OSError, ValueError):
            return None
    return " ".join(texts).lower()


def read_session_texts(paths: Sequence[str], budget: int = 16 << 20) -> dict[str, str | None]:
    """:func:`read_session_text` of the first of ``paths``, and of those after it while the
    files read add up to at most ``budget`` bytes (a search shows what it found between two such
    batches); ``None`` for a file that cannot be read."""
    found: dict[str, str | None] = {}
    used = 0
    for path in paths:
        if found and used >= budget:
            break
        with contextlib.suppress(OSError):
            used += os.stat(path).st_size
        found[path] = read_session_text(Path(path))
    return found


def list_sessions(directory: Path) -> list[SessionInfo]:
    """Every session file directly in ``directory``, most recent activity first."""
    if not directory.is_dir():
        return []
    infos = [info for file in directory.glob("*.jsonl") if (info := read_session_info(file)) is not None]
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


def list_sessions_all(agent_dir: Path | None = None) -> list[SessionInfo]:
    """Sessions of every project folder under ``<agent dir>/sessions``, most recent first."""
    root = sessions_root(agent_dir)
    if not root.is_dir():
        return []
    infos = [info for folder in root.iterdir() if folder.is_dir() for info in list_sessions(folder)]
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


def find_most_recent_session(directory: Path) -> Path | None:
    """Newest file (by mtime) among ``*.jsonl`` whose first 512 bytes start with a session header."""
    best: tuple[float, Path] | None = None
    if not directory.is_dir():
        return None
    for file in directory.glob("*.jsonl"):
        try:
            with os.fdopen(open_regular(file), "rb") as handle:
                head = handle.read(512)
            header = _loads(head.split(b"\n", 1)[0])
            if (
                not isinstance(header, dict)
                or header.get("type") != "session"
                or not isinstance(header.get("id"), str)
            ):
                continue
            mtime = file.stat().st_mtime
        except OSError:
            continue
        if best is None or mtime > best[0]:
            best = (mtime, file)
    return best[1] if best else None
