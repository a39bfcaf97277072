"""The session tree of ``/tree`` as a navigable list: what each entry shows, how branches are drawn,
folding, filters and search. No drawing library here: :mod:`.tree_selector` puts it on the screen.

Layout follows pi 1.6.0. A chain of single children stays at one depth; where an entry has several
children each child starts a branch segment (``├─``/``└─``) one level deeper, and the entries after
a segment's first one go one level deeper again, with the guide ``│`` running down beside later
siblings. The branch holding the active leaf comes first; entries on the path to the leaf carry
``•``. A segment start (or a root) with entries below it can be folded (``⊟`` open, ``⊞`` folded).

Filter modes are pi's: ``default`` hides bookkeeping entries (labels, plugin state, model and
thinking changes, session names, context edits), ``no-tools`` also tool results, ``user-only``
shows user messages, ``labeled-only`` labelled entries, ``all`` everything. Assistant messages with
no text (tool calls only) are hidden unless they ended otherwise than ``stop``/``toolUse`` or are
the active leaf; usage records are never shown. When filters hide entries, what is below them
hangs from the nearest shown ancestor.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pi_core.ai.messages import text_of

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
#: What the status line adds for each filter mode (nothing for the default one), as pi.
FILTER_TAGS: dict[FilterMode, str] = {
    "default": "",
    "no-tools": " [no-tools]",
    "user-only": " [user]",
    "labeled-only": " [labeled]",
    "all": " [all]",
}

_BOOKKEEPING = frozenset(
    {"label", "custom", "model_change", "thinking_level_change", "session_info", "context_edit"}
)
#: Longest text taken from an entry's content (the screen cuts at its width anyway).
TEXT_LIMIT = 200


@dataclass
class TreeItem:
    """One entry of the tree, with where the current view draws it."""

    node: Any  # SessionTreeNode
    parent_id: str | None
    entry_id: str = ""
    #: Depth in the view (columns of three characters before the entry).
    depth: int = 0
    #: Whether a ``├``/``└`` connector is drawn at ``depth - 1``, and whether it is the last sibling.
    connector: bool = False
    last: bool = False
    #: Columns where a guide of an outer branch runs down: (column, drawn) — not drawn past its end.
    guides: tuple[tuple[int, bool], ...] = ()

    def __post_init__(self) -> None:
        self.entry_id = self.entry_id or str(self.node.entry.id)


@dataclass
class TreeRow:
    """What one visible row shows, in parts a renderer colours: ``prefix`` (guides and connector,
    fold sign in it), ``fold`` (``⊞`` of a folded row with no connector), ``active`` (on the path
    to the leaf), ``label`` and its ``label_time``, and the entry's own ``kind`` and ``text``."""

    entry_id: str
    prefix: str
    fold: bool
    active: bool
    label: str | None
    label_time: str | None
    head: str
    text: str
    #: Theme roles of ``head`` and ``text`` (``""``: the normal text colour).
    head_role: str
    text_role: str
    selected: bool

    @property
    def plain(self) -> str:
        """The row as plain text (what a terminal shows without colours)."""
        parts = [self.prefix, "⊞ " if self.fold else "", "• " if self.active else ""]
        if self.label is not None:
            parts.append(f"[{self.label}] ")
        if self.label_time is not None:
            parts.append(f"{self.label_time} ")
        return "".join(parts) + self.head + self.text


