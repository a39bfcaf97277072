"""Where session files live and how ids, names and timestamps are made (spec/sessions.md §2, §5)."""

from __future__ import annotations

import re
import secrets
import time
import uuid
from collections.abc import Container
from datetime import UTC, datetime
from pathlib import Path

from pi_core.ai.auth import agent_dir

_CWD_SEPARATORS = re.compile(r"[/\\:]")


def sessions_root(base: Path | None = None) -> Path:
    return (base or agent_dir()) / "sessions"


def encode_cwd(cwd: str) -> str:
    """Folder name for a cwd: one leading slash dropped, ``/ \\ :`` → ``-``, wrapped in ``--``."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return f"--{_CWD_SEPARATORS.sub('-', trimmed)}--"


def default_session_dir(cwd: str, base: Path | None = None, *, create: bool = True) -> Path:
    """``<agent dir>/sessions/<encoded cwd>/``, created (as pi does) unless ``create`` is false."""
    directory = sessions_root(base) / encode_cwd(cwd)
    if create:
        directory.mkdir(parents=True, exist_ok=True)
    return directory


def iso_now() -> str:
    """Now as JavaScript's ``Date.toISOString()``: UTC, milliseconds, ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<timestamp with : and . as ->_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def new_session_id() -> str:
    """A UUID version 7 (time-ordered), as pi 0.73 uses for session ids."""
    millis = time.time_ns() // 1_000_000
    value = (millis & ((1 << 48) - 1)) << 80 | secrets.randbits(80)
    value = (value & ~(0xF << 76)) | (0x7 << 76)  # version 7
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    return str(uuid.UUID(int=value))


def new_entry_id(taken: Container[str]) -> str:
    """8 hex digits (start of a UUID4), redrawn on collision; a full UUID after 100 tries."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())
