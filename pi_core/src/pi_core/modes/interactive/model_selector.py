"""The ``/model`` selector as pi 1.6.0 draws it in the editor's place.

Between two rules: which models are listed (the scope line when scoped models are set, Tab
switching between all and scoped), the search field, up to ten models, the highlighted one's
name and the keys. A row is ``→`` for the highlight, ``✓`` for the model in use, the id, its name
when that says more than the id, ``[provider]`` and ``· default`` for the saved default. The model
in use comes first, the default next, then the others by provider. Typing filters fuzzily over
provider and id (``default`` puts the default first), in a field with pi's line editing
(:mod:`.line_edit`); Up/Down wrap, PageUp/PageDown page, Enter picks, Esc or Ctrl+C cancels.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings

from pi_core.ai.provider import Model
from pi_core.ai.resolve import fuzzy_filter
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.picker import Selector, centred_rows
from pi_core.modes.interactive.styles import ReplStyles

#: Models shown at once.
MAX_VISIBLE = 10
Scope = Literal["all", "scoped"]


def _same(a: Model | None, b: Model | None) -> bool:
    return a is not None and b is not None and a.provider == b.provider and a.id == b.id


def distinct_name(model: Model) -> str | None:
    """The model's name when it has words its id does not (``None`` when it only restates it)."""
    name = (model.name or "").strip()
    if not name:
        return None
    id_words = _words(model.id)
    compact = "".join(id_words)

    def covered(word: str) -> bool:
        return word in id_words or (len(word) > 1 and word in compact)

    return None if all(covered(word) for word in _words(name)) else name


def _words(text: str) -> list[str]:
    return [word for word in re.split(r"[\W_]+", text.lower()) if word]


@dataclass
class ModelList:
    """The selector's state: the models of the scope, what the search leaves, the highlight."""

    models: Sequence[Model]
    current: Model | None = None
    default: tuple[str, str] | None = None
    scoped: Sequence[Model] = ()
    query: str = ""
    scope: Scope = "all"
    shown: list[Model] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        self.models = self._sorted(self.models)
        self.scope = "scoped" if self.scoped else "all"
        self.shown = list(self._pool())
        self.index = next((i for i, m in enumerate(self.shown) if _same(m, self.current)), 0)
        if self.query:
            self.refilter()

    def is_default(self, model: Model) -> bool:
        return self.default == (model.provider, model.id)

    def _sorted(self, models: Sequence[Model]) -> list[Model]:
        return sorted(
            models, key=lambda m: (not _same(m, self.current), not self.is_default(m), m.provider.lower())
        )

    def _pool(self) -> Sequence[Model]:
        return self.scoped if self.scope == "scoped" else self.models

    @property
    def selected(self) -> Model | None:
        return self.shown[self.index] if self.shown else None

    def refilter(self) -> None:
        query = self.query
        pool = list(self._pool())
        if not query.strip():
            self.shown = pool
            self.index = min(self.index, max(0, len(pool) - 1))
            return

        def searched(model: Model) -> str:
            name = f" {model.name}" if model.name else ""
            marker = " default" if self.is_default(model) else ""
            return f"{model.provider} {model.provider}/{model.id} {model.provider} {model.id}{name}{marker}"

        found = fuzzy_filter(pool, query, searched)
        word = query.strip().lower()
        if "default".startswith(word):
            defaults = [m for m in pool if self.is_default(m)]
            found = defaults + [m for m in found if not self.is_default(m)]
        self.shown = found
        self.index = 0

    def move(self, delta: int) -> None:
        if self.shown:
            self.index = (self.index + delta) % len(self.shown)

    def page_by(self, pages: int) -> None:
        if self.shown:
            self.index = max(0, min(len(self.shown) - 1, self.index + pages * MAX_VISIBLE))

    def switch_scope(self) -> None:
        """Tab: between all models and the scoped ones (only when there are scoped ones)."""
        if not self.scoped:
            return
        self.scope = "all" if self.scope == "scoped" else "scoped"
        self.index = next((i for i, m in enumerate(self._pool()) if _same(m, self.current)), 0)
        self.refilter()

    def window(self) -> tuple[int, int]:
        on_screen = centred_rows(self.index, len(self.shown), MAX_VISIBLE)
        return on_screen.start, on_screen.stop


