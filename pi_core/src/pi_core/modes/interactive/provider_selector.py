"""The provider list of ``/login`` and ``/logout`` as pi 1.6.0 draws it in the editor's place.

Between two rules: the title, a search field, up to eight providers with ``→`` before the
highlighted one (``(3/30)`` while some are out of view) and ``No matching providers`` when the
search leaves none. Typing filters fuzzily over each provider's row and id and moves the
highlight to the best match; Up/Down and PageUp/PageDown move (the ``tui.select.*`` keys), Enter
picks, Esc or Ctrl+C cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings

from pi_core.ai.resolve import fuzzy_rank
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.picker import Selector, centred_rows
from pi_core.modes.interactive.styles import ReplStyles

#: Providers shown at once (pi's ``MAX_VISIBLE``).
VISIBLE = 8


@dataclass
class ProviderList:
    """The selector's state: ``(id, row)`` per provider, what the search leaves, the highlight."""

    providers: Sequence[tuple[str, str]]
    query: str = ""
    shown: list[tuple[str, str]] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        self.shown = list(self.providers)

    @property
    def selected(self) -> str | None:
        return self.shown[self.index][0] if self.shown else None

    def refilter(self) -> None:
        """Apply the query: the best match is highlighted (all rows again: the highlight stays)."""
        self.shown = fuzzy_rank(self.providers, self.query, lambda entry: f"{entry[1]} {entry[0]}")
        self.index = 0 if self.query else min(self.index, max(0, len(self.shown) - 1))

    def move(self, delta: int) -> None:
        if self.shown:
            self.index = max(0, min(len(self.shown) - 1, self.index + delta))

    def window(self) -> range:
        """The positions on screen: the highlight kept in the middle where the list allows."""
        return centred_rows(self.index, len(self.shown), VISIBLE)


class ProviderSelector(Selector):
    """The provider list in the editor's place; it finishes with the chosen provider's id."""

    def __init__(
        self,
        state: ProviderList,
        title: str,
        *,
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.state = state
        self.title = title
        self.keymap = keymap or {}
        #: The search field (pi's line editing).
        self.search = LineEdit(state.query)
        self._styles = styles
        super().__init__()

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        state = self.state

        def searched() -> None:
            state.query = self.search.text
            state.refilter()

        # Bound first: the selector's keys below win where they share one with the field.
        bind_line_edit(bindings, lambda: self.search, keymap=self.keymap, on_change=searched)
        self.on_keys(bindings, "tui.select.up", ["up"], lambda: state.move(-1))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: state.move(1))
        self.on_keys(bindings, "tui.select.pageUp", ["pageUp"], lambda: state.move(-VISIBLE))
        self.on_keys(bindings, "tui.select.pageDown", ["pageDown"], lambda: state.move(VISIBLE))
        self.on_keys(bindings, "tui.select.confirm", ["enter"], self._choose)
        self.on_keys(bindings, "tui.select.cancel", ["escape", "ctrl+c"], lambda: self.finish(None))

        return bindings

    def _choose(self) -> None:
        if self.state.selected is not None:
            self.finish(self.state.selected)

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def fragments(self) -> StyleAndTextTuples:
        state = self.state
        width = self.width()
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        lines: list[StyleAndTextTuples] = [rule, [], [(f"{self._fg('accent')} bold", " " + self.title)], []]
        lines += [[("", " > "), *self.search.fragments(width - 3)], []]
        shown = state.window()
        for position in shown:
            row = state.shown[position][1]
            if position == state.index:
                lines.append([(self._fg("accent"), (" → " + row)[:width])])
            else:
                lines.append([("", ("   " + row)[:width])])
        if len(shown) < len(state.shown):
            lines.append([(self._fg("muted"), f"   ({state.index + 1}/{len(state.shown)})")])
        if not state.shown:
            message = "No matching providers" if state.providers else "No providers available"
            lines.append([(self._fg("muted"), f"   {message}")])
        lines += [[], rule]
        return self.join(lines, opening=1)
