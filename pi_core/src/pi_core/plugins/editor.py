"""``CustomEditor``: the base of a plugin's own editor (``ctx.ui.set_editor_component``).

A plugin editor is any object with ``render(width) -> list[str]`` and ``handle_input(data)``
(each key's raw bytes). Subclassing :class:`CustomEditor` starts from the REPL's own editor: what
``handle_input`` passes to ``super().handle_input`` is typed into it — its text, history,
completion and every REPL key (Enter submits, Esc aborts, Ctrl+D quits) — and
``super().render(width)`` gives its rows, to decorate. A subclass that does not override
``render`` is drawn as the built-in editor, with the terminal's cursor.

This module imports no terminal library: the REPL hands the editor it wraps over as
``tui.builtin_editor`` when it calls the plugin's factory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class BuiltinEditor(Protocol):
    """The REPL's own editor, as a :class:`CustomEditor` reaches it."""

    def feed(self, data: str) -> None:
        """Type ``data`` (raw key bytes) into the editor, as if the terminal had sent it."""
        ...

    def rows(self, width: int) -> list[str]:
        """The editor's rows at ``width``: the prompt and the text, the cursor in reverse video."""
        ...

    def get_text(self) -> str: ...

    def get_expanded_text(self) -> str:
        """The text with big pastes in place of their markers."""
        ...

    def set_text(self, text: str) -> None: ...

    def insert_text(self, text: str) -> None: ...

    def invalidate(self) -> None: ...


class CustomEditor:
    """The REPL's editor as a component a plugin may subclass; ``factory(tui, theme,
    keybindings)`` → ``MyEditor(tui, theme, keybindings)``."""

    def __init__(self, tui: Any, theme: Any, keybindings: Any) -> None:
        self.tui = tui
        self.theme = theme
        self.keybindings = keybindings
        #: Set by the REPL: submitting ``text`` as if Enter had been pressed on it.
        self.on_submit: Callable[[str], None] | None = None
        self._builtin: BuiltinEditor | None = getattr(tui, "builtin_editor", None)

    def handle_input(self, data: str) -> None:
        """Type ``data`` into the built-in editor (a subclass calls this for the keys it leaves)."""
        if self._builtin is not None:
            self._builtin.feed(data)

    def render(self, width: int) -> list[str]:
        """The built-in editor's rows (a subclass may change them)."""
        return self._builtin.rows(width) if self._builtin is not None else []

    def get_text(self) -> str:
        return self._builtin.get_text() if self._builtin is not None else ""

    def get_expanded_text(self) -> str:
        return self._builtin.get_expanded_text() if self._builtin is not None else ""

    def set_text(self, text: str) -> None:
        if self._builtin is not None:
            self._builtin.set_text(text)

    def insert_text_at_cursor(self, text: str) -> None:
        if self._builtin is not None:
            self._builtin.insert_text(text)

    def invalidate(self) -> None:
        """Draw again (after the component's own state changed outside a key press)."""
        if self._builtin is not None:
            self._builtin.invalidate()


def draws_itself(component: Any) -> bool:
    """Whether the component's rows replace the built-in editor's drawing: any component but a
    :class:`CustomEditor` that keeps its ``render``."""
    return not isinstance(component, CustomEditor) or type(component).render is not CustomEditor.render
