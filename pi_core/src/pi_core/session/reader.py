"""Reading a session file leniently, reporting every problem with file and line.

What pi silently skips is skipped here too, but reported (as :class:`LoadIssue`, logged as a
warning): unparseable lines, duplicate ids, parents that do not exist, extra header lines.
Bytes that are not UTF-8 are read as U+FFFD, as pi reads them, so the entry stays. A skipped
line never cuts the conversation: an entry whose parent was on a skipped line hangs under that
line's own parent when it can be read from the damaged text, else under the entry before the
damage. Nothing is rewritten because of any of this; unusable lines stay in the file byte for
byte. Only a file whose first line is not a readable session header is refused (a UTF-8 byte
order mark before it is ignored).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import TypeAdapter
from pydantic_core import from_json
from typing_extensions import TypedDict

from pi_core._files import open_regular
from pi_core._gc import gc_paused
from pi_core.errors import PiError
from pi_core.session.entries import CURRENT_SESSION_VERSION
from pi_core.session.index import EntryMeta, meta_from_dict
from pi_core.session.jsonl import dumps
from pi_core.session.lines import MESSAGE_LINE_PREFIX, meta_with_message
from pi_core.session.migrate import header_version, migrate_items

logger = logging.getLogger("pi.session")

_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
#: jiter (pydantic-core's parser): about twice as fast as ``json`` per line, and it shares
#: repeated short strings (ids and the parent ids naming them, roles) through its string cache.
_from_json = from_json


class _MessageFields(TypedDict, total=False):
    role: Any
    provider: Any
    model: Any


class _EntryFields(TypedDict, total=False):
    """The keys :func:`meta_from_dict` reads. jiter still checks the whole line, but only these
    become Python objects (a non-object ``message`` fails here and goes to the full parser)."""

    type: Any
    id: Any
    parentId: Any
    timestamp: Any
    message: _MessageFields
    thinkingLevel: Any
    provider: Any
    modelId: Any
    firstKeptEntryId: Any
    targetId: Any
    label: Any
    name: Any


_entry_fields: Callable[[str], Any] = TypeAdapter(_EntryFields).validate_json


class SessionFileError(PiError, ValueError):
    """A file that cannot be used as a session; the message names the file and line."""


#: The start of a message entry line as pi writes it: type, id, parentId, timestamp, role. Lines
#: before the latest compaction that start so (and end with ``}``) are only scanned: their
#: record comes from these fields and their text stays in the file (see :class:`LineSource`).
_SCANNED_LINE = re.compile(
    rb'\{"type":"message","id":"([\x21\x23-\x5b\x5d-\x7e]+)",'
    rb'"parentId":(?:null|"([\x21\x23-\x5b\x5d-\x7e]+)"),'
    rb'"timestamp":"([\x21\x23-\x5b\x5d-\x7e]*)","message":\{"role":"([A-Za-z]+)"'
).match
#: Message roles as read by the scan -> one shared string each.
_ROLES: dict[bytes, str] = {}

#: A damaged line's own id and parent, when they can still be read from its text.
_ID_IN_TEXT = re.compile(r'"id":"((?:[^"\\]|\\.)*)"')
_PARENT_IN_TEXT = re.compile(r'"parentId":(?:null|"((?:[^"\\]|\\.)*)")')
_BOM = b"\xef\xbb\xbf"


def _links_in_text(text: str) -> tuple[str, str | None] | None:
    """``(id, parentId)`` written in a line that does not parse, if both can be found."""
    found = _ID_IN_TEXT.search(text)
    parent = _PARENT_IN_TEXT.search(text)
    if found is None or parent is None:
        return None
    return found.group(1), parent.group(1)


@dataclass(frozen=True, slots=True)
class LoadIssue:
    path: str
    line: int
    #: truncated, garbled, encoding, bom, duplicate-id, dangling-parent, bridged-parent,
    #: extra-header, no-id, future-version, invalid-entry, parent-cycle
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class LineSource:
    """The lines of a session file whose text was not kept when it was opened, read back by
    their byte span (``EntryMeta.span``) when an entry is first needed. The file is only ever
    appended to, so a span stays valid; the handle opens on the first read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def read(self, span: int) -> bytes:
        """The line at ``span``, stripped of its line break."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        return os.pread(self._fd, span & 0xFFFFFFFF, span >> 32).strip()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


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
    #: Where the entries with a ``span`` (and no ``line``) read their text from.
    source: LineSource | None = None

    @property
    def version(self) -> int:
        return header_version(self.header)


#: Entry types of pi 1.6.0 whose content is checked when a file is opened.
_CHECKED_TYPES = frozenset({"context_edit", "usage"})
_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult"})


def check_16_entries(entries: list[EntryMeta], report: Callable[[int, str, str], None]) -> None:
    """Report ``context_edit`` entries that cannot take effect and ``usage`` entries whose usage
    is not pi's usage object. Both stay in the file and in the tree; an edit that cannot apply
    changes nothing (as in pi), a usage that is not one is left out of the totals (pi would sum
    ``NaN``)."""
    by_id = {meta.id: meta for meta in entries}
    for meta in entries:
        if meta.type not in _CHECKED_TYPES:
            continue
        try:
            data = _parse(meta.line) if meta.line is not None else None
        except (ValueError, StopIteration):
            data = None
        if not isinstance(data, dict):
            continue
        if meta.type == "usage":
            _check_usage(meta, data, report)
        else:
            _check_edit(meta, data, by_id, report)


def _check_usage(meta: EntryMeta, data: dict[str, Any], report: Callable[[int, str, str], None]) -> None:
    from pydantic import ValidationError

    from pi_core.ai.messages import Usage

    value = data.get("usage")
    if not isinstance(value, dict):
        problem = "field usage: missing" if value is None else f"field usage: not an object ({_short(value)})"
    else:
        try:
            Usage.model_validate(value)
            return
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            problem = f"field usage.{where}: {first['msg']} (got {_short(first.get('input'))})"
    report(
        meta.line_no, "invalid-usage", f"usage entry {meta.id!r}: {problem}; kept, not counted in the totals"
    )


def _check_edit(
    meta: EntryMeta,
    data: dict[str, Any],
    by_id: dict[str, EntryMeta],
    report: Callable[[int, str, str], None],
) -> None:
    target_id = data.get("targetId")
    name = f"context_edit entry {meta.id!r}"
    if not isinstance(target_id, str):
        report(meta.line_no, "invalid-edit", f"{name}: field targetId is not an entry id; it has no effect")
        return
    target = by_id.get(target_id)
    if target is None:
        report(
            meta.line_no,
            "invalid-edit",
            f"{name}: targetId {target_id!r} points to no entry in this file; it has no effect",
        )
        return
    if target.type == "context_edit":
        report(
            meta.line_no,
            "invalid-edit",
            f"{name}: targetId {target_id!r} is another context_edit; edits do not chain "
            "(edit the message itself), so it has no effect",
        )
        return
    if not (target.type == "custom_message" or (target.type == "message" and target.key in _EDITABLE_ROLES)):
        kind = f"{target.key} message" if target.type == "message" else f"{target.type} entry"
        report(
            meta.line_no,
            "invalid-edit",
            f"{name}: targetId {target_id!r} is a {kind}; pi writes edits only for user, assistant, "
            "tool-result and custom messages",
        )
    replacement = data.get("replacement")
    if replacement is not None and not (
        isinstance(replacement, dict) and isinstance(replacement.get("content"), (str, list))
    ):
        report(
            meta.line_no,
            "invalid-edit",
            f"{name}: field replacement must be null or an object with string or list content "
            f"(got {_short(replacement)}); the target is left as it is",
        )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse(text: str) -> Any:
    try:
        obj, end = _scan(text, 0)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    if end != len(text):
        raise ValueError(f"unexpected data after the JSON value at column {end + 1}")
    return obj


def _is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str)


def context_start(path: Path, within: int | None = None) -> int:
    """Byte offset of the last line of ``path`` that mentions a compaction (0: none, or the file
    cannot be read): where the part of the file that a context needs in full begins.

    ``within``: look no further back than that many bytes from the end. A caller that refuses a
    part larger than that (the size limit) gets 0 sooner and then refuses the whole file: a 1 GB
    file without a compaction is judged after reading 200 MB, not 1 GB."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            return _prepare_start(handle, within)
    except OSError:
        return 0


