"""``/settings`` → Theme: choose a theme, or a light and a dark one, seeing each before saving.

As in pi, the list is ``system``, ``automatic`` (a ``light/dark`` pair chosen by the terminal's
background), then every theme by name, the current one ticked. It is drawn as pi's theme list
inside its settings: between two rules a title, what the list is for, the themes (a column of
names, what ``system`` and ``automatic`` mean beside them; ``→`` on the highlighted one, ten at
once with the position while some are out of view) and the keys. The REPL is drawn in the theme
under the highlight while the list is open; Enter saves the ``theme`` setting, Esc puts the
saved theme back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.utils import get_cwidth
from rich.text import Text

from pi_core.modes.interactive.picker import Selector, centred_rows, wrap
from pi_core.runtime import themes

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode
    from pi_core.modes.interactive.styles import ReplStyles

AUTOMATIC = "automatic"

#: Themes shown at once at most, as pi's list shows.
MAX_VISIBLE = 10

#: What the rows that are not plain themes mean, shown beside them.
MEANINGS = {
    themes.SYSTEM: "Colours taken from the terminal's own",
    AUTOMATIC: "One theme while the terminal is light, another while it is dark",
}


class ThemeList(Selector):
    """One list of themes in the editor's place; it finishes with the chosen name (``None``: Esc).
    ``preview`` hears of each theme the highlight moves to."""

    def __init__(
        self,
        title: str,
        about: str,
        names: Sequence[str],
        current: str,
        preview: Callable[[str], None],
        *,
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.title, self.about, self.names, self.current = title, about, list(names), current
        self.index = self.names.index(current) if current in self.names else 0
        self.preview = preview
        self.keymap = keymap or {}
        self._styles = styles
        super().__init__()

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        count = len(self.names)

        def go(index: int) -> None:
            if count and index != self.index:
                self.index = index
                self.preview(self.names[index])

        def choose() -> None:
            if count:
                self.finish(self.names[self.index])

        self.on_keys(bindings, "tui.select.up", ["up"], lambda: go((self.index - 1) % max(1, count)))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: go((self.index + 1) % max(1, count)))
        page_up = lambda: go(max(0, self.index - MAX_VISIBLE))  # noqa: E731
        page_down = lambda: go(min(count - 1, self.index + MAX_VISIBLE))  # noqa: E731
        self.on_keys(bindings, "tui.select.pageUp", ["pageUp"], page_up)
        self.on_keys(bindings, "tui.select.pageDown", ["pageDown"], page_down)
        self.on_keys(bindings, "tui.select.confirm", ["enter"], choose)
        self.on_keys(bindings, "tui.select.cancel", ["escape", "ctrl+c"], lambda: self.finish(None))
        return bindings

    def label(self, name: str) -> str:
        return f"{'✓' if name == self.current else ' '} {name}"

    def fragments(self) -> StyleAndTextTuples:
        width = self.width()
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        accent, muted, dim = self._fg("accent"), self._fg("muted"), self._fg("dim")
        lines: list[StyleAndTextTuples] = [rule, [(f"bold {accent}", self.title)], []]
        lines += [[(muted, piece)] for piece in wrap(self.about, width)]
        lines.append([])
        # The names' column: as wide as the widest with two spaces after it, 12 to 32 cells.
        column = max(12, min(32, max((get_cwidth(self.label(n)) + 2 for n in self.names), default=0)))
        on_screen = centred_rows(self.index, len(self.names), MAX_VISIBLE)
        start, end = on_screen.start, on_screen.stop
        for position in on_screen:
            name = self.names[position]
            selected = position == self.index
            label = self.label(name)
            meaning = MEANINGS.get(name, "")
            row: StyleAndTextTuples = [(accent, "→ ") if selected else ("", "  ")]
            if meaning and width > 40:
                padded = label + " " * max(1, column - get_cwidth(label))
                room = max(0, width - 2 - column - 2)
                shown = meaning if get_cwidth(meaning) <= room else wrap(meaning, room)[0]
                row += [(accent if selected else "", padded), (accent if selected else muted, shown)]
            else:
                row.append((accent if selected else "", label))
            lines.append(row)
        if start > 0 or end < len(self.names):
            lines.append([(muted, f"  ({self.index + 1}/{len(self.names)})")])
        confirm = self.key_text("tui.select.confirm", "enter", capitalize=True)
        lines += [[], [(dim, f"  {confirm} picks · Esc goes back")], rule]
        return self.join(lines, opening=1)


async def choose_theme(mode: InteractiveMode) -> None:
    """Run the picker; the setting changes only when a choice is made."""
    ui = mode.ui
    setting = mode.host.session.settings.settings.theme or themes.SYSTEM
    names = [info.name for info in ui.get_all_themes()]
    pair = themes.parse_pair(setting)
    single = [themes.SYSTEM, AUTOMATIC, *(name for name in names if name != themes.SYSTEM)]

    def preview(name: str | None) -> None:
        theme = ui.get_theme(name) if name is not None and name != AUTOMATIC else None
        if theme is not None:
            ui.preview_theme(theme)

    try:
        about = "Pick a theme, or automatic to follow the terminal's light or dark look."
        chosen = await _pick(mode, "Theme", about, single, AUTOMATIC if pair else setting, preview)
        if chosen is None:
            return
        if chosen != AUTOMATIC:
            _save(mode, chosen)
            return
        # A pair starts from the saved pair, else from the one saved theme for both.
        light_now, dark_now = pair or (setting, setting)
        light = await _pick(mode, "Light theme", "The theme for a light terminal.", names, light_now, preview)
        if light is None:
            return
        dark = await _pick(mode, "Dark theme", "The theme for a dark terminal.", names, dark_now, preview)
        if dark is not None:
            _save(mode, f"{light}/{dark}")
    finally:
        ui.preview_theme(None)


async def _pick(
    mode: InteractiveMode,
    title: str,
    about: str,
    names: list[str],
    current: str,
    preview: Callable[[str | None], None],
) -> str | None:
    chosen: str | None = await mode.show_selector(
        ThemeList(title, about, names, current, preview, keymap=mode.keymap.keys, styles=lambda: mode.styles)
    )
    return chosen


def _save(mode: InteractiveMode, setting: str) -> None:
    outcome = mode.ui.set_theme(setting)
    if outcome.success:
        mode.ask_terminal_colours()  # as pi when its theme setting changes
    if not outcome.success:
        mode.console.print(Text(outcome.error or f"Theme not found: {setting}", style="pi.error"))
