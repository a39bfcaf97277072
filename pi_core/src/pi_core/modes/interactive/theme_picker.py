"""``/settings`` → Theme: choose a theme, or a light and a dark one, seeing each before saving.

As in pi, the list is ``system``, ``automatic`` (a ``light/dark`` pair chosen by the terminal's
background), then every theme by name, the current one ticked. The REPL is drawn in the theme
under the highlight while the list is open; Enter saves the ``theme`` setting, Esc puts the
saved theme back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from pi_core.runtime import themes

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode

AUTOMATIC = "automatic"


def _rows(names: list[str], current: str | None) -> list[str]:
    return [f"{'✓' if name == current else ' '} {name}" for name in names]


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
        chosen = await _pick(mode, "Theme", single, AUTOMATIC if pair else setting, preview)
        if chosen is None:
            return
        if chosen != AUTOMATIC:
            _save(mode, chosen)
            return
        # A pair starts from the saved pair, else from the one saved theme for both.
        light_now, dark_now = pair or (setting, setting)
        light = await _pick(mode, "Light theme", names, light_now, preview)
        if light is None:
            return
        dark = await _pick(mode, "Dark theme", names, dark_now, preview)
        if dark is not None:
            _save(mode, f"{light}/{dark}")
    finally:
        ui.preview_theme(None)


async def _pick(
    mode: InteractiveMode, title: str, names: list[str], current: str, preview: Callable[[str | None], None]
) -> str | None:
    index = await mode.pick(
        title,
        _rows(names, current),
        initial=names.index(current) if current in names else 0,
        on_highlight=lambda row: preview(None if row is None else names[row]),
    )
    return None if index is None else names[index]


def _save(mode: InteractiveMode, setting: str) -> None:
    outcome = mode.ui.set_theme(setting)
    if outcome.success:
        mode.ask_terminal_colours()  # as pi when its theme setting changes
    if not outcome.success:
        mode.console.print(Text(outcome.error or f"Theme not found: {setting}", style="pi.error"))
