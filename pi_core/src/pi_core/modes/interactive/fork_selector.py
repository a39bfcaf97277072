"""The ``/fork`` selector as pi 1.6.0 draws it in the editor's place.

A title and what forking does, a rule, then the user messages of the session (ten at most in view,
the newest highlighted first), each on its line with ``Message N of M`` under it, and a closing
rule. Up/Down move (wrapping), PageUp/PageDown page, Enter forks from the highlighted message, Esc
or Ctrl+C cancels. No search: as pi's, the list does not filter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.utils import get_cwidth

from pi_core.modes.interactive.picker import Selector, centred_rows
from pi_core.modes.interactive.styles import ReplStyles

#: Messages in view at once.
MAX_VISIBLE = 10


def fit(text: str, width: int, ellipsis: str = "...") -> str:
    """``text`` cut to ``width`` columns, with ``ellipsis`` at the end when it was cut."""
    if get_cwidth(text) <= width:
        return text
    room = max(0, width - get_cwidth(ellipsis))
    kept, used = [], 0
    for char in text:
        used += get_cwidth(char)
        if used > room:
            break
        kept.append(char)
    return "".join(kept) + ellipsis if width > get_cwidth(ellipsis) else ellipsis[:width]


class ForkSelector(Selector):
    """The user messages to fork from; it finishes with the chosen message's index."""

    def __init__(
        self,
        messages: Sequence[str],
        *,
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.keymap = keymap or {}
        self.messages = [text.replace("\n", " ").strip() for text in messages]
        self.index = max(0, len(self.messages) - 1)
        self._styles = styles
        super().__init__()

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        count = len(self.messages)

        def step(delta: int) -> None:
            if count:
                self.index = (self.index + delta) % count

        def page(delta: int) -> None:
            self.index = max(0, min(count - 1, self.index + delta * MAX_VISIBLE))

        def choose() -> None:
            if count:
                self.finish(self.index)

        self.on_keys(bindings, "tui.select.up", ["up"], lambda: step(-1))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: step(1))
        self.on_keys(bindings, "tui.select.pageUp", ["pageUp"], lambda: page(-1))
        self.on_keys(bindings, "tui.select.pageDown", ["pageDown"], lambda: page(1))
        self.on_keys(bindings, "tui.select.confirm", ["enter"], choose)
        self.on_keys(bindings, "tui.select.cancel", ["escape", "ctrl+c"], lambda: self.finish(None))
        return bindings

    def fragments(self) -> StyleAndTextTuples:
        width = self.width()
        muted, accent = self._fg("muted"), self._fg("accent")
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        what = "Pick one of your messages: a new session starts with this branch up to it"
        lines: list[StyleAndTextTuples] = [
            [],
            [(f"bold {self._fg('text')}", " Fork from Message")],
            [(muted, f" {what}")],
            [],
            rule,
            [],
        ]
        count = len(self.messages)
        if not count:
            lines.append([(muted, "  No user messages found")])
        on_screen = centred_rows(self.index, count, MAX_VISIBLE)
        start, end = on_screen.start, on_screen.stop
        for position in on_screen:
            selected = position == self.index
            text = fit(self.messages[position], width - 2)
            lines.append([(accent, "› ") if selected else ("", "  "), ("bold" if selected else "", text)])
            lines.append([(muted, f"  Message {position + 1} of {count}")])
            lines.append([])
        if start > 0 or end < count:
            lines.append([(muted, f"  ({self.index + 1}/{count})")])
        lines += [[], rule]
        return self.join(lines)
