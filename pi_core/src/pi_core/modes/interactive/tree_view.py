"""The session tree as picker rows for ``/tree``: one line per entry, branches drawn with guides.

A chain of single children stays at one indentation; where an entry has several children each
child starts a branch (``├─``/``└─``) and the guide ``│`` runs down beside the later siblings.
The branch holding the active leaf comes first. Filter modes are pi's: ``default`` hides
bookkeeping entries (labels, plugin state, model and thinking changes, session names),
``no-tools`` also tool results, ``user-only`` shows user messages, ``labeled-only`` labelled
entries, ``all`` everything. Assistant messages with no text (tool calls only) are hidden unless
they ended in an error or abort, or are the active leaf.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_core.ai.messages import text_of

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")

_BOOKKEEPING = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
#: Longest text shown for one entry (the picker cuts at the terminal width anyway).
TEXT_LIMIT = 200


@dataclass(frozen=True)
class TreeRow:
    entry_id: str
    text: str

    def __str__(self) -> str:
        return self.text


def tree_rows(roots: Sequence[Any], leaf_id: str | None, mode: FilterMode = "default") -> list[TreeRow]:
    """Rows for the entries of ``roots`` (``SessionManager.get_tree()``) that ``mode`` shows."""
    parents: dict[str, str | None] = {}
    nodes: list[Any] = list(roots)
    while nodes:
        node = nodes.pop()
        for child in node.children:
            parents[child.entry.id] = node.entry.id
            nodes.append(child)
    active: set[str] = set()
    current = leaf_id
    while current is not None and current not in active:
        active.add(current)
        current = parents.get(current)
    tool_calls = _tool_calls(roots)

    shown: list[tuple[str, str]] = []  # (entry id, text)
    # (node, guide for its own line, guide its descendants continue with)
    stack: list[tuple[Any, str, str]] = []
    ordered = _active_first(roots, active)
    branched = len(ordered) > 1
    for index in reversed(range(len(ordered))):
        last = index == len(ordered) - 1
        stack.append(_branch(ordered[index], "", last) if branched else (ordered[index], "", ""))
    while stack:
        node, own, below = stack.pop()
        entry = node.entry
        if _shown(node, leaf_id, mode):
            label = f" [{node.label}]" if node.label else ""
            shown.append((entry.id, f"{own}{describe(entry, tool_calls)}{label}"))
        children = _active_first(node.children, active)
        if len(children) == 1:
            stack.append((children[0], below, below))
            continue
        for index in reversed(range(len(children))):
            stack.append(_branch(children[index], below, index == len(children) - 1))
    # The active position: the leaf, or the nearest entry above it that this filter shows.
    ids = {entry_id for entry_id, _ in shown}
    here = leaf_id
    while here is not None and here not in ids:
        here = parents.get(here)
    return [TreeRow(entry_id, text + ("  ← active" if entry_id == here else "")) for entry_id, text in shown]


def active_index(rows: Sequence[TreeRow]) -> int:
    """Where the picker starts: the active row (the last one when no row is marked)."""
    return next((i for i, row in enumerate(rows) if row.text.endswith("← active")), max(0, len(rows) - 1))


def _branch(node: Any, guide: str, last: bool) -> tuple[Any, str, str]:
    return node, guide + ("└─ " if last else "├─ "), guide + ("   " if last else "│  ")


def _active_first(nodes: Sequence[Any], active: set[str]) -> list[Any]:
    return sorted(nodes, key=lambda node: node.entry.id not in active)  # stable: file order otherwise


def _shown(node: Any, leaf_id: str | None, mode: FilterMode) -> bool:
    entry = node.entry
    message: Any = entry.message if entry.type == "message" else None
    role = getattr(message, "role", None)
    if (
        role == "assistant"
        and entry.id != leaf_id
        and not text_of(message.content)
        and message.stop_reason not in ("error", "aborted")
    ):
        return False  # tool calls only: the tool results below say what happened
    if mode == "all":
        return True
    if mode == "user-only":
        return role == "user"
    if mode == "labeled-only":
        return node.label is not None
    if entry.type in _BOOKKEEPING:
        return False
    return not (mode == "no-tools" and role == "toolResult")


def describe(entry: Any, tool_calls: dict[str, tuple[str, Any]] | None = None) -> str:
    """One line for an entry: who said what, or what kind of bookkeeping it is."""
    kind = entry.type
    if kind == "message":
        return _describe_message(entry.message, tool_calls or {})
    if kind == "custom_message":
        return f"[{entry.custom_type}]: {_flat(text_of(entry.content))}"
    if kind == "compaction":
        return f"[compaction: {round(entry.tokens_before / 1000)}k tokens]"
    if kind == "branch_summary":
        return f"[branch summary]: {_flat(entry.summary)}"
    if kind == "model_change":
        return f"[model: {entry.model_id}]"
    if kind == "thinking_level_change":
        return f"[thinking: {entry.thinking_level}]"
    if kind == "custom":
        return f"[custom: {entry.custom_type}]"
    if kind == "label":
        return f"[label: {entry.label or '(cleared)'}]"
    if kind == "session_info":
        return f"[title: {entry.name or 'empty'}]"
    return f"[{kind}]"


def _describe_message(message: Any, tool_calls: dict[str, tuple[str, Any]]) -> str:
    role = message.role
    if role == "user":
        return f"user: {_flat(text_of(message.content))}"
    if role == "assistant":
        text = _flat(text_of(message.content))
        if text:
            return f"assistant: {text}"
        if message.stop_reason == "aborted":
            return "assistant: (aborted)"
        if message.error_message:
            return f"assistant: {_flat(message.error_message)[:80]}"
        return "assistant: (no content)"
    if role == "toolResult":
        name, arguments = tool_calls.get(message.tool_call_id, (message.tool_name or "tool", None))
        return f"[{name}{_argument_hint(arguments)}]"
    if role == "bashExecution":
        return f"[bash]: {_flat(message.command)}"
    return f"[{role}]"


def _argument_hint(arguments: Any) -> str:
    """The argument that says most about a tool call: a path, a command, a pattern."""
    if not isinstance(arguments, dict):
        return ""
    for key in ("path", "file_path", "command", "pattern", "query", "url"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return f": {_flat(value)[:80]}"
    return ""


def _tool_calls(roots: Sequence[Any]) -> dict[str, tuple[str, Any]]:
    """Tool call id → (tool name, arguments), so a tool result can show what was called."""
    calls: dict[str, tuple[str, Any]] = {}
    nodes = list(roots)
    while nodes:
        node = nodes.pop()
        nodes.extend(node.children)
        message: Any = getattr(node.entry, "message", None)
        if getattr(message, "role", None) == "assistant":
            for block in message.content:
                if block.type == "toolCall":
                    calls[block.id] = (block.name, block.arguments)
    return calls


def _flat(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TEXT_LIMIT else flat[: TEXT_LIMIT - 1] + "…"