_COMPACTION_MARK = b'"type":"compaction"'
_SCAN_CHUNK = 1 << 20


def _prepare_start(handle: BinaryIO, within: int | None = None) -> int:
    """Byte offset of the last line that mentions a compaction (0: none, or none in the last
    ``within`` bytes).

    Message lines from there on are validated into message models while the file is read, in
    the same pass that checks them: one JSON parse per line instead of two (~8% of open +
    context for a long session without compaction). Before the latest compaction the context
    needs only a few messages, so those lines stay text until asked for. A false hit (the words
    in some custom entry's data) only means less is prepared in advance.

    The file is read backwards a megabyte at a time (not mapped: a mapping's pages count in the
    process's resident memory, 1 GB of it to scan a 1 GB file).
    """
    try:
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        overlap = len(_COMPACTION_MARK) - 1
        end = size
        while end > 0 and (within is None or size - end < within):
            begin = max(0, end - _SCAN_CHUNK)
            data = os.pread(fd, min(size, end + overlap) - begin, begin)
            at = data.rfind(_COMPACTION_MARK)
            if at >= 0:
                return _line_start(fd, begin + at)
            end = begin
    except (OSError, ValueError):  # unreadable: nothing to prepare
        pass
    return 0


def _line_start(fd: int, at: int) -> int:
    """Offset of the start of the line holding byte ``at``."""
    end = at
    while end > 0:
        begin = max(0, end - _SCAN_CHUNK)
        newline = os.pread(fd, end - begin, begin).rfind(b"\n")
        if newline >= 0:
            return begin + newline + 1
        end = begin
    return 0