class ModelSelector(Selector):
    """The model list in the editor's place; it finishes with the chosen model."""

    def __init__(
        self,
        state: ModelList,
        *,
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.state = state
        self.keymap = keymap or {}
        self._styles = styles
        #: The search field (pi's line editing); a pattern given to ``/model`` starts in it with
        #: the cursor at its start, as pi's.
        self.search = LineEdit(state.query)
        #: True when the model was chosen with ``app.models.save`` (make it the default).
        self.as_default = False
        super().__init__()

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        state = self.state

        def choose() -> None:
            if state.selected is not None:
                self.finish(state.selected)

        def choose_as_default() -> None:
            if state.selected is not None:
                self.as_default = True
                self.finish(state.selected)

        def searched() -> None:
            state.query = self.search.text
            state.refilter()

        # Bound first: the selector's keys below win where they share one with the field.
        bind_line_edit(bindings, lambda: self.search, keymap=self.keymap, on_change=searched)
        self.on_keys(bindings, "tui.select.up", ["up"], lambda: state.move(-1))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: state.move(1))
        self.on_keys(bindings, "tui.select.pageUp", ["pageUp"], lambda: state.page_by(-1))
        self.on_keys(bindings, "tui.select.pageDown", ["pageDown"], lambda: state.page_by(1))
        self.on_keys(bindings, "tui.input.tab", ["tab"], state.switch_scope)
        self.on_keys(bindings, "tui.select.confirm", ["enter"], choose)
        self.on_keys(bindings, "app.models.save", ["ctrl+s"], choose_as_default)
        self.on_keys(bindings, "tui.select.cancel", ["escape", "ctrl+c"], lambda: self.finish(None))
        return bindings

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def fragments(self) -> StyleAndTextTuples:
        state = self.state
        width = self.width()
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        muted, accent = self._fg("muted"), self._fg("accent")
        lines: list[StyleAndTextTuples] = [rule, []]
        if state.scoped:
            scope: StyleAndTextTuples = [(muted, "Scope: ")]
            scope.append((accent if state.scope == "all" else muted, "all"))
            scope.append((muted, " | "))
            scope.append((accent if state.scope == "scoped" else muted, "scoped"))
            lines += [scope, [(self._fg("dim"), "tab"), (muted, " scope (all/scoped)")]]
        else:
            hint = "Only showing models from configured providers. Use /login to add providers."
            lines.append([(self._fg("warning"), hint)])
        lines += [[], [("", "> "), *self.search.fragments(width - 2)], []]
        start, end = state.window()
        for position in range(start, end):
            lines.append(self._row(state.shown[position], position == state.index))
        if start > 0 or end < len(state.shown):
            lines.append([(muted, f"  ({state.index + 1}/{len(state.shown)})")])
        selected = state.selected
        if selected is None:
            lines.append([(muted, "  No matching models")])
        else:
            lines += [[], [(muted, f"  Model Name: {selected.name or selected.id}")]]
        confirm = self.key_text("tui.select.confirm", "enter", capitalize=True)
        save = self.key_text("app.models.save", "ctrl+s", capitalize=True)
        cancel = self.key_text("tui.select.cancel", "escape", "ctrl+c", capitalize=True)
        hint = f"  {confirm} to select · {save} to set as default · {cancel} to cancel"
        lines += [[], [(self._fg("dim"), hint)], rule]
        return self.join(lines, opening=1)

    def _row(self, model: Model, selected: bool) -> StyleAndTextTuples:
        state = self.state
        muted, accent = self._fg("muted"), self._fg("accent")
        row: StyleAndTextTuples = [
            (accent, "→ ") if selected else ("", "  "),
            (accent, "✓ ") if _same(model, state.current) else ("", "  "),
            (accent if selected else "", model.id),
        ]
        name = distinct_name(model)
        if name:
            row.append((muted, f" ({name})"))
        row.append((muted, f" [{model.provider}]"))
        if state.is_default(model):
            row.append((muted, " · default"))
        return row