@dataclass
class TreeState:
    """The tree selector's state: the entries, what the filter, search and folds leave visible,
    and the highlighted row. Key handlers call its methods; :meth:`rows` says what to draw."""

    roots: Sequence[Any]
    leaf_id: str | None
    mode: FilterMode = "default"
    #: Rows the list shows at once (page keys move by this much).
    page: int = 10
    query: str = ""
    show_label_times: bool = False
    folded: set[str] = field(default_factory=set)
    items: list[TreeItem] = field(default_factory=list)
    visible: list[TreeItem] = field(default_factory=list)
    index: int = 0
    _selected_id: str | None = None
    _by_id: dict[str, TreeItem] = field(default_factory=dict)
    _active: set[str] = field(default_factory=set)
    _tool_calls: dict[str, tuple[str, Any]] = field(default_factory=dict)
    _children: dict[str | None, list[str]] = field(default_factory=dict)
    _parent: dict[str, str | None] = field(default_factory=dict)
    #: Each entry's search text, lowercased, made the first time a search needs it.
    _search_text: dict[str, str] = field(default_factory=dict)
    #: Assistant messages with tool calls only (no text, a normal end): never shown but the leaf.
    _calls_only: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._flatten()
        self._refresh()
        self.select(self.leaf_id)

    # --- what is shown -------------------------------------------------------------------------

    @property
    def selected(self) -> TreeItem | None:
        return self.visible[self.index] if self.visible else None

    def select(self, entry_id: str | None) -> None:
        """Highlight ``entry_id``, or the nearest shown entry above it (the last row if none)."""
        self.index = self._nearest_visible(entry_id)
        self._remember()

    def rows(self) -> list[TreeRow]:
        """The rows of the window around the highlight, ``page`` of them at most."""
        start = max(0, min(self.index - self.page // 2, len(self.visible) - self.page))
        return [
            self._row(item, start + i == self.index)
            for i, item in enumerate(self.visible[start : start + self.page])
        ]

    def status(self) -> str:
        """The line under the list: position, filter tag, whether label times are on."""
        position = f"({self.index + 1}/{len(self.visible)})" if self.visible else "(0/0)"
        return f"{position}{FILTER_TAGS[self.mode]}{' [+label time]' if self.show_label_times else ''}"

    def copy_text(self) -> str | None:
        """The highlighted entry's whole text (what Ctrl+X copies), ``None`` when it has none."""
        item = self.selected
        if item is None:
            return None
        entry = item.node.entry
        text: str | None = None
        if entry.type == "message":
            message = entry.message
            if message.role == "bashExecution":
                text = message.command
            elif hasattr(message, "content"):
                text = text_of(message.content) if not isinstance(message.content, str) else message.content
                if not text and message.role == "assistant":
                    text = message.error_message
        elif entry.type == "custom_message":
            text = text_of(entry.content)
        elif entry.type in ("compaction", "branch_summary"):
            text = entry.summary
        return text if text and text.strip() else None

    # --- keys -----------------------------------------------------------------------------------

    def move(self, delta: int) -> None:
        """Up/Down: one row, wrapping around at the ends."""
        if self.visible:
            self.index = (self.index + delta) % len(self.visible)
            self._remember()

    def page_by(self, pages: int) -> None:
        """Left/Right, PageUp/PageDown: a page, stopping at the ends."""
        if self.visible:
            self.index = max(0, min(len(self.visible) - 1, self.index + pages * self.page))
            self._remember()

    def fold_or_up(self) -> None:
        """Ctrl+Left: fold the highlighted segment, or go to the start of the segment above."""
        item = self.selected
        if item is None:
            return
        if self.foldable(item.entry_id) and item.entry_id not in self.folded:
            self.folded.add(item.entry_id)
            self._refresh()
        else:
            self._go(self._segment_start_up(item.entry_id))

    def unfold_or_down(self) -> None:
        """Ctrl+Right: unfold the highlighted segment, or go to the next segment start (or the
        branch's end)."""
        item = self.selected
        if item is None:
            return
        if item.entry_id in self.folded:
            self.folded.discard(item.entry_id)
            self._refresh()
        else:
            self._go(self._segment_start_down(item.entry_id))

    def set_mode(self, mode: FilterMode) -> None:
        self.mode = mode
        self.folded.clear()
        self._refresh()

    def toggle_mode(self, mode: FilterMode) -> None:
        """A filter's own key: that filter, or back to ``default`` when it is already on."""
        self.set_mode("default" if self.mode == mode else mode)

    def cycle_mode(self, step: int) -> None:
        self.set_mode(FILTER_MODES[(FILTER_MODES.index(self.mode) + step) % len(FILTER_MODES)])

    def type_text(self, text: str) -> None:
        if text and text.isprintable():
            self.query += text
            self.folded.clear()
            self._refresh()

    def erase(self) -> None:
        if self.query:
            self.query = self.query[:-1]
            self.folded.clear()
            self._refresh()

    def clear_query(self) -> bool:
        """Esc: clear the search; ``False`` when there was none (then Esc closes the tree)."""
        if not self.query:
            return False
        self.query = ""
        self.folded.clear()
        self._refresh()
        return True

    def set_label(self, entry_id: str, label: str | None, timestamp: str | None = None) -> None:
        """A label was written: show it (with the time it got, now unless given)."""
        item = self._by_id.get(entry_id)
        if item is None:
            return
        self._search_text.pop(entry_id, None)  # the label is searched too
        item.node.label = label
        item.node.label_timestamp = (timestamp or _now_iso()) if label else None
        self._refresh()

    def foldable(self, entry_id: str) -> bool:
        """A shown entry with shown entries below it that is a root or a segment start."""
        if not self._children.get(entry_id):
            return False
        parent = self._parent.get(entry_id)
        return parent is None or len(self._children.get(parent, ())) > 1

    # --- building -------------------------------------------------------------------------------

    def _flatten(self) -> None:
        """All entries in display order: depth first, the branch holding the leaf first."""
        parents: dict[str, str | None] = {}
        pending: list[tuple[Any, str | None]] = [(root, None) for root in self.roots]
        order: list[Any] = []
        while pending:
            node, parent = pending.pop()
            parents[node.entry.id] = parent
            order.append(node)
            pending.extend((child, node.entry.id) for child in node.children)
        self._active = set()
        current = self.leaf_id
        while current is not None and current in parents and current not in self._active:
            self._active.add(current)
            current = parents[current]
        self._tool_calls = _tool_calls(order)
        items: list[TreeItem] = []
        stack = list(reversed(self._active_first(self.roots)))
        while stack:
            node = stack.pop()
            item = TreeItem(node, parents[node.entry.id])
            items.append(item)
            stack.extend(reversed(self._active_first(node.children)))
        self.items = items
        self._by_id = {item.entry_id: item for item in items}
        self._calls_only = {item.entry_id for item in items if self._tool_calls_only(item)}

    def _tool_calls_only(self, item: TreeItem) -> bool:
        message: Any = getattr(item.node.entry, "message", None)
        return (
            getattr(message, "role", None) == "assistant"
            and item.entry_id != self.leaf_id
            and not text_of(message.content).strip()
            and message.stop_reason in ("stop", "toolUse", None)
        )

    def _active_first(self, nodes: Sequence[Any]) -> list[Any]:
        return sorted(nodes, key=lambda node: node.entry.id not in self._active)  # stable otherwise

    def _shown(self, item: TreeItem) -> bool:
        entry = item.node.entry
        kind = entry.type
        if kind == "usage":
            return False
        message: Any = entry.message if kind == "message" else None
        role = getattr(message, "role", None)
        if item.entry_id in self._calls_only:
            return False  # tool calls only: the tool results below say what happened
        mode = self.mode
        if mode == "user-only":
            passes = role == "user"
        elif mode == "labeled-only":
            passes = item.node.label is not None
        elif mode == "all":
            passes = True
        else:
            passes = kind not in _BOOKKEEPING and not (mode == "no-tools" and role == "toolResult")
        if not passes:
            return False
        words = self.query.lower().split()
        if words:
            searchable = self._search_text.get(item.entry_id)
            if searchable is None:
                searchable = self._search_text[item.entry_id] = _searchable(item.node).lower()
            return all(word in searchable for word in words)
        return True

    def _refresh(self) -> None:
        """Apply filter, search and folds again, lay the view out, keep the highlight."""
        shown = [item for item in self.items if self._shown(item)]
        if self.folded:
            hidden: set[str] = set()
            for item in self.items:  # parents come before their children
                if item.parent_id is not None and (item.parent_id in self.folded or item.parent_id in hidden):
                    hidden.add(item.entry_id)
            shown = [item for item in shown if item.entry_id not in hidden]
        self.visible = shown
        self._lay_out()
        self.index = (
            self._nearest_visible(self._selected_id)
            if self._selected_id
            else min(self.index, max(0, len(shown) - 1))
        )
        self._remember()

    def _lay_out(self) -> None:
        ids = {item.entry_id for item in self.visible}
        parent: dict[str, str | None] = {}
        children: dict[str | None, list[str]] = {None: []}
        for item in self.visible:
            above = item.parent_id
            while above is not None and above not in ids:
                above = self._by_id[above].parent_id if above in self._by_id else None
            parent[item.entry_id] = above
            children.setdefault(above, []).append(item.entry_id)
        self._parent, self._children = parent, children
        roots = children[None]
        # Several roots hang from an unseen root that branches: one level in, without connectors.
        several = len(roots) > 1
        stack: list[tuple[str, int, bool, bool, tuple[tuple[int, bool], ...], bool]] = [
            (root, 1 if several else 0, several, i == len(roots) - 1, (), several)
            for i, root in reversed(list(enumerate(roots)))
        ]
        while stack:
            entry_id, level, branched, last, guides, under_virtual = stack.pop()
            item = self._by_id[entry_id]
            depth = level - 1 if several else level
            item.depth = max(0, depth)
            item.connector = branched and not under_virtual
            item.last = last
            item.guides = guides
            below = children.get(entry_id, [])
            forks = len(below) > 1
            child_level = level + 1 if forks or (branched and level > 0) else level
            child_guides = (*guides, (max(0, item.depth - 1), not last)) if item.connector else guides
            for i in reversed(range(len(below))):
                stack.append((below[i], child_level, forks, i == len(below) - 1, child_guides, False))

    def _nearest_visible(self, entry_id: str | None) -> int:
        if not self.visible:
            return 0
        where = {item.entry_id: i for i, item in enumerate(self.visible)}
        current = entry_id
        seen: set[str] = set()
        while current is not None and current not in seen:
            if current in where:
                return where[current]
            seen.add(current)
            item = self._by_id.get(current)
            current = item.parent_id if item is not None else None
        return len(self.visible) - 1

    def _remember(self) -> None:
        if self.visible:
            self._selected_id = self.visible[self.index].entry_id

    def _go(self, entry_id: str) -> None:
        self.index = next(i for i, item in enumerate(self.visible) if item.entry_id == entry_id)
        self._remember()

    def _segment_start_down(self, entry_id: str) -> str:
        current = entry_id
        while True:
            below = self._children.get(current, [])
            if len(below) != 1:
                return below[0] if below else current
            current = below[0]

    def _segment_start_up(self, entry_id: str) -> str:
        position = {item.entry_id: i for i, item in enumerate(self.visible)}
        current = entry_id
        while True:
            parent = self._parent.get(current)
            if parent is None:
                return current
            if len(self._children.get(parent, ())) > 1 and position[current] < self.index:
                return current
            current = parent

    def _row(self, item: TreeItem, selected: bool) -> TreeRow:
        entry = item.node.entry
        folded = item.entry_id in self.folded
        columns: list[str] = []
        guides = dict(item.guides)
        for column in range(item.depth):
            if column in guides:
                columns.append("│  " if guides[column] else "   ")
            elif item.connector and column == item.depth - 1:
                sign = "⊞" if folded else "⊟" if self.foldable(item.entry_id) else "─"
                columns.append(("└" if item.last else "├") + sign + " ")
            else:
                columns.append("   ")
        label = item.node.label
        stamp = getattr(item.node, "label_timestamp", None)
        head, text = _describe(entry, self._tool_calls)
        head_role, text_role = _roles(entry)
        return TreeRow(
            entry_id=item.entry_id,
            prefix="".join(columns),
            fold=folded and not item.connector,
            active=item.entry_id in self._active,
            label=label,
            label_time=label_time(stamp) if self.show_label_times and label and stamp else None,
            head=head,
            text=text,
            head_role=head_role,
            text_role=text_role,
            selected=selected,
        )


def label_time(timestamp: str, now: datetime | None = None) -> str:
    """When a label was set, as pi shows it: ``HH:MM`` today, ``M/D HH:MM`` this year,
    ``YY/M/D HH:MM`` before (local time)."""
    try:
        when = datetime.fromisoformat(timestamp.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return timestamp
    now = now or datetime.now().astimezone()
    clock = f"{when:%H:%M}"
    if when.date() == now.date():
        return clock
    if when.year == now.year:
        return f"{when.month}/{when.day} {clock}"
    return f"{when:%y}/{when.month}/{when.day} {clock}"


def _now_iso() -> str:
    from datetime import UTC

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: Theme roles of the head and the text of each kind of row, as pi colours its tree.
_ROLES = {
    "user": ("accent", ""),
    "toolResult": ("muted", ""),
    "bashExecution": ("dim", ""),
    "custom_message": ("customMessageLabel", ""),
    "compaction": ("borderAccent", ""),
    "branch_summary": ("warning", ""),
}


def _roles(entry: Any) -> tuple[str, str]:
    if entry.type != "message":
        return _ROLES.get(entry.type, ("dim", ""))
    message = entry.message
    if message.role != "assistant":
        return _ROLES.get(message.role, ("dim", ""))
    if text_of(message.content).strip():
        return "success", ""
    if message.stop_reason != "aborted" and message.error_message:
        return "success", "error"
    return "success", "muted"


def describe(entry: Any, tool_calls: dict[str, tuple[str, Any]] | None = None) -> str:
    """One line for an entry: who said what, or what kind of bookkeeping it is."""
    head, text = _describe(entry, tool_calls or {})
    return head + text


def _describe(entry: Any, tool_calls: dict[str, tuple[str, Any]]) -> tuple[str, str]:
    """(head, text): the part coloured by kind (``user: ``) and the rest."""
    kind = entry.type
    if kind == "message":
        return _describe_message(entry.message, tool_calls)
    if kind == "custom_message":
        return f"[{entry.custom_type}]: ", _flat(text_of(entry.content))
    if kind == "compaction":
        return f"[compaction: {round(entry.tokens_before / 1000)}k tokens]", ""
    if kind == "branch_summary":
        return "[branch summary]: ", _flat(entry.summary)
    if kind == "model_change":
        return f"[model: {entry.model_id}]", ""
    if kind == "thinking_level_change":
        return f"[thinking: {entry.thinking_level}]", ""
    if kind == "custom":
        return f"[custom: {entry.custom_type}]", ""
    if kind == "label":
        return f"[label: {entry.label or '(cleared)'}]", ""
    if kind == "session_info":
        return f"[title: {entry.name or 'empty'}]", ""
    if kind == "context_edit":
        replacement = getattr(entry, "replacement", None)
        return (
            f"[context {'omit' if replacement is None else 'replace'}: {getattr(entry, 'target_id', '')}]",
            "",
        )
    return f"[{kind}]", ""


def _describe_message(message: Any, tool_calls: dict[str, tuple[str, Any]]) -> tuple[str, str]:
    role = message.role
    if role == "user":
        return "user: ", _flat(text_of(message.content))
    if role == "assistant":
        text = _flat(text_of(message.content))
        if text:
            return "assistant: ", text
        if message.stop_reason == "aborted":
            return "assistant: ", "(aborted)"
        if message.error_message:
            return "assistant: ", _flat(message.error_message)[:80]
        return "assistant: ", "(no content)"
    if role == "toolResult":
        call = tool_calls.get(message.tool_call_id)
        if call is None:
            return f"[{message.tool_name or 'tool'}]", ""
        return tool_call_text(*call), ""
    if role == "bashExecution":
        return f"[bash]: {_flat(message.command)}", ""
    return f"[{role}]", ""


def tool_call_text(name: str, arguments: Any) -> str:
    """A tool call in a few words, as pi's tree shows it: the path, the command, the pattern."""
    args = arguments if isinstance(arguments, dict) else {}

    def path(default: str = "") -> str:
        return _short_home(str(args.get("path") or args.get("file_path") or default))

    if name == "read":
        return f"[read: {path()}{_line_range(args.get('offset'), args.get('limit'))}]"
    if name in ("write", "edit"):
        return f"[{name}: {path()}]"
    if name == "bash":
        command = str(args.get("command") or "")
        flat = command.replace("\n", " ").replace("\t", " ").strip()
        return f"[bash: {flat[:50]}{'...' if len(command) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{args.get('pattern') or ''}/ in {path('.')}]"
    if name == "find":
        return f"[find: {args.get('pattern') or ''} in {path('.')}]"
    if name == "ls":
        return f"[ls: {path('.')}]"
    dumped = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return f"[{name}: {dumped[:40]}{'...' if len(dumped) > 40 else ''}]"


def _line_range(offset: Any, limit: Any) -> str:
    if offset is None and limit is None:
        return ""
    start = 1 if offset is None else _line_number(offset)
    if start is None:
        return ""
    if limit is None:
        return f":{start}"
    count = _line_number(limit)
    return "" if count is None else f":{start}-{start + count - 1}"


def _line_number(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _short_home(path: str) -> str:
    home = os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def _searchable(node: Any) -> str:
    """What typing searches in: the label, the role or entry kind, and the entry's words."""
    entry = node.entry
    parts: list[str] = [node.label] if node.label else []
    kind = entry.type
    if kind == "message":
        message = entry.message
        parts.append(message.role)
        content = getattr(message, "content", None)
        if content:
            parts.append(content if isinstance(content, str) else text_of(content))
        if message.role == "bashExecution":
            parts.append(message.command or "")
    elif kind == "custom_message":
        parts += [entry.custom_type, text_of(entry.content)]
    elif kind == "compaction":
        parts.append("compaction")
    elif kind == "branch_summary":
        parts += ["branch summary", entry.summary]
    elif kind == "session_info":
        parts += ["title", entry.name or ""]
    elif kind == "model_change":
        parts += ["model", entry.model_id]
    elif kind == "thinking_level_change":
        parts += ["thinking", entry.thinking_level]
    elif kind == "custom":
        parts += ["custom", entry.custom_type]
    elif kind == "label":
        parts += ["label", entry.label or ""]
    elif kind == "context_edit":
        parts += ["context edit", "omit" if getattr(entry, "replacement", None) is None else "replace"]
    return " ".join(parts)


def _tool_calls(nodes: Sequence[Any]) -> dict[str, tuple[str, Any]]:
    """Tool call id → (tool name, arguments), so a tool result can show what was called."""
    calls: dict[str, tuple[str, Any]] = {}
    for node in nodes:
        message: Any = getattr(node.entry, "message", None)
        if getattr(message, "role", None) == "assistant":
            for block in message.content:
                if block.type == "toolCall":
                    calls[block.id] = (block.name, block.arguments)
    return calls


def _flat(text: str) -> str:
    """One line: newlines and tabs as spaces, the ends trimmed, at most ``TEXT_LIMIT`` characters."""
    return text[:TEXT_LIMIT].replace("\n", " ").replace("\t", " ").strip()
