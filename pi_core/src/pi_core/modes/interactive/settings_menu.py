"""``/settings``: the settings that act in this REPL, each shown with its value and changed in place.

A row opens the list of its values (a switch flips at once); the menu comes back on the same row
until Esc. Changes go where pi puts them: the global ``settings.json`` (the session's own setters
for thinking level, queue modes and auto-compaction/retry, which also update the running agent).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_core.ai.thinking import supported_thinking_levels
from pi_core.modes.interactive.theme_picker import choose_theme

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode

QUEUE_MODES = ("one-at-a-time", "all")
TREE_FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
DOUBLE_ESCAPE = ("tree", "fork", "none")


@dataclass(frozen=True)
class Setting:
    label: str
    read: Callable[[], Any]
    #: The values to choose from (``None``: a switch between true and false).
    choices: Callable[[], Sequence[str]] | None
    write: Callable[[Any], None]
    #: A row with its own dialog instead of a list of values (the theme picker).
    dialog: Callable[[], Awaitable[None]] | None = None

    def shown(self) -> str:
        value = self.read()
        if self.choices is None and self.dialog is None:
            value = "on" if value else "off"
        return f"{self.label}: {value}"


def settings_of(mode: InteractiveMode) -> list[Setting]:
    session = mode.host.session
    typed = lambda: session.settings.settings  # noqa: E731 - re-read after every change

    def store(key: str) -> Callable[[Any], None]:
        return lambda value: session.settings.set(key, value)

    def hide_thinking(value: bool) -> None:
        session.settings.set("hideThinkingBlock", value)
        mode.set_thinking_hidden(value)

    def levels() -> Sequence[str]:
        return supported_thinking_levels(session.model) if session.model is not None else ["off"]

    queue_modes = lambda: QUEUE_MODES  # noqa: E731
    return [
        Setting(
            "Thinking level",
            lambda: session.thinking_level,
            levels,
            lambda level: session.set_thinking_level(level, persist=True),  # a setting: saved
        ),
        Setting(
            "Auto-compact", lambda: session.auto_compaction_enabled, None, session.set_auto_compaction_enabled
        ),
        Setting("Auto-retry", lambda: session.auto_retry_enabled, None, session.set_auto_retry_enabled),
        Setting("Steering mode", lambda: session.steering_mode, queue_modes, session.set_steering_mode),
        Setting("Follow-up mode", lambda: session.follow_up_mode, queue_modes, session.set_follow_up_mode),
        Setting("Hide thinking", lambda: typed().hide_thinking_block, None, hide_thinking),
        Setting("Quiet startup", lambda: typed().quiet_startup, None, store("quietStartup")),
        Setting(
            "Tree filter mode",
            lambda: typed().tree_filter_mode,
            lambda: TREE_FILTERS,
            store("treeFilterMode"),
        ),
        Setting(
            "Double-escape action",
            lambda: typed().double_escape_action,
            lambda: DOUBLE_ESCAPE,
            store("doubleEscapeAction"),
        ),
        Setting("Auto-resize images", lambda: typed().images.auto_resize, None, store("images.autoResize")),
        Setting("Block images", lambda: typed().images.block_images, None, store("images.blockImages")),
        Setting("Skill commands", lambda: typed().enable_skill_commands, None, store("enableSkillCommands")),
        Setting("Theme", lambda: typed().theme or "system", None, store("theme"), lambda: choose_theme(mode)),
    ]


async def run_settings_menu(mode: InteractiveMode) -> None:
    items = settings_of(mode)
    row = 0
    while True:
        chosen = await mode.pick("Settings", [item.shown() for item in items], initial=row, search=True)
        if chosen is None:
            return
        row = chosen
        item = items[chosen]
        if item.dialog is not None:
            await item.dialog()
            continue
        if item.choices is None:
            item.write(not item.read())
            continue
        values = list(item.choices())
        current = str(item.read())
        picked = await mode.pick(
            item.label, values, initial=values.index(current) if current in values else 0
        )
        if picked is not None:
            item.write(values[picked])
