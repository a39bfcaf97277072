"""Session summaries for ``--resume`` / ``-c`` without loading whole files (spec/sessions.md §12.5).

Files are streamed line by line. A line's kind and message role are read from its first bytes
(pi writes ``{"type":"message",...,"message":{"role":"user"``); only the lines that matter are
parsed: the header, the first user message, ``session_info`` lines and the last user/assistant
messages (for the activity time). Lines in another key order are parsed in full.
"""

from __future__ import annotations

import json
import os
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pi_core.session.paths import sessions_root

_MESSAGE = b'{"type":"message",'
_SESSION_INFO = b'{"type":"session_info",'
_ROLE = b'"message":{"role":"'
#: How many trailing user/assistant messages are parsed to find the latest activity.
_TAIL = 32


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
    try:
        return json.loads(line)
    except ValueError:
        return None


def _role_hint(line: bytes) -> str | None:
    at = line.find(_ROLE, 0, 300)
    if at < 0:
        return None
    start = at + len(_ROLE)
    end = line.find(b'"', start, start + 40)
    return line[start:end].decode("ascii", "replace") if end > 0 else None


def read_session_info(path: Path) -> SessionInfo | None:
    """Summary of one session file, or ``None`` if it is not a session file."""
    try:
        handle = path.open("rb")
    except OSError:
        return None
    with handle:
        header = _loads(handle.readline())
        if (
            not isinstance(header, dict)
            or header.get("type") != "session"
            or not isinstance(header.get("id"), str)
        ):
            return None
        count = 0
        first_message = ""
        name: str | None = None
        recent: deque[dict[str, Any]] = deque(maxlen=_TAIL)
        pending_tail: deque[bytes] = deque(maxlen=_TAIL)
        for raw in handle:
            line = raw.strip()
            if not line:
                continue
            if line.startswith(_MESSAGE):
                role = _role_hint(line)
                count += 1
                if role not in ("user", "assistant", None):
                    continue
                if (role == "user" and not first_message) or role is None:
                    entry = _loads(line)
                    if not isinstance(entry, dict) or entry.get("type") != "message":
                        count -= 1 if entry is None else 0
                        continue
                    message = entry.get("message")
                    if isinstance(message, dict) and message.get("role") == "user" and not first_message:
                        first_message = _text_of(message)
                    if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
                        pending_tail.append(line)
                    continue
                pending_tail.append(line)
            elif line.startswith(_SESSION_INFO):
                entry = _loads(line)
                if isinstance(entry, dict):
                    value = entry.get("name")
                    name = value.strip() or None if isinstance(value, str) else None
            elif not line.startswith(b'{"type":"'):
                entry = _loads(line)  # another writer's key order: look at it in full
                if isinstance(entry, dict) and entry.get("type") == "message":
                    count += 1
                    pending_tail.append(line)
                elif isinstance(entry, dict) and entry.get("type") == "session_info":
                    value = entry.get("name")
                    name = value.strip() or None if isinstance(value, str) else None
        for line in pending_tail:
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
        name=name,
        parent_session_path=parent if isinstance(parent, str) else None,
        created=created or mtime,
        modified=modified,
        message_count=count,
        first_message=first_message or "(no messages)",
    )


def _last_activity(entries: deque[dict[str, Any]]) -> datetime | None:
    latest: float | None = None
    for entry in entries:
        message = entry["message"]
        if message.get("role") not in ("user", "assistant"):
            continue
        stamp = message.get("timestamp")
        if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
            value = float(stamp)
        else:
            parsed = _parse_dt(entry.get("timestamp"))
            if parsed is None:
                continue
            value = parsed.timestamp() * 1000
        latest = value if latest is None else max(latest, value)
    if latest is None or latest <= 0:
        return None
    return datetime.fromtimestamp(latest / 1000, UTC)


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
            with file.open("rb") as handle:
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
