"""The ``/thinking`` selector as pi 1.6.0 draws it in the editor's place.

Between two rules: the title, which key cycles the level without the selector, the search field,
one row per level the model offers and the keys. A row is ``→`` for the highlight, ``✓`` for the
level in use, the level, what it means and ``· default`` for the saved default
(``defaultThinkingLevel``, ``medium`` when none is saved). The level in use is highlighted first.
Typing filters fuzzily over the level and its meaning; Up/Down wrap, Enter applies the level to
this session, Ctrl+S (``app.thinking.save``) also saves it as the default, Esc or Ctrl+C cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings

from pi_core.ai.resolve import fuzzy_rank
from pi_core.ai.thinking import DEFAULT_THINKING_BUDGETS
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.picker import Selector
from pi_core.modes.interactive.styles import ReplStyles

#: The level a session starts with when settings name none (pi's ``DEFAULT_THINKING_LEVEL``).
DEFAULT_LEVEL = "medium"
#: The level column's width: the widest level and two spaces, within these bounds (as pi's list).
COLUMN_MIN, COLUMN_MAX = 12, 32

_MEANINGS = {
    "off": "Answers without thinking first",
    "minimal": "Thinks very briefly",
    "low": "Thinks briefly",
    "medium": "Thinks for a while",
    "high": "Thinks at length",
    "xhigh": "Thinks longer than high",
    "max": "Thinks as long as the model allows",
}


def meaning(level: str) -> str:
    """What ``level`` means, with its default thinking budget in tokens where it has one."""
    text = _MEANINGS.get(level, level)
    budget = DEFAULT_THINKING_BUDGETS.get(level)
    return f"{text} (~{budget // 1024}k tokens)" if budget else text


@dataclass
class ThinkingList:
    """The selector's state: the levels on offer, what the search leaves, the highlight."""

    levels: Sequence[str]
    current: str
    default: str = DEFAULT_LEVEL
    query: str = ""
    shown: list[str] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        self.shown = list(self.levels)
        self.index = self.shown.index(self.current) if self.current in self.shown else 0
        if self.query:
            self.refilter()

    def description(self, level: str) -> str:
        return f"{meaning(level)} · default" if level == self.default else meaning(level)

    @property
    def selected(self) -> str | None:
        return self.shown[self.index] if self.shown else None

    def refilter(self) -> None:
        """Apply the query; the highlighted level stays highlighted while the search shows it."""
        kept = self.selected
        self.shown = fuzzy_rank(self.levels, self.query, lambda level: f"{level} {self.description(level)}")
        self.index = self.shown.index(kept) if kept in self.shown else 0

    def move(self, delta: int) -> None:
        if self.shown:
            self.index = (self.index + delta) % len(self.shown)


class ThinkingSelector(Selector):
    """The level list in the editor's place; it finishes with the chosen level."""

    def __init__(
        self,
        state: ThinkingList,
        *,
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.state = state
        self.keymap = keymap or {}
        #: The search field (pi's line editing).
        self.search = LineEdit(state.query)
        self._styles = styles
        #: True when the level was chosen with ``app.thinking.save`` (make it the default).
        self.as_default = False
        super().__init__()

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        state = self.state

        def searched() -> None:
            state.query = self.search.text
            state.refilter()

        # Bound first: the selector's keys below win where they share one with the field.
        bind_line_edit(bindings, lambda: self.search, keymap=self.keymap, on_change=searched)

        def choose(as_default: bool) -> None:
            if state.selected is not None:
                self.as_default = as_default
                self.finish(state.selected)

        self.on_keys(bindings, "tui.select.up", ["up"], lambda: state.move(-1))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: state.move(1))
        self.on_keys(bindings, "tui.select.confirm", ["enter"], lambda: choose(False))
        self.on_keys(bindings, "app.thinking.save", ["ctrl+s"], lambda: choose(True))
        self.on_keys(bindings, "tui.select.cancel", ["escape", "ctrl+c"], lambda: self.finish(None))

        return bindings

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def fragments(self) -> StyleAndTextTuples:
        state = self.state
        width = self.width()
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        cycle = self.key_text("app.thinking.cycle", "shift+tab", capitalize=True)
        lines: list[StyleAndTextTuples] = [rule, [], [("", "Thinking Level")], []]
        if cycle:
            lines += [[("", f"{cycle} cycles thinking levels in-session")], []]
        lines += [[("", "> "), *self.search.fragments(width - 2)], []]
        column = max(COLUMN_MIN, min(COLUMN_MAX, max((len(level) + 4 for level in state.shown), default=0)))
        for position, level in enumerate(state.shown):
            lines.append(self._row(level, position == state.index, column, width))
        if not state.shown:
            lines.append([(self._fg("muted"), "  No matching levels")])
        confirm = self.key_text("tui.select.confirm", "enter", capitalize=True)
        save = self.key_text("app.thinking.save", "ctrl+s", capitalize=True)
        cancel = self.key_text("tui.select.cancel", "escape", "ctrl+c", capitalize=True)
        hint = f"  {confirm} to select · {save} to set as default · {cancel} to cancel"
        lines += [[], [(self._fg("dim"), hint)], rule]
        return self.join(lines, opening=1)

    def _row(self, level: str, selected: bool, column: int, width: int) -> StyleAndTextTuples:
        label = ("✓ " if level == self.state.current else "  ") + level
        prefix = "→ " if selected else "  "
        room = width - len(prefix) - column - 2
        if width <= 40 or room <= 10:  # too narrow for the meanings: the levels alone
            return [(self._fg("accent") if selected else "", prefix + label)]
        rest = " " * (column - len(label)) + self.state.description(level)[:room]
        if selected:
            return [(self._fg("accent"), prefix + label + rest)]
        return [("", prefix + label), (self._fg("muted"), rest)]
