"""A one-line text field with pi's line editing, for the fields inside selectors.

The label field of ``/tree``, the rename field and the search field of ``/resume`` edit their
text through :class:`LineEdit`, with the keys of pi 1.6.0's single-line input (its
``tui.editor.*`` action ids and their default keys, which ``keybindings.json`` may rebind):
Left/Right (Ctrl+B/F) by character, Alt+Left/Right, Ctrl+Left/Right and Alt+B/F by word,
Home/End and Ctrl+A/E to the ends; Backspace and Delete (Ctrl+D) erase a character, Ctrl+W and
Alt+Backspace the word before the cursor, Alt+D and Alt+Delete the word after it, Ctrl+U and
Ctrl+K up to the start or the end; what was erased by word or to an end goes to a kill ring that
Ctrl+Y puts back (Alt+Y, right after, swaps in the entry before it); Ctrl+- (Ctrl+_) undoes. A
paste goes in as one line (newlines dropped, tabs as four spaces), as in pi's input.

Words are as pi's input finds them: a run of letters and digits (``_`` included) or a run of
punctuation, spaces skipped first. The cursor moves over a character with its combining marks,
variation selectors and zero-width joins at once.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.utils import get_cwidth

from pi_core.modes.interactive.picker import selector_sequence

#: pi's single-line input actions, with pi's default keys.
LINE_EDIT_ACTIONS: dict[str, tuple[str, ...]] = {
    "tui.editor.cursorLeft": ("left", "ctrl+b"),
    "tui.editor.cursorRight": ("right", "ctrl+f"),
    "tui.editor.cursorWordLeft": ("alt+left", "ctrl+left", "alt+b"),
    "tui.editor.cursorWordRight": ("alt+right", "ctrl+right", "alt+f"),
    "tui.editor.cursorLineStart": ("home", "ctrl+a"),
    "tui.editor.cursorLineEnd": ("end", "ctrl+e"),
    "tui.editor.deleteCharBackward": ("backspace",),
    "tui.editor.deleteCharForward": ("delete", "ctrl+d"),
    "tui.editor.deleteWordBackward": ("ctrl+w", "alt+backspace"),
    "tui.editor.deleteWordForward": ("alt+d", "alt+delete"),
    "tui.editor.deleteToLineStart": ("ctrl+u",),
    "tui.editor.deleteToLineEnd": ("ctrl+k",),
    "tui.editor.yank": ("ctrl+y",),
    "tui.editor.yankPop": ("alt+y",),
    "tui.editor.undo": ("ctrl+-",),
}
#: The ASCII punctuation pi's word moves stop at (inside a word too: ``foo.bar`` is two words).
_PUNCTUATION = set("(){}[]<>.,;:'\"!?+-=*/\\|&%^$#@~`")
_ZWJ = "\u200d"

_LastAction = Literal["type", "kill", "yank"] | None


def _joins(char: str) -> bool:
    """Whether ``char`` belongs to the character before it (a combining mark, a variation
    selector, a zero-width joiner, or what a joiner joins)."""
    return (
        unicodedata.combining(char) > 0
        or unicodedata.category(char) in ("Mn", "Me")
        or "\ufe00" <= char <= "\ufe0f"
        or "\U0001f3fb" <= char <= "\U0001f3ff"  # skin tones
        or char == _ZWJ
    )


def _next_boundary(text: str, index: int) -> int:
    """Where the character at ``index`` (with what joins it) ends."""
    if index >= len(text):
        return len(text)
    index += 1
    while index < len(text) and (_joins(text[index]) or text[index - 1] == _ZWJ):
        index += 1
    return index


def _previous_boundary(text: str, index: int) -> int:
    """Where the character before ``index`` (with what joins it) starts."""
    if index <= 0:
        return 0
    index -= 1
    while index > 0 and (_joins(text[index]) or text[index - 1] == _ZWJ):
        index -= 1
    return index


def _kind(char: str) -> str:
    if char.isspace():
        return "space"
    if char in _PUNCTUATION or (char != "_" and unicodedata.category(char)[0] in "PS"):
        return "punct"
    return "word"


def word_left(text: str, cursor: int) -> int:
    """Where a word move to the left from ``cursor`` lands (pi's ``findWordBackward``)."""
    while cursor > 0 and _kind(text[cursor - 1]) == "space":
        cursor -= 1
    if cursor == 0:
        return 0
    kind = _kind(text[cursor - 1])
    while cursor > 0 and (_kind(text[cursor - 1]) == kind or _joins(text[cursor - 1])):
        cursor -= 1
    return cursor


def word_right(text: str, cursor: int) -> int:
    """Where a word move to the right from ``cursor`` lands (pi's ``findWordForward``)."""
    end = len(text)
    while cursor < end and _kind(text[cursor]) == "space":
        cursor += 1
    if cursor == end:
        return end
    kind = _kind(text[cursor])
    while cursor < end and (_kind(text[cursor]) == kind or _joins(text[cursor])):
        cursor += 1
    return cursor


@dataclass
class LineEdit:
    """The text of a one-line field and where its cursor is."""

    text: str = ""
    cursor: int = 0
    _kills: list[str] = field(default_factory=list)
    _undo: list[tuple[str, int]] = field(default_factory=list)
    _last: _LastAction = None

    def set_text(self, text: str) -> None:
        """New text; the cursor stays where it was, or at the end when that is shorter (as pi's
        input: a fresh field starts with the cursor at the start)."""
        self.text = text
        self.cursor = min(self.cursor, len(text))

    # --- moving ---------------------------------------------------------------------------------

    def _move(self, cursor: int) -> None:
        self._last = None
        self.cursor = cursor

    def left(self) -> None:
        self._move(_previous_boundary(self.text, self.cursor))

    def right(self) -> None:
        self._move(_next_boundary(self.text, self.cursor))

    def home(self) -> None:
        self._move(0)

    def end(self) -> None:
        self._move(len(self.text))

    def word_left(self) -> None:
        self._move(word_left(self.text, self.cursor))

    def word_right(self) -> None:
        self._move(word_right(self.text, self.cursor))

    # --- changing -------------------------------------------------------------------------------

    def _save(self) -> None:
        self._undo.append((self.text, self.cursor))
        del self._undo[:-100]

    def insert(self, text: str) -> None:
        """Type ``text`` at the cursor (consecutive letters undo together, as in pi)."""
        if not text:
            return
        if text.isspace() or self._last != "type":
            self._save()
        self._last = "type"
        self.text = self.text[: self.cursor] + text + self.text[self.cursor :]
        self.cursor += len(text)

    def paste(self, text: str) -> None:
        """A paste: one line, without line breaks; tabs as four spaces."""
        clean = "".join(ch for ch in text.replace("\t", "    ") if ch not in "\r\n" and ch.isprintable())
        self._last = None
        if clean:
            self._save()
            self.text = self.text[: self.cursor] + clean + self.text[self.cursor :]
            self.cursor += len(clean)

    def backspace(self) -> None:
        self._last = None
        if self.cursor > 0:
            self._save()
            start = _previous_boundary(self.text, self.cursor)
            self.text = self.text[:start] + self.text[self.cursor :]
            self.cursor = start

    def delete(self) -> None:
        self._last = None
        if self.cursor < len(self.text):
            self._save()
            end = _next_boundary(self.text, self.cursor)
            self.text = self.text[: self.cursor] + self.text[end:]

    def _kill(self, start: int, end: int, *, backward: bool) -> None:
        if start == end:
            return
        self._save()
        killed = self.text[start:end]
        if self._last == "kill" and self._kills:
            self._kills[-1] = killed + self._kills[-1] if backward else self._kills[-1] + killed
        else:
            self._kills.append(killed)
        self._last = "kill"
        self.text = self.text[:start] + self.text[end:]
        self.cursor = start

    def delete_word_backward(self) -> None:
        self._kill(word_left(self.text, self.cursor), self.cursor, backward=True)

    def delete_word_forward(self) -> None:
        self._kill(self.cursor, word_right(self.text, self.cursor), backward=False)

    def delete_to_start(self) -> None:
        self._kill(0, self.cursor, backward=True)

    def delete_to_end(self) -> None:
        self._kill(self.cursor, len(self.text), backward=False)

    def yank(self) -> None:
        if not self._kills:
            return
        self._save()
        text = self._kills[-1]
        self.text = self.text[: self.cursor] + text + self.text[self.cursor :]
        self.cursor += len(text)
        self._last = "yank"

    def yank_pop(self) -> None:
        """Right after a yank: the yanked text replaced by the kill ring's entry before it."""
        if self._last != "yank" or len(self._kills) <= 1:
            return
        self._save()
        previous = self._kills[-1]
        start = self.cursor - len(previous)
        self._kills.insert(0, self._kills.pop())
        text = self._kills[-1]
        self.text = self.text[:start] + text + self.text[self.cursor :]
        self.cursor = start + len(text)
        self._last = "yank"

    def undo(self) -> None:
        if self._undo:
            self.text, self.cursor = self._undo.pop()
            self._last = None

    # --- drawing --------------------------------------------------------------------------------

    def fragments(self, width: int, style: str = "") -> StyleAndTextTuples:
        """The field in ``width`` columns: the text with the cursor's character in reverse video,
        scrolled sideways (as pi's input) to keep the cursor in view when it does not fit."""
        text, cursor = self.text, self.cursor
        total = get_cwidth(text)
        if width <= 0:
            return []
        if total >= width:
            room = width - 1 if cursor == len(text) else width
            column = get_cwidth(text[:cursor])
            half = room // 2
            if column < half:
                first = 0
            elif column > total - half:
                first = max(0, total - room)
            else:
                first = max(0, column - half)
            start = _index_at(text, first)
            stop = _index_at(text, first + room, start)
            text, cursor = text[start:stop], max(0, cursor - start)
        at_end = _next_boundary(text, cursor)
        at = text[cursor:at_end] or " "
        parts: StyleAndTextTuples = []
        if text[:cursor]:
            parts.append((style, text[:cursor]))
        parts.append((f"{style} reverse", at))
        if text[at_end:]:
            parts.append((style, text[at_end:]))
        return parts


def _index_at(text: str, column: int, start: int = 0) -> int:
    """The index where the text reaches ``column`` columns (counted from the text's start)."""
    used = get_cwidth(text[:start])
    index = start
    while index < len(text):
        step = _next_boundary(text, index)
        size = get_cwidth(text[index:step])
        if used + size > column:
            break
        used += size
        index = step
    return index


def line_edit_sequence(key: str) -> tuple[str, ...] | None:
    """A key of :data:`LINE_EDIT_ACTIONS` as prompt-toolkit names it (pi's ``ctrl+-`` is the
    Ctrl+_ byte a terminal sends for it); ``None`` when a terminal cannot send it."""
    if key.lower().replace(" ", "") in ("ctrl+-", "ctrl+_"):
        return ("c-_",)
    return selector_sequence(key)


def bind_line_edit(
    bindings: KeyBindings,
    field: Callable[[], LineEdit | None],
    *,
    keymap: Mapping[str, Sequence[str]] | None = None,
    filter: Any = True,
    on_change: Callable[[], None] | None = None,
) -> None:
    """Bind pi's line-editing keys (and typing, and pastes) to the field ``field()`` gives while
    ``filter`` holds. ``on_change`` runs after a key changed the text (not after a move).

    Bind these before the selector's own keys: prompt-toolkit calls the binding added last, so a
    selector key (``/resume``'s Ctrl+D, Ctrl+P) keeps its meaning where it shares a key."""
    keymap = keymap or {}
    handlers: dict[str, Callable[[LineEdit], None]] = {
        "tui.editor.cursorLeft": LineEdit.left,
        "tui.editor.cursorRight": LineEdit.right,
        "tui.editor.cursorWordLeft": LineEdit.word_left,
        "tui.editor.cursorWordRight": LineEdit.word_right,
        "tui.editor.cursorLineStart": LineEdit.home,
        "tui.editor.cursorLineEnd": LineEdit.end,
        "tui.editor.deleteCharBackward": LineEdit.backspace,
        "tui.editor.deleteCharForward": LineEdit.delete,
        "tui.editor.deleteWordBackward": LineEdit.delete_word_backward,
        "tui.editor.deleteWordForward": LineEdit.delete_word_forward,
        "tui.editor.deleteToLineStart": LineEdit.delete_to_start,
        "tui.editor.deleteToLineEnd": LineEdit.delete_to_end,
        "tui.editor.yank": LineEdit.yank,
        "tui.editor.yankPop": LineEdit.yank_pop,
        "tui.editor.undo": LineEdit.undo,
    }

    def run(action: Callable[[LineEdit], None]) -> None:
        edit = field()
        if edit is None:
            return
        before = edit.text
        action(edit)
        if on_change is not None and edit.text != before:
            on_change()

    @bindings.add(Keys.Any, filter=filter)
    def _type(event: KeyPressEvent) -> None:
        if event.data.isprintable():
            run(lambda edit: edit.insert(event.data))

    @bindings.add(Keys.BracketedPaste, filter=filter)
    def _paste(event: KeyPressEvent) -> None:
        run(lambda edit: edit.paste(event.data))

    for action, defaults in LINE_EDIT_ACTIONS.items():
        for key in keymap.get(action, defaults):
            sequence = line_edit_sequence(key)
            if sequence is not None:
                bindings.add(*sequence, filter=filter)(lambda event, handler=handlers[action]: run(handler))
