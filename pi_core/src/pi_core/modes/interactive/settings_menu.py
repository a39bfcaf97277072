"""``/settings``: the settings that act in this REPL, each shown with its value and changed in place.

Drawn as pi 1.6.0's settings list: between two rules the search field, the settings (label and
value in two columns, ``→`` before the highlighted one, ten at once with the position while some
are out of view), what the highlighted one does, and the keys. Enter (or Space while nothing is
typed) flips a switch or moves a setting on to its next value, as pi; the Theme row opens the
theme list and the settings come back on it afterwards. Changes go where pi puts them: the global
``settings.json`` (the session's own setters for thinking level, queue modes and
auto-compaction/retry, which also update the running agent).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.utils import get_cwidth

from pi_core.ai.resolve import fuzzy_rank
from pi_core.ai.thinking import supported_thinking_levels
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit
from pi_core.modes.interactive.picker import Selector, centred_rows, wrap
from pi_core.modes.interactive.theme_picker import choose_theme

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode
    from pi_core.modes.interactive.styles import ReplStyles

QUEUE_MODES = ("one-at-a-time", "all")
TREE_FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
DOUBLE_ESCAPE = ("tree", "fork", "none")

#: Settings shown at once at most, as pi's list shows.
MAX_VISIBLE = 10


@dataclass(frozen=True)
class Setting:
    label: str
    read: Callable[[], Any]
    #: The values to choose from (``None``: a switch between true and false).
    choices: Callable[[], Sequence[str]] | None
    write: Callable[[Any], None]
    #: A row with its own dialog instead of a list of values (the theme picker).
    dialog: Callable[[], Awaitable[None]] | None = None
    #: What the setting does, shown under the list while it is highlighted.
    description: str = ""

    def value(self) -> str:
        """The value as the list shows it (a switch as ``true``/``false``, as pi)."""
        value = self.read()
        if self.choices is None and self.dialog is None:
            return "true" if value else "false"
        return str(value)

    def change(self) -> None:
        """Flip the switch, or move on to the next of the values (after the last: the first)."""
        if self.choices is None:
            self.write(not self.read())
            return
        values = list(self.choices())
        if values:
            current = str(self.read())
            self.write(values[(values.index(current) + 1) % len(values) if current in values else 0])


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
            description="How much the model thinks before it answers (the levels the model offers)",
        ),
        Setting(
            "Auto-compact",
            lambda: session.auto_compaction_enabled,
            None,
            session.set_auto_compaction_enabled,
            description="Summarize older messages on its own when the context fills up",
        ),
        Setting(
            "Auto-retry",
            lambda: session.auto_retry_enabled,
            None,
            session.set_auto_retry_enabled,
            description="Try a request again after a passing provider error (overload, rate limit)",
        ),
        Setting(
            "Steering mode",
            lambda: session.steering_mode,
            queue_modes,
            session.set_steering_mode,
            description="Messages sent while the agent works: 'one-at-a-time' hands over one per turn, "
            "'all' hands over every waiting one together",
        ),
        Setting(
            "Follow-up mode",
            lambda: session.follow_up_mode,
            queue_modes,
            session.set_follow_up_mode,
            description="Follow-ups wait until the agent is done: 'one-at-a-time' sends one per run, "
            "'all' sends every waiting one together",
        ),
        Setting(
            "Hide thinking",
            lambda: typed().hide_thinking_block,
            None,
            hide_thinking,
            description="Leave the model's thinking out of the transcript",
        ),
        Setting(
            "Quiet startup",
            lambda: typed().quiet_startup,
            None,
            store("quietStartup"),
            description="Start without the list of keys, plugins and loaded files",
        ),
        Setting(
            "Fullscreen copy on select",
            lambda: typed().fullscreen_copy_on_select,
            None,
            store("fullscreenCopyOnSelect"),
            description="Copy a mouse selection (fullscreen) as the drag ends; off: Ctrl+X copies it",
        ),
        Setting(
            "Tree filter mode",
            lambda: typed().tree_filter_mode,
            lambda: TREE_FILTERS,
            store("treeFilterMode"),
            description="Which entries /tree shows when it opens",
        ),
        Setting(
            "Double-escape action",
            lambda: typed().double_escape_action,
            lambda: DOUBLE_ESCAPE,
            store("doubleEscapeAction"),
            description="What Esc pressed twice on an empty editor opens",
        ),
        Setting(
            "Auto-resize images",
            lambda: typed().images.auto_resize,
            None,
            store("images.autoResize"),
            description="Scale big images down (2000x2000 at most) before they are sent",
        ),
        Setting(
            "Block images",
            lambda: typed().images.block_images,
            None,
            store("images.blockImages"),
            description="Never send images to the model",
        ),
        Setting(
            "Skill commands",
            lambda: typed().enable_skill_commands,
            None,
            store("enableSkillCommands"),
            description="Offer each skill as a /skill:name command",
        ),
        Setting(
            "Theme",
            lambda: typed().theme or "system",
            None,
            store("theme"),
            lambda: choose_theme(mode),
            description="The colours of the terminal UI",
        ),
    ]


async def run_settings_menu(mode: InteractiveMode) -> None:
    items = settings_of(mode)
    row, query = 0, ""
    while True:
        selector = SettingsSelector(
            items, row=row, query=query, keymap=mode.keymap.keys, styles=lambda: mode.styles
        )
        chosen = await mode.show_selector(selector)
        if chosen is None:
            return
        row, query = chosen, selector.search.text
        dialog = items[chosen].dialog
        if dialog is not None:
            await dialog()


class SettingsSelector(Selector):
    """The settings list in the editor's place: switches and values change without closing it;
    it finishes with the index of a setting that has a dialog of its own, ``None`` on Esc."""

    def __init__(
        self,
        items: Sequence[Setting],
        *,
        row: int = 0,
        query: str = "",
        keymap: Mapping[str, Sequence[str]] | None = None,
        styles: Callable[[], ReplStyles] | None = None,
    ) -> None:
        self.items = list(items)
        self.keymap = keymap or {}
        self._styles = styles
        self.search = LineEdit(query)
        #: Indexes into ``items`` that match the search, best first; the highlight's position in it.
        self.shown: list[int] = []
        self.index = 0
        self.refilter()
        if row in self.shown:
            self.index = self.shown.index(row)
        super().__init__()

    def refilter(self) -> None:
        """pi's fuzzy filter over the labels; the highlight goes to the best match."""
        self.shown = fuzzy_rank(list(range(len(self.items))), self.search.text, lambda i: self.items[i].label)
        self.index = 0

    def _fg(self, role: str) -> str:
        return self._styles().fg.get(role, "") if self._styles is not None else ""

    def bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        def step(delta: int) -> None:
            if self.shown:
                self.index = (self.index + delta) % len(self.shown)

        def page(delta: int) -> None:
            if self.shown:
                self.index = max(0, min(len(self.shown) - 1, self.index + delta * MAX_VISIBLE))

        def activate() -> None:
            if not self.shown:
                return
            chosen = self.shown[self.index]
            if self.items[chosen].dialog is not None:
                self.finish(chosen)
            else:
                self.items[chosen].change()
                self.invalidate()

        # Bound first: the list's keys below win where they share one with the field.
        bind_line_edit(bindings, lambda: self.search, keymap=self.keymap, on_change=self.refilter)
        self.on_keys(bindings, "tui.select.up", ["up"], lambda: step(-1))
        self.on_keys(bindings, "tui.select.down", ["down"], lambda: step(1))
        self.on_keys(bindings, "tui.select.pageUp", ["pageUp"], lambda: page(-1))
        self.on_keys(bindings, "tui.select.pageDown", ["pageDown"], lambda: page(1))
        self.on_keys(bindings, "tui.select.confirm", ["enter"], activate)
        # Space changes the setting as Enter does while nothing is typed, as in pi's list.
        bindings.add(" ", filter=Condition(lambda: not self.search.text))(lambda event: activate())
        self.on_keys(bindings, "tui.select.cancel", ["escape", "ctrl+c"], lambda: self.finish(None))
        return bindings

    def fragments(self) -> StyleAndTextTuples:
        width = self.width()
        rule: StyleAndTextTuples = [(self._fg("border"), "─" * width)]
        accent, muted, dim = self._fg("accent"), self._fg("muted"), self._fg("dim")
        lines: list[StyleAndTextTuples] = [rule, [("", "> "), *self.search.fragments(width - 2)], []]
        column = min(36, max((get_cwidth(item.label) for item in self.items), default=0))
        on_screen = centred_rows(self.index, len(self.shown), MAX_VISIBLE)
        start, end = on_screen.start, on_screen.stop
        for position in on_screen:
            item = self.items[self.shown[position]]
            selected = position == self.index
            label = item.label + " " * max(0, column - get_cwidth(item.label))
            lines.append(
                [
                    (accent, "→ ") if selected else ("", "  "),
                    (accent if selected else "", label),
                    ("", "  "),
                    (accent if selected else muted, item.value()),
                ]
            )
        if start > 0 or end < len(self.shown):
            lines.append([(dim, f"  ({self.index + 1}/{len(self.shown)})")])
        if not self.shown:
            lines.append([(dim, "  No setting matches")])
        elif self.items[self.shown[self.index]].description:
            lines.append([])
            description = self.items[self.shown[self.index]].description
            lines += [[(dim, "  " + piece)] for piece in wrap(description, width - 4)]
        confirm = self.key_text("tui.select.confirm", "enter", capitalize=True)
        hint = f"  Type to search · {confirm}/Space changes it · Esc closes"
        lines += [[], [(dim, hint)], rule]
        return self.join(lines, opening=1)
