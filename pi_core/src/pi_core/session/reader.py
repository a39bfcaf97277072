"""Reading a session file leniently, reporting every problem with file and line.

What pi silently skips is skipped here too, but reported (as :class:`LoadIssue`, logged as a
warning): unparseable lines, bytes that are not UTF-8, duplicate ids, parents that do not
exist, extra header lines. Nothing is rewritten because of them; unusable lines stay in the
file byte for byte. Only a file whose first object is not a session header is refused.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_core.session._gc import gc_paused
from pi_core.session.entries import CURRENT_SESSION_VERSION
from pi_core.session.index import EntryMeta, meta_from_dict
from pi_core.session.jsonl import dumps
from pi_core.session.migrate import header_version, migrate_items

logger = logging.getLogger("pi.session")

_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


class SessionFileError(ValueError):
    """A file that cannot be used as a session; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class LoadIssue:
    path: str
    line: int
    #: truncated, garbled, encoding, duplicate-id, dangling-parent, extra-header, no-id, future-version
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(slots=True)
class LoadedFile:
    header: dict[str, Any]
    header_line: str
    entries: list[EntryMeta]
    issues: list[LoadIssue] = field(default_factory=list)
    #: Lines kept verbatim (not usable entries): (number of entries before it, raw text).
    passthrough: list[tuple[int, str | bytes]] = field(default_factory=list)
    migrated: bool = False
    ends_with_newline: bool = True

    @property
    def version(self) -> int:
        return header_version(self.header)


def _parse(text: str) -> Any:
    obj, end = _scan(text, 0)
    if end != len(text):
        raise ValueError(f"unexpected data after the JSON value at column {end + 1}")
    return obj


def _is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str)


def read_session_file(path: Path) -> LoadedFile | None:
    """Parse ``path`` (see :func:`_read`) with the cyclic collector paused."""
    with gc_paused():
        return _read(path)


def _read(path: Path) -> LoadedFile | None:
    """Parse ``path``. ``None`` for an empty (or whitespace-only) file; raises
    :class:`SessionFileError` when the first JSON object is not a session header.

    The file is streamed line by line, so only the kept line texts and the small per-entry
    records stay in memory, never the whole file content in several copies.
    """
    name = str(path)
    issues: list[LoadIssue] = []

    def report(line: int, kind: str, message: str) -> None:
        issue = LoadIssue(name, line, kind, message)
        issues.append(issue)
        logger.warning("%s", issue)

    header: dict[str, Any] | None = None
    header_line = ""
    objects: list[tuple[int, str, dict[str, Any]]] = []  # only used for old versions
    entries: list[EntryMeta] = []
    passthrough: list[tuple[int, str | bytes]] = []
    seen_at: dict[str, int] = {}
    dropped: set[int] = set()
    legacy = False
    ends_with_newline = True
    anything = False

    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            ends_with_newline = raw.endswith(b"\n")
            stripped = raw.strip()
            if not stripped:
                continue
            anything = True
            try:
                text = stripped.decode("utf-8")
            except UnicodeDecodeError as exc:
                report(number, "encoding", f"not valid UTF-8 (byte {exc.start + 1}); kept as is, skipped")
                passthrough.append((len(entries), raw.rstrip(b"\r\n")))
                continue
            try:
                obj = _parse(text)
            except (ValueError, StopIteration) as exc:
                if not ends_with_newline:
                    report(number, "truncated", "last line is incomplete (interrupted write?); skipped")
                else:
                    detail = exc if isinstance(exc, ValueError) else "not JSON"
                    report(number, "garbled", f"line is not valid JSON ({detail}); kept as is, skipped")
                passthrough.append((len(entries), text))
                continue
            if header is None:
                if not _is_header(obj):
                    raise SessionFileError(
                        f"{name}:{number}: not a pi session file: the first JSON line must be a session "
                        'header ({"type":"session","id":...})'
                    )
                header, header_line = obj, text
                legacy = header_version(obj) < CURRENT_SESSION_VERSION
                if header_version(obj) > CURRENT_SESSION_VERSION:
                    report(
                        number,
                        "future-version",
                        f"session format version {header_version(obj)} is newer than this pi understands "
                        f"({CURRENT_SESSION_VERSION}); opened read-only",
                    )
                continue
            if not isinstance(obj, dict):
                report(number, "garbled", "line is not a JSON object; kept as is, skipped")
                passthrough.append((len(entries), text))
                continue
            if obj.get("type") == "session":
                report(number, "extra-header", "another session header inside the file; ignored")
                passthrough.append((len(entries), text))
                continue
            if legacy:
                objects.append((number, text, obj))
                continue
            entry_id = obj.get("id")
            if not isinstance(entry_id, str):
                report(number, "no-id", "entry has no string id; kept as is, skipped")
                passthrough.append((len(entries), text))
                continue
            if entry_id in seen_at:
                first = seen_at[entry_id]
                report(
                    number,
                    "duplicate-id",
                    f"entry id {entry_id!r} already used on line {entries[first].line_no}; "
                    "the later line wins",
                )
                dropped.add(first)
            seen_at[entry_id] = len(entries)
            meta = meta_from_dict(obj, text, number)
            parent_at = seen_at.get(meta.parent_id) if meta.parent_id is not None else None
            if parent_at is not None:
                meta.parent_id = entries[parent_at].id  # share the string: 100k entries, ~6 MB less
            entries.append(meta)

    if not anything:
        return None
    if header is None:
        raise SessionFileError(f"{name}:1: not a pi session file: no line could be read as a session header")

    migrated = False
    if legacy:
        items = [header] + [obj for _, _, obj in objects]
        migrated = migrate_items(items)
        header_line = dumps(header)
        for number, _text, obj in objects:
            entries.append(meta_from_dict(obj, dumps(obj), number))
    if dropped:
        entries = [meta for position, meta in enumerate(entries) if position not in dropped]
    known = {meta.id for meta in entries}
    for meta in entries:
        if meta.parent_id is not None and meta.parent_id not in known:
            report(
                meta.line_no,
                "dangling-parent",
                f"parentId {meta.parent_id!r} of entry {meta.id!r} points to no entry; shown as a root",
            )
    return LoadedFile(
        header=header,
        header_line=header_line,
        entries=entries,
        issues=issues,
        passthrough=passthrough,
        migrated=migrated,
        ends_with_newline=ends_with_newline,
    )
