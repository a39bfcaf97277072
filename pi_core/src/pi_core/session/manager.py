"""``SessionManager``: one session file as an append-only tree with a movable leaf (pi's SessionManager).

Appends hang the new entry under the leaf and make it the leaf; branching only moves the leaf.
The file is created when the first assistant message exists (as pi does, so pi never has to
duplicate lines later) and then grows by one line per entry. Opening never rewrites a file,
except to migrate an old format version as pi does. spec/sessions.md §8-§10, docs/sessions.md.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pi_core._files import open_regular
from pi_core._gc import gc_paused
from pi_core.ai.messages import AgentMessage, Usage, UserContentBlock, current_system_message
from pi_core.session.context import SessionContext, context_from_path, editable_target, iso_to_ms
from pi_core.session.entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
    to_wire,
)
from pi_core.session.forking import fork_session_file
from pi_core.session.index import EntryMeta, meta_from_entry
from pi_core.session.jsonl import dumps
from pi_core.session.limits import check_size, max_session_bytes
from pi_core.session.lines import plain_message_from_line
from pi_core.session.listing import SessionInfo, find_most_recent_session, list_sessions, list_sessions_all
from pi_core.session.loading import EntryLoader, Invalidated
from pi_core.session.paths import (
    default_session_dir,
    iso_now,
    new_entry_id,
    new_session_id,
    session_file_name,
)
from pi_core.session.reader import LoadIssue, SessionFileError, context_start, read_session_file
from pi_core.session.storage import SessionWriter

logger = logging.getLogger("pi.session")


class SessionReadOnlyError(RuntimeError):
    """Appending to a session that was opened read-only (written by a newer format version)."""


@dataclass(slots=True)
class SessionTreeNode:
    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


class SessionManager:
    """A session: header, entries in file order, id index, labels and the leaf pointer."""

    def __init__(
        self,
        cwd: str,
        session_dir: str | Path | None,
        session_file: str | Path | None,
        persist: bool,
        *,
        fsync: bool = False,
    ) -> None:
        self._cwd = cwd
        self._session_dir = Path(session_dir) if session_dir else None
        self._persist = persist
        self._fsync = fsync
        self._session_id = ""
        self._session_file: Path | None = None
        self._writer: SessionWriter | None = None
        self._header: dict[str, Any] = {}
        self._header_line = ""
        self._metas: list[EntryMeta] = []
        self._generation = 0
        #: Builds entries from their records, and keeps what was wrong with the file.
        self._loader = EntryLoader()
        self._prepared = False
        self._by_id: dict[str, EntryMeta] = {}
        #: The last branch handed out: its leaf's record and its entries (see ``get_branch``).
        self._branch_cache: tuple[EntryMeta, list[SessionEntry]] | None = None
        #: The last path ``_path_metas`` walked: its last record and the records (root first).
        self._path_cache: tuple[EntryMeta, list[EntryMeta]] | None = None
        #: The last context built and what it was built from (leaf, entries, problems found).
        self._context_cache: tuple[tuple[str, int, int], SessionContext] | None = None
        self._labels: dict[str, str] = {}
        self._label_times: dict[str, str] = {}
        self._leaf_id: str | None = None
        #: Lines (header + entries) already on disk; the rest waits for the first assistant message.
        self._on_disk = 0
        #: The error of the last failed write, ``None`` once a write went through.
        self.write_error: OSError | None = None
        self._has_assistant = False
        self._read_only = False
        if persist and self._session_dir is not None:
            self._session_dir.mkdir(parents=True, exist_ok=True)
        if session_file is not None:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # --- constructors ------------------------------------------------------------------------

    @classmethod
    def create(
        cls, cwd: str, session_dir: str | Path | None = None, *, fsync: bool = False
    ) -> SessionManager:
        """A new session in ``session_dir`` (default: the cwd's folder under the agent dir)."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        return cls(cwd, directory, None, True, fsync=fsync)

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: str | Path | None = None,
        cwd_override: str | None = None,
        *,
        fsync: bool = False,
    ) -> SessionManager:
        """Open a session file (created lazily if missing); its folder becomes the session dir."""
        resolved = Path(os.path.abspath(path))
        cwd = cwd_override
        if cwd is None:
            cwd = peek_header_cwd(resolved) or os.getcwd()
        directory = Path(session_dir) if session_dir else resolved.parent
        return cls(cwd, directory, resolved, True, fsync=fsync)

    @classmethod
    def continue_recent(cls, cwd: str, session_dir: str | Path | None = None) -> SessionManager:
        """The most recently modified session of the directory, or a new one."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        recent = find_most_recent_session(directory)
        return cls(cwd, directory, recent, True)

    @classmethod
    def in_memory(cls, cwd: str | None = None) -> SessionManager:
        """A session that never touches the disk (``--no-session``)."""
        return cls(cwd if cwd is not None else os.getcwd(), None, None, False)

    @classmethod
    def fork_from(
        cls,
        source_path: str | Path,
        target_cwd: str,
        session_dir: str | Path | None = None,
        *,
        session_id: str | None = None,
    ) -> SessionManager:
        """Copy every entry of another session file under a new header for ``target_cwd``
        (with ``session_id`` as the new session's id when given).

        The size limit applies as when the file is opened (to the part since its latest
        compaction): the lines before that compaction are only scanned and copied from the
        source file to the new one as they are, so a long compacted session forks within the
        memory its resume takes.
        """
        directory = Path(session_dir) if session_dir else default_session_dir(target_cwd)
        target = fork_session_file(source_path, target_cwd, directory, session_id)
        return cls(target_cwd, directory, target, True)

    @staticmethod
    def list_sessions(cwd: str, session_dir: str | Path | None = None) -> list[SessionInfo]:
        """Sessions of a cwd's folder (or of ``session_dir``), newest activity first."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd, create=False)
        return list_sessions(directory)

    @staticmethod
    def list_all(agent_dir: str | Path | None = None) -> list[SessionInfo]:
        """Sessions of every project folder under ``<agent dir>/sessions``, newest first."""
        return list_sessions_all(Path(agent_dir) if agent_dir else None)

    # --- session switching -------------------------------------------------------------------

    def set_session_file(self, session_file: str | Path) -> None:
        """Load ``session_file`` (or start a new session that will be written there)."""
        path = Path(os.path.abspath(session_file))
        self._close_writer()
        self._drop_source()
        start = context_start(path, within=max_session_bytes())
        check_size(path, start)
        loaded = read_session_file(path, prepare_messages=True, prepare_from=start) if path.exists() else None
        if loaded is None:
            # Missing or empty file: a new session whose lines will go into exactly this path.
            self.new_session()
            self._session_file = path
            self._loader.file = str(path)
            self._writer = SessionWriter(path, fsync=self._fsync) if self._persist else None
            return
        self._session_file = path
        self._loader.file = str(path)
        self._writer = SessionWriter(path, fsync=self._fsync) if self._persist else None
        self._loader.source = loaded.source
        self._header = loaded.header
        self._header_line = loaded.header_line
        self._session_id = loaded.header["id"]
        self._loader.issues = loaded.issues
        self._read_only = loaded.version > CURRENT_SESSION_VERSION
        self._set_entries(loaded.entries)
        self._prepared = True
        self._on_disk = 1 + len(self._metas)
        if loaded.migrated and self._writer is not None:
            lines: list[str | bytes] = [self._header_line]
            passthrough = iter(loaded.passthrough)
            pending = next(passthrough, None)
            for position, meta in enumerate(self._metas):
                while pending is not None and pending[0] <= position:
                    lines.append(pending[1])
                    pending = next(passthrough, None)
                lines.append(self._loader.text(meta))
            lines.extend(raw for _, raw in ([pending] if pending else []) + list(passthrough))
            self._writer.rewrite(lines)

    def new_session(self, id: str | None = None, parent_session: str | None = None) -> str | None:
        """Replace the session with an empty one (header only); returns its file path."""
        self._close_writer()
        self._drop_source()
        self._session_id = id or new_session_id()
        timestamp = iso_now()
        header = SessionHeader(
            version=CURRENT_SESSION_VERSION,
            id=self._session_id,
            timestamp=timestamp,
            cwd=self._cwd,
            parent_session=parent_session,
        )
        self._header = to_wire(header)
        self._header_line = dumps(self._header)
        self._set_entries([])
        self._on_disk = 0
        self._read_only = False
        self._loader.issues = []
        if self._persist and self._session_dir is not None:
            self._session_file = self._session_dir / session_file_name(timestamp, self._session_id)
            self._loader.file = str(self._session_file)
            self._writer = SessionWriter(self._session_file, fsync=self._fsync)
        return str(self._session_file) if self._session_file else None

    def _set_entries(self, metas: list[EntryMeta]) -> None:
        self._generation += 1
        self._prepared = False  # whether some metas may still carry a message prepared at open
        self._branch_cache = None
        self._path_cache = None
        self._context_cache = None
        self._metas = metas
        self._by_id = {meta.id: meta for meta in metas}
        self._labels = {}
        self._label_times = {}
        self._has_assistant = False
        for meta in metas:
            kind = meta.type
            if kind == "message":
                if meta.key == "assistant":
                    self._has_assistant = True
            elif kind == "label":
                self._index(meta)
        self._leaf_id = metas[-1].id if metas else None

    def _index(self, meta: EntryMeta) -> None:
        self._by_id[meta.id] = meta
        self._leaf_id = meta.id
        if meta.type == "message" and meta.key == "assistant":
            self._has_assistant = True
        elif meta.type == "label" and meta.key is not None:
            if meta.extra:
                self._labels[meta.key] = meta.extra
                self._label_times[meta.key] = meta.timestamp
            else:
                self._labels.pop(meta.key, None)
                self._label_times.pop(meta.key, None)

    def close(self) -> None:
        """Release the file descriptor (appends reopen it)."""
        self._close_writer()

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._loader.close_source()  # reopened by the next read

    def _drop_source(self) -> None:
        self._loader.drop_source()

    # --- plain accessors ---------------------------------------------------------------------

    @property
    def load_issues(self) -> list[LoadIssue]:
        """What was wrong with the session file: found while reading it, or since (an entry
        that did not validate when it was first built)."""
        return self._loader.issues

    def is_persisted(self) -> bool:
        return self._persist

    def is_read_only(self) -> bool:
        return self._read_only

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> str | None:
        return str(self._session_dir) if self._session_dir else None

    def get_session_id(self) -> str:
        return self._session_id

    def get_session_file(self) -> str | None:
        return str(self._session_file) if self._session_file else None

    def get_header(self) -> SessionHeader:
        return SessionHeader.model_validate(self._header)

    # --- appending ---------------------------------------------------------------------------

    def _append(self, entry: SessionEntry) -> str:
        if self._read_only:
            raise SessionReadOnlyError(
                f"{self._session_file}: written by a newer pi (format version "
                f"{self._header.get('version')}); not appending to it"
            )
        meta = meta_from_entry(entry)
        meta.line = dumps(to_wire(entry))
        meta.entry = None  # keep only the line; models are rebuilt on demand
        self._metas.append(meta)
        self._index(meta)
        self._persist_pending()
        return entry.id

    def _persist_pending(self) -> None:
        """Write what is not on disk yet. A failing write (a full disk, a vanished directory) is
        kept in :attr:`write_error`; the entries stay in memory and go out with the next append
        or :meth:`retry_write` — nothing is dropped, nothing raises into the caller's flow."""
        if self._writer is None or not self._has_assistant:
            return
        total = 1 + len(self._metas)
        if self._on_disk >= total:
            return
        lines = [self._header_line] if self._on_disk == 0 else []
        lines.extend(self._loader.text(meta) for meta in self._metas[max(self._on_disk - 1, 0) :])
        try:
            self._writer.append(lines)
        except OSError as error:
            self.write_error = error
            return
        self.write_error = None
        self._on_disk = total

    @property
    def unsaved_entries(self) -> int:
        """Entries in memory that are not in the file yet (after a failed write)."""
        if self._writer is None or not self._has_assistant:
            return 0
        return max(0, 1 + len(self._metas) - max(self._on_disk, 1))

    def retry_write(self) -> bool:
        """Try again to write what a failed write left behind; whether everything is on disk now."""
        self._persist_pending()
        return self.write_error is None

    def _base(self) -> dict[str, Any]:
        return {"id": new_entry_id(self._by_id), "parent_id": self._leaf_id, "timestamp": iso_now()}

    def append_message(self, message: AgentMessage) -> str:
        """Append a conversation message (not a summary: use the dedicated methods)."""
        if message.role in ("compactionSummary", "branchSummary"):
            raise ValueError(f"{message.role} messages are stored as their own entry types, not as messages")
        return self._append(MessageEntry(message=message, **self._base()))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append(ThinkingLevelChangeEntry(thinking_level=thinking_level, **self._base()))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append(ModelChangeEntry(provider=provider, model_id=model_id, **self._base()))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int | float,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
    ) -> str:
        """Append a compaction. As pi 1.6.0 does, it carries the prompt and tools replayed from the
        current context (``systemMessage``), which then leads the compacted context."""
        base = self._base()
        checkpoint = current_system_message(self.build_session_context().messages)
        if checkpoint is not None:
            checkpoint = checkpoint.model_copy(update={"timestamp": iso_to_ms(base["timestamp"])})
        entry = CompactionEntry(
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
            usage=usage,
            from_hook=from_hook,
            system_message=checkpoint,
            **base,
        )
        return self._append(entry)

    def append_context_edit(self, target_id: str, replacement: str | list[Any] | None = None) -> str:
        """From the next context on, leave out (``replacement`` ``None``) or replace the content of
        the message of ``target_id``, an entry on the current branch (pi 1.6.0's
        ``appendContextEdit``). A string replacement of an assistant or tool-result message is
        stored as one text block, as pi stores it."""
        target = self.get_entry(target_id)
        if target is None:
            raise KeyError(f"Entry {target_id} not found")
        if not any(meta.id == target_id for meta in self._path_metas(self._leaf_id)):
            raise ValueError(f"Entry {target_id} is not on the active branch")
        if not editable_target(target):
            raise ValueError(f"Entry {target_id} does not contribute editable model content")
        value: Any = None
        if replacement is not None:
            role = target.message.role if isinstance(target, MessageEntry) else "custom"
            if isinstance(replacement, str) and role in ("assistant", "toolResult"):
                value = {"content": [{"type": "text", "text": replacement}]}
            else:
                value = {"content": replacement if isinstance(replacement, str) else to_plain(replacement)}
        return self._append(ContextEditEntry(target_id=target_id, replacement=value, **self._base()))

    def append_usage(
        self, kind: str, provider: str, model: str, usage: Usage, note: str | None = None
    ) -> str:
        """Record model usage that is no message (pi 1.6.0's ``usage`` entry); counted in the totals."""
        entry = UsageEntry(
            kind=kind, provider=provider, model=model, usage=usage, note=note or None, **self._base()
        )
        return self._append(entry)

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        return self._append(CustomEntry(custom_type=custom_type, data=data, **self._base()))

    def append_session_info(self, name: str) -> str:
        return self._append(SessionInfoEntry(name=name.strip(), **self._base()))

    def append_custom_message_entry(
        self, custom_type: str, content: str | Sequence[UserContentBlock], display: bool, details: Any = None
    ) -> str:
        entry = CustomMessageEntry(
            custom_type=custom_type,
            content=content if isinstance(content, str) else list(content),
            display=display,
            details=details,
            **self._base(),
        )
        return self._append(entry)

    def append_label_change(self, target_id: str, label: str | None = None) -> str:
        """Set (non-empty ``label``) or clear the label of an existing entry."""
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        return self._append(LabelEntry(target_id=target_id, label=label, **self._base()))

    # --- reading the tree --------------------------------------------------------------------

    def get_session_name(self) -> str | None:
        """Name from the last ``session_info`` entry; an empty name clears it."""
        for meta in reversed(self._metas):
            if meta.type == "session_info":
                return (meta.key or "").strip() or None
        return None

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        return self.get_entry(self._leaf_id) if self._leaf_id else None

    def get_entry(self, id: str) -> SessionEntry | None:
        meta = self._by_id.get(id)
        return self._loader.load(meta) if meta is not None else None

    def get_children(self, parent_id: str | None) -> list[SessionEntry]:
        return [self._loader.load(meta) for meta in self._metas if meta.parent_id == parent_id]

    def get_label(self, id: str) -> str | None:
        return self._labels.get(id)

    def get_entries(self) -> list[SessionEntry]:
        """All entries in file order (header excluded)."""
        with gc_paused():
            return list(map(self._loader.load, self._metas))

    @property
    def entry_count(self) -> int:
        """How many entries the session holds (header excluded)."""
        return len(self._metas)

    @property
    def entries_generation(self) -> int:
        """Changes whenever the entries are replaced rather than appended to (another file,
        a new session, ``/fork``): what was computed from the first N entries stays valid
        while it is unchanged."""
        return self._generation

    def iter_counted(self, start: int = 0) -> Iterator[tuple[str, str | None, Any]]:
        """Per entry in file order, from the ``start``-th on: its type, its message role
        (``message`` entries) and what session statistics read from it — the message of an
        assistant or tool-result entry, the entry of a ``usage``, ``compaction`` or
        ``branch_summary`` — else ``None``.

        Messages are built from their lines without being kept, so counting a long session
        does not hold every message in memory (pi's ``getSessionStats`` walks all entries).
        """
        for meta in self._metas[start:] if start else self._metas:
            kind, role, item = meta.type, meta.key, None
            if kind == "message" and role in ("assistant", "toolResult"):
                if meta.entry is not None:
                    item = meta.entry.message  # type: ignore[union-attr]
                elif meta.message is not None:
                    item = meta.message
                elif meta.line is not None or meta.span:
                    try:
                        item = plain_message_from_line(self._loader.text(meta), role)[0]
                    except ValidationError:
                        item = None  # not counted; set aside and reported, as a context would
                        self._loader.load(meta)
            elif kind in ("usage", "compaction", "branch_summary"):
                try:
                    item = self._loader.load(meta)
                except SessionFileError:
                    item = None
            yield kind, role if kind == "message" else None, item

    def _path_metas(self, from_id: str | None) -> list[EntryMeta]:
        """The records from the root down to ``from_id`` (a new list).

        A run asks for the path of the leaf several times (context, compaction check, "context
        used", plugins), and on a 1M-entry branch each walk costs about a second: the last path
        is remembered, and a walk that reaches its end (the leaf it was for, typically a few
        appends ago) stops there and continues it.
        """
        by_id = self._by_id
        current = by_id.get(from_id) if from_id is not None else None
        if current is None:
            return []
        cached = self._path_cache
        end = cached[0] if cached is not None else None
        newer: list[EntryMeta] = []
        limit = len(by_id)  # a parent cycle (damaged file) cannot make the walk endless
        append, get = newer.append, by_id.get
        steps = 0
        while current is not None and current is not end and steps <= limit:
            append(current)
            steps += 1
            parent = current.parent_id
            current = get(parent) if parent is not None else None
        newer.reverse()
        if current is not None and current is end and cached is not None:
            path = cached[1] + newer
        elif steps > limit:  # parent cycle: keep each entry once, stop where it closes
            unique: dict[str, EntryMeta] = {}
            for meta in reversed(newer):
                unique.setdefault(meta.id, meta)
            path = list(unique.values())
            path.reverse()
            return path  # not remembered
        else:
            path = newer
        self._path_cache = (path[-1], path)
        return list(path)

    def get_branch(
        self, from_id: str | None = None, *, types: Collection[str] | None = None
    ) -> list[SessionEntry]:
        """Entries from the root down to ``from_id`` (default: the leaf); with ``types``, only
        the entries of those types (e.g. ``("custom",)`` for a plugin's state): chosen from the
        records, so no other entry is built — on a long session the difference between reading
        a few lines and parsing the whole branch.

        Called after every agent run, so it is cheap when repeated: entry models are kept on
        their records (``EntryLoader.load``) and the last branch is remembered, so a later call walks only
        from its leaf up to where the remembered branch ended (typically the entries appended
        since). The returned list is the caller's own; the entries in it are shared.
        """
        if types is not None:
            wanted = frozenset(types)
            path = self._path_metas(from_id if from_id is not None else self._leaf_id)
            chosen = [meta for meta in path if meta.type in wanted]
            with gc_paused():
                return [entry for entry in map(self._loader.load, chosen) if entry.type in wanted]
        target = from_id if from_id is not None else self._leaf_id
        by_id = self._by_id
        current = by_id.get(target) if target is not None else None
        if current is None:
            return []
        cached = self._branch_cache
        tail = cached[0] if cached is not None else None
        leaf = current
        newer: list[EntryMeta] = []
        limit = len(by_id)  # a parent cycle (damaged file) cannot make the walk endless
        while current is not None and current is not tail and len(newer) <= limit:
            newer.append(current)
            parent = current.parent_id
            current = by_id.get(parent) if parent is not None else None
        continues = current is not None and current is tail
        if len(newer) > limit:  # parent cycle: the general walk keeps each entry once
            newer, continues = self._path_metas(target)[::-1], False
        with gc_paused():
            loaded = list(map(self._loader.load, reversed(newer)))
        if continues:  # reached the remembered branch's leaf: that branch is our beginning
            assert cached is not None
            entries = cached[1] + loaded
        else:
            entries = loaded
        self._branch_cache = (leaf, entries)
        return list(entries)

    def latest_compaction_on_branch(self, from_id: str | None = None) -> CompactionEntry | None:
        """The last compaction entry between the root and ``from_id`` (default: the leaf), found
        from the records: no entry model is built for the rest of the branch."""
        target = from_id if from_id is not None else self._leaf_id
        for meta in reversed(self._path_metas(target)):
            if meta.type == "compaction":
                entry = self._loader.load(meta)
                return entry if isinstance(entry, CompactionEntry) else None
        return None

    def get_branch_since_compaction(self, from_id: str | None = None) -> list[SessionEntry]:
        """The entries of the branch to ``from_id`` (default: the leaf) from its latest compaction
        on (that compaction first), or the whole branch when it has none: what the "context
        used" figure reads, without building every entry of a long compacted branch."""
        path = self._path_metas(from_id if from_id is not None else self._leaf_id)
        for position in range(len(path) - 1, -1, -1):
            if path[position].type == "compaction":
                path = path[position:]
                break
        with gc_paused():
            return list(map(self._loader.load, path))

    def get_tree(self) -> list[SessionTreeNode]:
        """Root nodes (parentless, self-parented or orphaned entries); children oldest first."""
        nodes: dict[str, SessionTreeNode] = {}
        with gc_paused():
            for meta in self._metas:
                nodes[meta.id] = SessionTreeNode(
                    entry=self._loader.load(meta),
                    label=self._labels.get(meta.id),
                    label_timestamp=self._label_times.get(meta.id),
                )
        roots: list[SessionTreeNode] = []
        for meta in self._metas:
            node = nodes[meta.id]
            parent = nodes.get(meta.parent_id) if meta.parent_id not in (None, meta.id) else None
            (parent.children if parent is not None else roots).append(node)
        for node in nodes.values():
            node.children.sort(key=lambda child: _sort_time(child.entry.timestamp))
        return roots

    def build_session_context(self) -> SessionContext:
        """What the model sees from the current leaf.

        Start-up asks for it more than once before anything changes (the model, the agent's
        messages): until the leaf, the entries or the problems found change, the last context is
        handed out again, in a new list (the messages in it are shared, as always).
        """
        if self._leaf_id is None:
            return SessionContext()
        key = (self._leaf_id, len(self._metas), len(self.load_issues))
        cached = self._context_cache
        if cached is None or cached[0] != key:
            cached = self._context_cache = (key, self._build_context())
        context = cached[1]
        return SessionContext(list(context.messages), context.thinking_level, context.model)

    def _build_context(self) -> SessionContext:
        path = self._path_metas(self._leaf_id)
        load_entry, load_message = self._loader.load_for_context, self._loader.load_message
        with gc_paused(references=len(path)):
            for _attempt in range(len(path)):  # each retry has one more entry set aside
                try:
                    context = context_from_path(path, load_entry, load_message)
                    break
                except Invalidated:
                    continue
            else:
                context = context_from_path(path, load_entry, load_message)
        self._drop_prepared(path)
        return context

    def _drop_prepared(self, keep: Sequence[EntryMeta] = ()) -> None:
        """Forget messages validated at open that no context took (other branches, or before a
        compaction), so the manager holds only lines, records and what ``keep`` (the path of the
        context just built) refers to."""
        if self._prepared:
            self._prepared = False
            kept = [meta.message for meta in keep]
            for meta in reversed(self._metas):
                if meta.span:  # only scanned from here back: nothing was prepared there
                    break
                meta.message = None
            for meta, message in zip(keep, kept, strict=True):
                meta.message = message

    # --- branching ---------------------------------------------------------------------------

    def branch(self, branch_from_id: str) -> None:
        """Move the leaf to an existing entry; the next append starts a new branch there."""
        if branch_from_id not in self._by_id:
            raise KeyError(f"Entry {branch_from_id} not found")
        self._leaf_id = branch_from_id

    def reset_leaf(self) -> None:
        """Leaf before the first entry: the next append is a new root."""
        self._leaf_id = None

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
    ) -> str:
        """Move the leaf to ``branch_from_id`` (``None``: the root) and attach a branch summary there.

        As in pi 1.6.0, ``fromId`` is the leaf being left (``"root"`` when there was none), and
        ``usage`` is what writing the summary cost (counted in the session totals).
        """
        if branch_from_id is not None and branch_from_id not in self._by_id:
            raise KeyError(f"Entry {branch_from_id} not found")
        left = self._leaf_id
        self._leaf_id = branch_from_id
        base = self._base()
        entry = BranchSummaryEntry(
            from_id=left if left is not None else "root",
            summary=summary,
            details=details,
            usage=usage,
            from_hook=from_hook,
            **base,
        )
        return self._append(entry)

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Switch to a new session holding only the path to ``leaf_id`` (labels re-created);
        returns the new file path (``None`` in memory). Used by ``/fork`` and ``/clone``."""
        self._drop_prepared()
        path = [meta for meta in self._path_metas(leaf_id) if meta.type != "label"]
        if not path and leaf_id not in self._by_id:
            raise KeyError(f"Entry {leaf_id} not found")
        for meta in path:  # the new file gets these lines; the old file's reader goes
            if meta.line is None:
                meta.line, meta.span = self._loader.text(meta), 0
        previous_file = self.get_session_file()
        on_path = {meta.id for meta in path}
        labels = [(target, text, self._label_times.get(target)) for target, text in self._labels.items()]
        labels = [item for item in labels if item[0] in on_path]
        self.new_session(parent_session=previous_file if self._persist else None)
        taken = set(on_path)
        parent = path[-1].id if path else None
        metas = list(path)
        for target, text, stamp in labels:
            entry = LabelEntry(
                id=new_entry_id(taken),
                parent_id=parent,
                timestamp=stamp or iso_now(),
                target_id=target,
                label=text,
            )
            taken.add(entry.id)
            meta = meta_from_entry(entry)
            meta.line, meta.entry = dumps(to_wire(entry)), None
            metas.append(meta)
            parent = entry.id
        self._set_entries(metas)
        self._persist_pending()
        return self.get_session_file()


def _sort_time(timestamp: str) -> float:
    from pi_core.session.context import iso_to_ms

    return iso_to_ms(timestamp)


def peek_header_cwd(path: Path) -> str | None:
    """The ``cwd`` of a file's header without loading the whole file."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            first = handle.readline(1 << 20).removeprefix(b"\xef\xbb\xbf")
        header = SessionHeader.model_validate_json(first.decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    return header.cwd or None


def to_plain(blocks: list[Any]) -> list[Any]:
    """Content blocks as JSON objects (models dumped the way pi writes them, dicts as they are)."""
    return [block.to_json_dict() if hasattr(block, "to_json_dict") else block for block in blocks]