def _bridge(
    meta: EntryMeta,
    skipped_links: dict[str, str | None],
    seen_at: dict[str, int],
    after_damage: dict[int, EntryMeta | None],
) -> tuple[bool, str | None]:
    """``(True, parent)`` for an entry whose parent is missing because lines were skipped: the
    nearest ancestor that is an entry, through the ids and parents read from skipped lines,
    else the last good entry before the skipped lines right above it (``None``: the root).
    ``(False, None)`` when nothing was skipped on its way (a plain dangling parent)."""
    parent = meta.parent_id
    steps = 0
    limit = len(skipped_links)
    while parent is not None and parent not in seen_at and parent in skipped_links and steps <= limit:
        parent = skipped_links[parent]
        steps += 1
    if steps and (parent is None or parent in seen_at):
        return True, parent if parent != meta.id else None
    if id(meta) in after_damage:
        before = after_damage[id(meta)]
        return True, before.id if before is not None else None
    return False, None


def _break_parent_cycles(
    forward: list[EntryMeta],
    entries: list[EntryMeta],
    seen_at: dict[str, int],
    report: Callable[[int, str, str], None],
) -> None:
    """Make a root of each entry whose parent link closes a cycle (only a damaged or hand-edited
    file has one: pi writes a parent before its children). Only entries whose parent was not read
    before them (``forward``) can close one; a walk up from each stops at an entry known to reach
    a root, so the check is linear in the entries."""
    reaches_root: set[str] = set()
    for meta in forward:
        if meta.parent_id not in seen_at or entries[seen_at[meta.id]] is not meta:
            continue  # dangling (reported next) or a dropped duplicate
        walked: list[str] = []
        on_walk: set[str] = set()
        current: str | None = meta.parent_id
        while current is not None and current not in reaches_root and current not in on_walk:
            if current == meta.id:
                report(
                    meta.line_no,
                    "parent-cycle",
                    f"parentId {meta.parent_id!r} of entry {meta.id!r} closes a cycle of parent links; "
                    "shown as a root",
                )
                meta.parent_id = None
                break
            walked.append(current)
            on_walk.add(current)
            at = seen_at.get(current)
            current = entries[at].parent_id if at is not None else None
        else:
            if current is None or current in reaches_root:
                reaches_root.update(walked)


def read_session_file(
    path: Path,
    *,
    prepare_messages: bool = False,
    prepare_from: int | None = None,
    scan_to: int | None = None,
) -> LoadedFile | None:
    """Parse ``path`` (see :func:`_read`) with the cyclic collector paused. A path that cannot be
    read (a folder, a read error) raises :class:`SessionFileError` naming it."""
    try:
        with gc_paused():
            return _read(path, prepare_messages, prepare_from, scan_to)
    except OSError as error:
        raise SessionFileError(f"{path}: cannot read the session file: {error.strerror or error}") from None


