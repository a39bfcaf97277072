"""The ``/scoped-models`` selector as pi 1.6.0 draws it in the editor's place.

"Model Configuration": which models Ctrl+P cycles through, in that order. Each change applies to
the session at once; Ctrl+S saves the choice as ``enabledModels``. Rows are ``✓`` for a model in
the cycle (all of them when none was chosen), the id, a name that says more than the id, and the
provider; a saved model no longer available is struck through, ``[unavailable]``. The models in
the cycle come first, in its order. Enter toggles the highlighted model, Ctrl+A enables all (those
the search shows, when searching), Ctrl+X clears them, Ctrl+P toggles the highlighted model's
provider, Alt+Up/Alt+Down move a model in the cycle, Ctrl+S saves; Up/Down wrap, PageUp/PageDown
page, Ctrl+C clears the search (then closes), Esc closes; the search field edits as pi's input
(:mod:`.line_edit`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from pi_core.ai.provider import Model
from pi_core.ai.resolve import fuzzy_filter
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.model_selector import distinct_name
from pi_core.modes.interactive.picker import Selector, centred_rows
from pi_core.modes.interactive.styles import ReplStyles

MAX_VISIBLE = 8
#: ``None``: every available model is in the cycle; else the ids (``provider/id``) in cycle order.
Enabled = list[str] | None


def full_id(model: Model) -> str:
    return f"{model.provider}/{model.id}"


def _collapse(enabled: list[str], every: Sequence[str]) -> Enabled:
    """An explicit list that holds every available model is ``None`` again."""
    return None if len(enabled) == len(every) and set(enabled) == set(every) else enabled


def toggled(enabled: Enabled, every: Sequence[str], model_id: str) -> Enabled:
    if enabled is None:
        return [other for other in every if other != model_id]
    if model_id in enabled:
        return [other for other in enabled if other != model_id]
    return _collapse([*enabled, model_id], every)


def with_all(enabled: Enabled, every: Sequence[str], targets: Sequence[str] | None = None) -> Enabled:
    if enabled is None:
        return None
    added = [*enabled, *(model_id for model_id in (targets or every) if model_id not in enabled)]
    return _collapse(added, every)


def without(enabled: Enabled, every: Sequence[str], targets: Sequence[str] | None = None) -> Enabled:
    if enabled is None:
        return [model_id for model_id in every if model_id not in targets] if targets is not None else []
    gone = set(targets if targets is not None else enabled)
    return [model_id for model_id in enabled if model_id not in gone]


class ScopedModelsSelector(Selector):
    """The cycle's models; ``on_change`` hears each change, ``on_save`` Ctrl+S. It finishes with
    ``None`` (the changes are applied as they are made)."""

    def __init__(
        self,
        models: Sequence[Model],
        enabled: Enabled,
        *,
        on_change: Callable[[Enabled], None],
        on_save: Callable[[Enabled], None],
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.keymap = keymap or {}
        self.models = {full_id(model): model for model in models}
        self.every = list(self.models)
        self.enabled: Enabled = None if enabled is None else list(enabled)
        self.on_change = on_change
        self.on_save = on_save
        self._styles = styles
        self.query = ""
        #: The search field, with pi's line editing.
        self.search = LineEdit()
        self.index = 0
        self.dirty = False
        self.shown: list[str] = []
        self.refilter()
        super().__init__()

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def in_cycle(self, model_id: str) -> bool:
        return self.enabled is None or model_id in self.enabled

    def ordered(self) -> list[str]:
        if self.enabled is None:
            return list(self.every)
        return [*self.enabled, *(model_id for model_id in self.every if model_id not in self.enabled)]

    def refilter(self) -> None:
        ids = self.ordered()
        if self.query.strip():
            known = [self.models[model_id] for model_id in ids if model_id in self.models]

            def searched(model: Model) -> str:
                name = f" {model.name}" if model.name else ""
                both = f"{model.provider}/{model.id}"
                return f"{model.id} {model.provider} {both} {model.provider} {model.id}{name}"

            self.shown = [full_id(model) for model in fuzzy_filter(known, self.query, searched)]
        else:
            self.shown = ids
        self.index = min(self.index, max(0, len(self.shown) - 1))

    def _change(self, enabled: Enabled) -> None:
        self.enabled = enabled
        self.dirty = True
        self.refilter()
        self.on_change(None if enabled is None else list(enabled))

    def _targets(self) -> list[str] | None:
        return list(self.shown) if self.query else None

    # --- keys -----------------------------------------------------------------------------------

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        def searched() -> None:
            self.query = self.search.text
            if self.query:
                self.index = 0
            self.refilter()

        # Bound first: the selector's keys below (Ctrl+A enables all, Ctrl+P a provider) win.
        bind_line_edit(bindings, lambda: self.search, keymap=self.keymap, on_change=searched)

        def step(delta: int) -> None:
            if self.shown:
                self.index = (self.index + delta) % len(self.shown)

        def page(delta: int) -> None:
            self.index = max(0, min(len(self.shown) - 1, self.index + delta * MAX_VISIBLE))

        self.on_keys(bindings, "tui.select.up", ["up"], lambda: step(-1))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: step(1))
        self.on_keys(bindings, "tui.select.pageUp", ["pageUp"], lambda: page(-1))
        self.on_keys(bindings, "tui.select.pageDown", ["pageDown"], lambda: page(1))

        def reorder(delta: int) -> None:
            model_id = self.shown[self.index] if self.shown else None
            if self.enabled is None or model_id not in self.enabled:
                return
            at = self.enabled.index(model_id)
            if 0 <= at + delta < len(self.enabled):
                order = list(self.enabled)
                order[at], order[at + delta] = order[at + delta], order[at]
                self.index += delta
                self._change(order)

        def toggle() -> None:
            if self.shown:
                self._change(toggled(self.enabled, self.every, self.shown[self.index]))

        def enable_all() -> None:
            self._change(with_all(self.enabled, self.every, self._targets()))

        def clear_all() -> None:
            self._change(without(self.enabled, self.every, self._targets()))

        self.on_keys(bindings, "app.models.reorderUp", ["alt+up"], lambda: reorder(-1))
        self.on_keys(bindings, "app.models.reorderDown", ["alt+down"], lambda: reorder(1))
        self.on_keys(bindings, "tui.select.confirm", ["enter"], toggle)
        self.on_keys(bindings, "app.models.enableAll", ["ctrl+a"], enable_all)
        self.on_keys(bindings, "app.models.clearAll", ["ctrl+x"], clear_all)

        def provider() -> None:
            model = self.models.get(self.shown[self.index]) if self.shown else None
            if model is None:
                return
            same = [model_id for model_id in self.every if self.models[model_id].provider == model.provider]
            if all(self.in_cycle(model_id) for model_id in same):
                self._change(without(self.enabled, self.every, same))
            else:
                self._change(with_all(self.enabled, self.every, same))

        def save() -> None:
            self.on_save(None if self.enabled is None else list(self.enabled))
            self.dirty = False

        self.on_keys(bindings, "app.models.toggleProvider", ["ctrl+p"], provider)
        self.on_keys(bindings, "app.models.save", ["ctrl+s"], save)

        @bindings.add("c-c")
        def _clear_or_close(event: KeyPressEvent) -> None:
            if self.query:
                self.search.set_text("")
                self.query = ""
                self.refilter()
            else:
                self.finish(None)

        @bindings.add("escape")
        def _close(event: KeyPressEvent) -> None:
            self.finish(None)

        return bindings

    # --- drawing --------------------------------------------------------------------------------

    def fragments(self) -> StyleAndTextTuples:
        width = self.width()
        muted, accent = self._fg("muted"), self._fg("accent")
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        save = self.key_text("app.models.save", "ctrl+s", capitalize=True)
        lines: list[StyleAndTextTuples] = [
            rule,
            [],
            [(f"bold {accent}", "Model Configuration")],
            [(muted, f"Session-only. {save} to save to settings.")],
            [],
            [("", "> "), *self.search.fragments(width - 2)],
            [],
        ]
        if not self.shown:
            lines.append([(muted, "  No matching models")])
        else:
            on_screen = centred_rows(self.index, len(self.shown), MAX_VISIBLE)
            start, end = on_screen.start, on_screen.stop
            for position in on_screen:
                lines.append(self._row(self.shown[position], position == self.index))
            if start > 0 or end < len(self.shown):
                lines.append([(muted, f"  ({self.index + 1}/{len(self.shown)})")])
            model = self.models.get(self.shown[self.index])
            lines += [[], [(muted, f"  Model Name: {model.name}" if model else "  Model unavailable")]]
        lines += [[], *self._footer(width), rule]
        return self.join(lines, opening=1)

    def _row(self, model_id: str, selected: bool) -> StyleAndTextTuples:
        muted, accent = self._fg("muted"), self._fg("accent")
        model = self.models.get(model_id)
        shown_id = model.id if model is not None else model_id
        style = (accent if selected else "") + ("" if model is not None else " strike")
        row: StyleAndTextTuples = [
            (accent, "→ ") if selected else ("", "  "),
            (accent, "✓ ") if model is not None and self.in_cycle(model_id) else ("", "  "),
            (style, shown_id),
        ]
        name = distinct_name(model) if model is not None else None
        if name:
            row.append((muted, f" ({name})"))
        row.append((muted, f" [{model.provider}]" if model is not None else " [unavailable]"))
        return row

    def _footer(self, width: int) -> list[StyleAndTextTuples]:
        """The keys and the count, wrapped at spaces as pi wraps its text."""
        if self.enabled is None:
            count = "all enabled"
        else:
            known = sum(1 for model_id in self.enabled if model_id in self.models)
            missing = len(self.enabled) - known
            count = f"{known}/{len(self.every)} enabled" + (f" · {missing} unavailable" if missing else "")

        def text(action: str, default: str) -> str:
            return self.key_text(action, default, capitalize=True)

        up, down = text("app.models.reorderUp", "alt+up"), text("app.models.reorderDown", "alt+down")
        keys = " · ".join(
            (
                f"{text('tui.select.confirm', 'enter')} toggle",
                f"{text('app.models.enableAll', 'ctrl+a')} all",
                f"{text('app.models.clearAll', 'ctrl+x')} clear",
                f"{text('app.models.toggleProvider', 'ctrl+p')} provider",
                f"{up}/{down} reorder",
                f"{text('app.models.save', 'ctrl+s')} save",
            )
        )
        words = [(self._fg("dim"), word) for word in f"  {keys} · {count}".split(" ")]
        if self.dirty:
            words.append((self._fg("warning"), "(unsaved)"))
        lines: list[StyleAndTextTuples] = [[]]
        used = 0
        for style, word in words:
            if used and used + 1 + len(word) > width:
                lines.append([])
                used = 0
            elif lines[-1] or used:
                lines[-1].append((style, " "))
                used += 1
            lines[-1].append((style, word))
            used += len(word)
        return lines
