"""The ``/tree`` selector on the screen: pi 1.6.0's session tree in place of the editor.

Between two rules: the title, a line of the keys, and the search typed so far; then the tree
(half the terminal's height at most), the position with the filter's tag, and a closing rule.
Keys are pi's action ids with pi's defaults, and ``keybindings.json`` may rebind them: Up/Down
move (wrapping), Left/Right and PageUp/PageDown page, Ctrl+Left/Right (or Alt) fold a branch
segment or jump between segment starts, Ctrl+D/T/U/L/A set a filter (again: back to the default
one), Ctrl+O cycles the filters, Shift+L edits the highlighted entry's label in place (a field
with pi's line editing, :mod:`.line_edit`), Shift+T shows when each label was set, Ctrl+X copies
the entry's text; typing searches, Backspace erases, Esc clears the search and then closes.
Enter picks the highlighted entry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.utils import get_cwidth

from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.picker import Selector, selector_sequence
from pi_core.modes.interactive.styles import ReplStyles
from pi_core.modes.interactive.tree_view import FilterMode, TreeRow, TreeState

#: pi's action ids the tree reacts to, with pi's default keys.
TREE_ACTIONS: dict[str, tuple[str, ...]] = {
    "tui.select.up": ("up",),
    "tui.select.down": ("down",),
    "tui.editor.cursorLeft": ("left",),
    "tui.editor.cursorRight": ("right",),
    "tui.select.pageUp": ("pageUp",),
    "tui.select.pageDown": ("pageDown",),
    "app.tree.foldOrUp": ("ctrl+left", "alt+left"),
    "app.tree.unfoldOrDown": ("ctrl+right", "alt+right"),
    "tui.select.confirm": ("enter",),
    "tui.select.cancel": ("escape", "ctrl+c"),
    "app.message.copy": ("ctrl+x",),
    "app.tree.editLabel": ("shift+l",),
    "app.tree.toggleLabelTimestamp": ("shift+t",),
    "app.tree.filter.default": ("ctrl+d",),
    "app.tree.filter.noTools": ("ctrl+t",),
    "app.tree.filter.userOnly": ("ctrl+u",),
    "app.tree.filter.labeledOnly": ("ctrl+l",),
    "app.tree.filter.all": ("ctrl+a",),
    "app.tree.filter.cycleForward": ("ctrl+o",),
    "app.tree.filter.cycleBackward": ("shift+ctrl+o",),
    "tui.editor.deleteCharBackward": ("backspace",),
}
#: The key help line: (action ids, what they do, whether the words come before the keys).
_HELP: tuple[tuple[tuple[str, ...], str, bool], ...] = (
    (("tui.select.up", "tui.select.down"), "move", False),
    (("tui.editor.cursorLeft", "tui.editor.cursorRight"), "page", False),
    (("app.tree.foldOrUp", "app.tree.unfoldOrDown"), "branch", False),
    (("app.message.copy",), "copy", False),
    (("app.tree.editLabel",), "label", False),
    (("app.tree.toggleLabelTimestamp",), "label time", False),
    (
        (
            "app.tree.filter.default",
            "app.tree.filter.noTools",
            "app.tree.filter.userOnly",
            "app.tree.filter.labeledOnly",
            "app.tree.filter.all",
        ),
        "filters",
        True,
    ),
    (("app.tree.filter.cycleForward", "app.tree.filter.cycleBackward"), "cycle", True),
)
_FILTER_KEYS: dict[str, FilterMode] = {
    "app.tree.filter.noTools": "no-tools",
    "app.tree.filter.userOnly": "user-only",
    "app.tree.filter.labeledOnly": "labeled-only",
    "app.tree.filter.all": "all",
}
_ARROWS = {"up": "↑", "down": "↓", "left": "←", "right": "→", "pageUp": "pgup", "pageDown": "pgdn"}


def tree_keys(keymap: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[str]]:
    """The tree's keys: pi's defaults, with the ids ``keymap`` (``keybindings.json``) rebinds."""
    keymap = keymap or {}
    return {action: list(keymap.get(action, defaults)) for action, defaults in TREE_ACTIONS.items()}


#: A key as prompt-toolkit names it (``shift+<letter>`` is the capital letter).
tree_sequence = selector_sequence


class TreeSelector(Selector):
    """The session tree in the editor's place; it finishes with the chosen entry id."""

    def __init__(
        self,
        state: TreeState,
        *,
        keys: Mapping[str, Sequence[str]] | None = None,
        on_label: Callable[[str, str | None], None] | None = None,
        on_copy: Callable[[str], Awaitable[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.state = state
        self.tree_keys = tree_keys(keys)
        self.on_label = on_label
        self.on_copy = on_copy
        self._styles = styles
        #: The label being edited: (entry id, its field), or ``None``.
        self.editing: tuple[str, LineEdit] | None = None
        self._keymap = keys or {}
        #: A note for the status line (what Ctrl+X did).
        self.note = ""
        self._copying: set[asyncio.Task[None]] = set()
        super().__init__()

    # --- keys -----------------------------------------------------------------------------------

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        editing = Condition(lambda: self.editing is not None)
        browsing = ~editing
        state = self.state
        # The label field: pi's line editing (bound first, so Enter and Esc below stay its own).
        bind_line_edit(
            bindings,
            lambda: self.editing[1] if self.editing is not None else None,
            keymap=self._keymap,
            filter=editing,
        )

        def on(action: str, handler: Callable[[], None]) -> None:
            for key in self.tree_keys.get(action, ()):
                sequence = tree_sequence(key)
                if sequence is not None:
                    bindings.add(*sequence, filter=browsing)(
                        lambda event, handler=handler: self._key(handler)
                    )

        on("tui.select.up", lambda: state.move(-1))
        on("tui.select.down", lambda: state.move(1))
        on("tui.editor.cursorLeft", lambda: state.page_by(-1))
        on("tui.select.pageUp", lambda: state.page_by(-1))
        on("tui.editor.cursorRight", lambda: state.page_by(1))
        on("tui.select.pageDown", lambda: state.page_by(1))
        on("app.tree.foldOrUp", state.fold_or_up)
        on("app.tree.unfoldOrDown", state.unfold_or_down)
        on("tui.select.confirm", self._choose)
        on("tui.select.cancel", self._cancel)
        on("app.message.copy", self._copy)
        on("app.tree.editLabel", self._edit_label)
        on("app.tree.toggleLabelTimestamp", self._toggle_times)
        on("app.tree.filter.default", lambda: state.set_mode("default"))
        for action, mode in _FILTER_KEYS.items():
            on(action, lambda mode=mode: state.toggle_mode(mode))  # type: ignore[misc]
        on("app.tree.filter.cycleForward", lambda: state.cycle_mode(1))
        on("app.tree.filter.cycleBackward", lambda: state.cycle_mode(-1))
        on("tui.editor.deleteCharBackward", state.erase)

        @bindings.add(Keys.Any, filter=browsing)
        def _type(event: KeyPressEvent) -> None:
            self._key(lambda: state.type_text(event.data))

        # The label field: Enter saves (empty: removes), Esc goes back.
        @bindings.add("enter", filter=editing)
        def _save(event: KeyPressEvent) -> None:
            assert self.editing is not None
            entry_id, field = self.editing
            self.editing = None
            label = field.text.strip() or None
            if self.on_label is not None:
                self.on_label(entry_id, label)
            state.set_label(entry_id, label)

        @bindings.add("escape", filter=editing)
        @bindings.add("c-c", filter=editing)
        def _back(event: KeyPressEvent) -> None:
            self.editing = None

        return bindings

    def _key(self, handler: Callable[[], None]) -> None:
        self.note = ""
        handler()

    def _choose(self) -> None:
        item = self.state.selected
        if item is not None:
            self.finish(item.entry_id)

    def _cancel(self) -> None:
        if not self.state.clear_query():
            self.finish(None)

    def _edit_label(self) -> None:
        item = self.state.selected
        if item is not None:  # a fresh field, its cursor at the start (as pi's)
            self.editing = (item.entry_id, LineEdit(item.node.label or ""))

    def _toggle_times(self) -> None:
        self.state.show_label_times = not self.state.show_label_times

    def _copy(self) -> None:
        text = self.state.copy_text()
        if text is None:
            self.note = "Selected entry has no text to copy"
            return
        if self.on_copy is not None:
            copying = self.on_copy(text)

            async def report() -> None:
                self.note = await copying
                self.invalidate()

            task = asyncio.create_task(report())
            self._copying.add(task)
            task.add_done_callback(self._copying.discard)

    # --- drawing --------------------------------------------------------------------------------

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def fragments(self) -> StyleAndTextTuples:
        width = self.width()
        rule = ("class:separator " + self._fg("border"), "─" * width)
        lines: list[StyleAndTextTuples] = [
            [],
            [rule],
            [(f"bold {self._fg('text')}", "   Session Tree")],
            *(_line((self._fg("muted"), line)) for line in self._help_lines(width)),
            self._search_line(),
            [rule],
            [],
        ]
        if self.editing is not None:
            lines += self._label_lines()
        else:
            lines += self._tree_lines()
        lines += [[], [rule]]
        return self.join(lines, opening=2)

    def _help_lines(self, width: int) -> list[str]:
        items = []
        for actions, what, words_first in _HELP:
            keys = _key_names([self._first_key(action) for action in actions])
            if keys:
                items.append(f"{what} {keys}" if words_first else f"{keys} {what}")
        lines: list[str] = []
        current = ""
        for item in items:
            candidate = f"{current} · {item}" if current else f"  {item}"
            if current and get_cwidth(candidate) > width:
                lines.append(current)
                candidate = f"  {item}"
            current = candidate
        return [*lines, current] if current else lines

    def _bound(self, action: str) -> list[str]:
        """The keys of ``action`` a terminal can send."""
        return [key for key in self.tree_keys.get(action, ()) if tree_sequence(key) is not None]

    def _first_key(self, action: str) -> str | None:
        return next(iter(self._bound(action)), None)

    def _search_line(self) -> StyleAndTextTuples:
        line: StyleAndTextTuples = [(self._fg("muted"), "  Type to search:"), ("", " ")]
        if self.state.query:
            line.append((self._fg("accent"), self.state.query))
        if self.editing is None:
            line.append(("reverse", " "))
        return line

    def _label_lines(self) -> list[StyleAndTextTuples]:
        assert self.editing is not None
        confirm = "/".join(self._bound("tui.select.confirm"))
        cancel = "/".join(self._bound("tui.select.cancel"))
        return [
            [(self._fg("muted"), "  Label (empty to remove):")],
            [("", "  > "), *self.editing[1].fragments(self.width() - 4)],
            [("", "  "), (self._fg("dim"), confirm), (self._fg("muted"), " save  "),
             (self._fg("dim"), cancel), (self._fg("muted"), " cancel")],
        ]  # fmt: skip

    def _tree_lines(self) -> list[StyleAndTextTuples]:
        state = self.state
        status = _line((self._fg("muted"), f"  {state.status()}"))
        if self.note:
            status.append((self._fg("dim"), f"  {self.note}"))
        if not state.visible:
            return [_line((self._fg("muted"), "  No entries found")), status]
        rows = [self._row(row) for row in state.rows()]
        shift = _pan(
            rows, self.width() - 2, next((i for i, row in enumerate(state.rows()) if row.selected), None)
        )
        return [[*gutter, *_columns(body, shift, self.width() - 2)] for gutter, body, _ in rows] + [status]

    def _row(self, row: TreeRow) -> tuple[StyleAndTextTuples, StyleAndTextTuples, int]:
        """The row's cursor column, its body, and where the entry's own text starts in the body."""
        accent = self._fg("accent")
        # The theme's selectedBg (none when the theme has none, as pi); reverse without a theme.
        selected_bg = self._styles().bg.get("selectedBg", "") if self._styles is not None else "reverse"
        base = selected_bg if row.selected else ""
        bold = " bold" if row.selected else ""
        gutter: StyleAndTextTuples = [(f"{accent} {base}", "› ") if row.selected else ("", "  ")]
        body: StyleAndTextTuples = [(f"{self._fg('dim')} {base}", row.prefix)]
        if row.fold:
            body.append((f"{accent} {base}", "⊞ "))
        if row.active:
            body.append((f"{accent} {base}", "• "))
        anchor = sum(get_cwidth(text) for _, text, *_ in body)
        if row.label is not None:
            body.append((f"{self._fg('warning')} {base}", f"[{row.label}] "))
        if row.label_time is not None:
            body.append((f"{self._fg('muted')} {base}", f"{row.label_time} "))
        body.append((f"{self._fg(row.head_role)} {base}{bold}", row.head))
        body.append((f"{self._fg(row.text_role)} {base}{bold}", row.text))
        return gutter, body, anchor


def _pan(
    rows: Sequence[tuple[StyleAndTextTuples, StyleAndTextTuples, int]], view: int, selected: int | None
) -> int:
    """How far the row bodies shift left, as pi's tree: only when the highlighted entry's text
    would start too far right to read, and then so that a little of its guides stays in view."""
    widest = max((sum(get_cwidth(text) for _, text, *_ in body) for _, body, _ in rows), default=0)
    most = max(0, widest - view)
    if selected is None or most == 0:
        return 0
    anchor = rows[selected][2]
    if anchor <= view - min(20, max(4, view // 3)):
        return 0
    return min(most, anchor - min(12, max(2, view // 4)))


def _columns(fragments: StyleAndTextTuples, start: int, width: int) -> StyleAndTextTuples:
    """The part of ``fragments`` from column ``start``, ``width`` columns at most."""
    if start <= 0:
        return fragments
    kept: StyleAndTextTuples = []
    column = 0
    for style, text, *_ in fragments:
        piece = []
        for char in text:
            size = get_cwidth(char)
            if start <= column and column + size <= start + width:
                piece.append(char)
            column += size
        if piece:
            kept.append((style, "".join(piece)))
    return kept


def _line(*fragments: tuple[str, str]) -> StyleAndTextTuples:
    return list(fragments)


def _key_names(keys: Sequence[str | None]) -> str:
    """Keys for the help line as pi writes them: ``ctrl+d/t/u`` for keys with one modifier in
    common, arrows as ``↑``; keys that cannot be bound are left out."""
    names = [key for key in keys if key is not None]
    if not names:
        return ""
    split = [key.rpartition("+") for key in names]
    prefix = split[0][0] + split[0][1]
    if len(names) > 1 and prefix and all(head + plus == prefix for head, plus, _ in split):
        text = prefix + "/".join(tail for _, _, tail in split)
    else:
        text = "/".join(names)
    for name, arrow in _ARROWS.items():
        text = _replace_word(text, name, arrow)
    return text


def _replace_word(text: str, word: str, replacement: str) -> str:
    import re

    return re.sub(rf"\b{word}\b", replacement, text)
