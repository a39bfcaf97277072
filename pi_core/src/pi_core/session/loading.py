"""How a session's entries are built from their records (``index.EntryMeta``): on demand and
once, the entry model or only the message a context needs, from the line kept in memory or read
back from the file (lines scanned at open keep only their place in it).

An entry whose line does not validate is set aside: reported once (file, line, first problem),
kept in the tree as an ``invalid`` entry that no context includes, the file left unchanged.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

from pi_core.ai.messages import AgentMessage
from pi_core.session.entries import MessageEntry, SessionEntry, UnknownEntry, parse_entry
from pi_core.session.index import EntryMeta
from pi_core.session.lines import message_entry_from_line, plain_message_from_line, wrap_message
from pi_core.session.reader import LineSource, LoadIssue

logger = logging.getLogger("pi.session")

#: The ``type`` an entry gets in memory when its line does not validate (see ``EntryLoader.load``).
INVALID_ENTRY = "invalid"


class Invalidated(Exception):
    """An entry on a context's path turned out invalid and was set aside: build it again."""


class EntryLoader:
    """Builds the entries of one session file from its records, and keeps what was wrong."""

    def __init__(self) -> None:
        #: Where records read without keeping their text get it (``None``: every line is kept).
        self.source: LineSource | None = None
        #: The session file named in the problems found (empty in memory).
        self.file = ""
        #: Problems found while reading the file and since (``SessionManager.load_issues``).
        self.issues: list[LoadIssue] = []
        self._encoding_reported: set[int] = set()

    def close_source(self) -> None:
        """Release the file descriptor (the next read reopens it)."""
        if self.source is not None:
            self.source.close()

    def drop_source(self) -> None:
        """Forget the file the records were read from (another file or a new session follows)."""
        if self.source is not None:
            self.source.close()
            self.source = None
        self._encoding_reported = set()

    def text(self, meta: EntryMeta) -> str:
        """The JSON line of a record: kept in memory, or read back from the file."""
        line = meta.line
        if line is not None:
            return line
        assert self.source is not None and meta.span, f"entry {meta.id} has no line"
        raw = self.source.read(meta.span)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:  # the scan did not decode it: as the reader would
            if meta.line_no not in self._encoding_reported:
                self._encoding_reported.add(meta.line_no)
                self.report(
                    meta.line_no,
                    "encoding",
                    f"not valid UTF-8 (byte {exc.start + 1}); read with U+FFFD in place of the bad bytes",
                )
            return raw.decode("utf-8", "replace")

    def report(self, line: int, kind: str, message: str) -> None:
        """A problem of the file found after it was opened: kept in :attr:`issues` and logged."""
        issue = LoadIssue(self.file, line, kind, message)
        self.issues.append(issue)
        logger.warning("%s", issue if line else f"{kind}: {message}")

    def load(self, meta: EntryMeta) -> SessionEntry:
        """The entry model of a record, built once and then kept on the record.

        Entries never change once appended, so the model stays valid for the session's lifetime
        (a reload or another session brings new records). A message entry whose message a
        context already built is wrapped around that very instance when its line is plain.
        """
        entry = meta.entry
        if entry is not None:
            return entry
        try:
            if meta.type == "message":
                message = meta.message
                if message is not None and meta.plain:
                    entry = wrap_message(meta.id, meta.parent_id, meta.timestamp, message)
                else:
                    entry = message_entry_from_line(self.text(meta), meta.key)
                meta.message = None  # the entry holds it now
            else:
                entry = parse_entry(self.text(meta), meta.type)
        except ValidationError as exc:
            entry = self._set_aside(meta, exc)
        meta.entry = entry
        return entry

    def load_message(self, meta: EntryMeta) -> AgentMessage:
        """The message of a ``message`` entry, built from its line without the entry model and
        kept on the record (for the next context and for the entry model)."""
        entry = meta.entry
        if entry is not None:
            assert isinstance(entry, MessageEntry)
            return entry.message
        message = meta.message
        if message is not None:  # validated while the file was read, or by an earlier context
            return message
        try:
            message, meta.plain = plain_message_from_line(self.text(meta), meta.key)
        except ValidationError as exc:
            meta.entry = self._set_aside(meta, exc)
            raise Invalidated from None
        meta.message = message
        return message

    def load_for_context(self, meta: EntryMeta) -> SessionEntry:
        kind = meta.type
        entry = self.load(meta)
        if meta.type is not kind:  # set aside just now: the context must be built without it
            raise Invalidated
        return entry

    def _set_aside(self, meta: EntryMeta, exc: ValidationError) -> SessionEntry:
        """An entry whose line does not validate: reported once (file, line, first problem) and
        kept in the tree as an :class:`UnknownEntry` of type ``invalid``, which no context
        includes. Its children stay attached; the file is not changed."""
        problem = exc.errors()[0] if exc.errors() else None
        kind = "invalid-entry"
        if problem is not None and problem["type"] == "json_invalid":
            # A line only scanned when the file was opened (see reader._SCANNED_LINE)
            kind = "garbled"
            message = f"line is not valid JSON ({problem['msg']}); kept as is, left out of the context"
        else:
            detail = f"{'.'.join(map(str, problem['loc']))}: {problem['msg']}" if problem else str(exc)
            message = f"invalid {meta.type or 'entry'} entry ({detail}); left out of the context"
        if meta.line_no:
            self.report(meta.line_no, kind, message)
        else:
            self.issues.append(LoadIssue(self.file, 0, kind, message))
            logger.warning("%s", f"entry {meta.id}: {message}")
        meta.type = INVALID_ENTRY
        meta.message = None
        return UnknownEntry(
            type=INVALID_ENTRY, id=meta.id, parent_id=meta.parent_id, timestamp=meta.timestamp
        )