def _read(
    path: Path,
    prepare_messages: bool = False,
    prepare_from: int | None = None,
    scan_to: int | None = None,
) -> LoadedFile | None:
    """Parse ``path``. ``None`` for an empty (or whitespace-only) file; raises
    :class:`SessionFileError` when the first JSON object is not a session header.

    ``prepare_messages``: also validate the message models a context will need (the message
    lines after the latest compaction, see :func:`_prepare_start`; ``prepare_from`` gives that
    offset when the caller has it already) and leave them in ``EntryMeta.message``; for callers
    that build a context next. Message lines before that offset are then only scanned
    (:data:`_SCANNED_LINE`): their JSON is checked when the entry is first needed (a line that
    does not parse is then set aside as invalid and reported, see ``SessionManager``), and their
    text is not kept but read back from the file (:class:`LineSource`).

    ``scan_to`` (without ``prepare_messages``): message lines before that offset are only
    scanned as above, and no message is validated; for callers that copy lines (``--fork``).

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
    unseen_parent: list[EntryMeta] = []
    dropped: set[int] = set()
    #: Skipped lines whose own id and parent could be read: id -> parentId.
    skipped_links: dict[str, str | None] = {}
    #: Entries read right after skipped lines: entry -> the last good entry before them.
    after_damage: dict[int, EntryMeta | None] = {}
    damaged = False  # a line was skipped, or read with replaced bytes, since the last good entry
    #: The header's bad bytes, told once the header is read (a refused header is one line).
    header_encoding: str | None = None
    legacy = False
    ends_with_newline = True
    anything = False
    parse: Callable[[str], Any] = _from_json
    preparing = False
    contains_16_entries = False

    def skip(number: int, text: str | bytes) -> None:
        nonlocal damaged
        passthrough.append((len(entries), text))
        damaged = True
        links = _links_in_text(text) if isinstance(text, str) else None
        if links is not None:
            skipped_links.setdefault(links[0], links[1])

    scan_before = 0  # lines starting before this offset may be scanned instead of parsed
    scanned = False
    with os.fdopen(open_regular(path), "rb") as handle:  # a named pipe is refused, not waited on
        if not prepare_messages:
            prepare_from = 1 << 62
        elif prepare_from is None:
            prepare_from = _prepare_start(handle)
        offset = 0
        for number, raw in enumerate(handle, start=1):
            start = offset
            offset += len(raw)
            if start < scan_before:
                # Before the latest compaction: a message line as pi writes it, whose id is new
                # and whose parent is known, is only scanned (its JSON is checked when needed).
                found = _SCANNED_LINE(raw)
                if found is not None and raw[-2:] == b"}\n" and not damaged and len(raw) < 1 << 32:
                    id_bytes, parent_bytes, stamp, role_bytes = found.groups()
                    entry_id = id_bytes.decode()
                    parent_at = seen_at.get(parent_bytes.decode()) if parent_bytes is not None else -1
                    if parent_at is not None and entry_id not in seen_at:
                        role = _ROLES.get(role_bytes) or _ROLES.setdefault(role_bytes, role_bytes.decode())
                        seen_at[entry_id] = len(entries)
                        entries.append(
                            EntryMeta(
                                "message",
                                entry_id,
                                entries[parent_at].id if parent_at >= 0 else None,
                                stamp.decode(),
                                role,
                                None,
                                None,
                                None,
                                number,
                                None,
                                False,
                                start << 32 | len(raw),
                            )
                        )
                        scanned = True
                        continue
            ends_with_newline = raw[-1:] == b"\n"
            stripped = raw.strip()
            if number == 1 and stripped.startswith(_BOM):
                stripped = stripped[len(_BOM) :].strip()
                report(number, "bom", "file starts with a UTF-8 byte order mark; ignored")
            if not stripped:
                continue
            anything = True
            replaced = False
            try:
                text = stripped.decode("utf-8")
            except UnicodeDecodeError as exc:
                replaced = True
                # pi (JavaScript) reads such bytes as U+FFFD and keeps the entry: so does this.
                problem = (
                    f"not valid UTF-8 (byte {exc.start + 1}); read with U+FFFD in place of the bad bytes"
                )
                if header is None:
                    header_encoding = problem
                else:
                    report(number, "encoding", problem)
                text = stripped.decode("utf-8", "replace")
            meta: EntryMeta | None = None
            if preparing and start >= prepare_from and text.startswith(MESSAGE_LINE_PREFIX):
                meta = meta_with_message(text, number)
            if meta is None:
                try:
                    obj = parse(text)
                except ValueError:
                    try:
                        # Not an entry object (sorted out below), or what jiter refuses but
                        # JavaScript writes (lone surrogate escapes): Python's parser decides.
                        obj = _parse(text)
                    except (ValueError, StopIteration) as exc:
                        detail = exc if isinstance(exc, ValueError) else "not JSON"
                        if header is None:
                            raise SessionFileError(
                                f"{name}:{number}: not a usable pi session file: its session header is "
                                f"damaged (not valid JSON: {detail}). pi cannot open it; start a new "
                                "session, or repair that line"
                            ) from None
                        if not ends_with_newline:
                            report(
                                number, "truncated", "last line is incomplete (interrupted write?); skipped"
                            )
                        else:
                            report(
                                number, "garbled", f"line is not valid JSON ({detail}); kept as is, skipped"
                            )
                        skip(number, text)
                        continue
                if header is None:
                    if not _is_header(obj):
                        raise SessionFileError(
                            f"{name}:{number}: not a pi session file: the first JSON line must be a "
                            'session header ({"type":"session","id":...})'
                        )
                    header, header_line = obj, text
                    if header_encoding is not None:
                        report(number, "encoding", header_encoding)
                    legacy = header_version(obj) < CURRENT_SESSION_VERSION
                    if not legacy:
                        parse = _entry_fields  # from here on only the record's fields are needed
                        preparing = True
                        if header_version(obj) == CURRENT_SESSION_VERSION:
                            if prepare_messages:
                                scan_before = prepare_from
                            elif scan_to is not None:
                                scan_before = scan_to
                    if header_version(obj) > CURRENT_SESSION_VERSION:
                        report(
                            number,
                            "future-version",
                            f"session format version {header_version(obj)} is newer than this pi "
                            f"understands ({CURRENT_SESSION_VERSION}); opened read-only",
                        )
                    continue
                if type(obj) is not dict:
                    report(number, "garbled", "line is not a JSON object; kept as is, skipped")
                    skip(number, text)
                    continue
                if obj.get("type") == "session":
                    report(number, "extra-header", "another session header inside the file; ignored")
                    passthrough.append((len(entries), text))
                    continue
                if legacy:
                    objects.append((number, text, obj))
                    continue
                meta = meta_from_dict(obj, text, number)
                if meta is None:
                    report(number, "no-id", "entry has no string id; kept as is, skipped")
                    skip(number, text)
                    continue
            if meta.type in _CHECKED_TYPES:
                contains_16_entries = True
            entry_id = meta.id
            if entry_id in seen_at:
                first = seen_at[entry_id]
                report(
                    number,
                    "duplicate-id",
                    f"entry id {entry_id!r} already used on line {entries[first].line_no}; "
                    "the later line wins",
                )
                dropped.add(first)
            parent_id = meta.parent_id
            if parent_id is not None:
                parent_at = seen_at.get(parent_id)
                if parent_at is not None:
                    meta.parent_id = entries[parent_at].id  # share the string: 100k entries, ~6 MB less
                else:
                    unseen_parent.append(meta)  # dangling, unless the parent comes later
                    if damaged or replaced:  # its parent's id (or its own parentId) got damaged
                        after_damage[id(meta)] = entries[-1] if entries else None
            elif replaced and entries and '"parentId":' not in text:  # the key itself got damaged
                report(
                    number,
                    "bridged-parent",
                    f"entry {entry_id!r} lost its parentId to bad bytes; attached to entry "
                    f"{entries[-1].id!r}, the one before it",
                )
                meta.parent_id = entries[-1].id
            damaged = replaced
            seen_at[entry_id] = len(entries)
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
            meta = meta_from_dict(obj, dumps(obj), number)
            if meta is None:  # version 2 entry without a string id (version 1 ids are assigned)
                report(number, "no-id", "entry has no string id; kept as is, skipped")
                continue
            entries.append(meta)
    if legacy:
        contains_16_entries = any(meta.type in _CHECKED_TYPES for meta in entries)
        seen_at = {meta.id: position for position, meta in enumerate(entries)}
        unseen_parent = [meta for meta in entries if meta.parent_id is not None]
    _break_parent_cycles(unseen_parent, entries, seen_at, report)
    for meta in unseen_parent:
        if meta.parent_id is None:
            continue  # it closed a cycle: a root now
        if meta.parent_id not in seen_at and entries[seen_at[meta.id]] is meta:  # not a dropped duplicate
            bridged, bridge = _bridge(meta, skipped_links, seen_at, after_damage)
            if bridged:
                target = "the root" if bridge is None else f"entry {bridge!r}"
                report(
                    meta.line_no,
                    "bridged-parent",
                    f"parentId {meta.parent_id!r} of entry {meta.id!r} is on a skipped line; "
                    f"attached to {target} instead",
                )
                meta.parent_id = bridge
                continue
            report(
                meta.line_no,
                "dangling-parent",
                f"parentId {meta.parent_id!r} of entry {meta.id!r} points to no entry; shown as a root",
            )
    if dropped:
        entries = [meta for position, meta in enumerate(entries) if position not in dropped]
    if contains_16_entries:
        check_16_entries(entries, report)
    return LoadedFile(
        header=header,
        header_line=header_line,
        entries=entries,
        issues=issues,
        passthrough=passthrough,
        migrated=migrated,
        ends_with_newline=ends_with_newline,
        source=LineSource(path) if scanned else None,
    )
