"""``ctx.ui`` in the REPL: dialogs as prompts (the editor pauses meanwhile), notices on the console.

Statuses (``set_status``) and string-list widgets (``set_widget``) are shown in the toolbar under
the editor; other widget content (renderables, factories) has no place in this REPL and is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from pi_core.ai.abort import AbortSignal
from pi_core.modes.interactive.dialogs import ask, yes
from pi_core.modes.interactive.sanitize import keep_style
from pi_core.runtime.ui import Theme

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode

_NOTIFY_STYLES = {"info": "cyan", "warning": "yellow", "error": "bold red"}


class InteractiveUI:
    """The UI plugins get in interactive mode."""

    has_ui = True

    def __init__(self, mode: InteractiveMode) -> None:
        self._mode = mode
        self._theme: Theme | None = None
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, list[str]] = {}
        #: Where each widget goes: ``aboveEditor`` or ``belowEditor`` (the fullscreen mode
        #: honours it; the inline toolbar shows them all under the editor).
        self.placements: dict[str, str] = {}
        #: ``set_working_message``: shown instead of ``working…`` while the agent works.
        self.working_message: str | None = None
        #: ``set_working_visible(False)`` hides the working row.
        self.working_visible = True

    @property
    def theme(self) -> Theme:
        """The ``theme`` setting's palette (``light`` or ``dark``; anything else: dark)."""
        name = self._mode.host.session.settings.settings.theme
        if self._theme is None or self._theme.name != (name if name in ("light", "dark") else "dark"):
            self._theme = Theme(name)
        return self._theme

    def set_working_message(self, text: str | None = None) -> None:
        self.working_message = text or None
        self._mode.invalidate()

    def set_working_visible(self, visible: bool) -> None:
        self.working_visible = bool(visible)
        self._mode.invalidate()

    def set_hidden_thinking_label(self, text: str | None = None) -> None:
        self._mode.renderer.hidden_thinking_label = text or None

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        choices = list(options)
        if not choices:
            return None
        index = await self._mode.pick(title, choices, timeout_ms=timeout, signal=signal)
        return None if index is None else choices[index]

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool:
        console = self._mode.console

        async def run() -> bool:
            console.print(Text(title, style="bold"))
            if message:
                console.print(message)
            return yes(await ask("[y/N] ", timeout_ms=timeout, signal=signal, **self._mode.terminal))

        return await self._mode.dialog(run)

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
        secret: bool = False,
    ) -> str | None:
        """One line of text; ``secret`` hides what is typed (an API key)."""
        console = self._mode.console

        async def run() -> str | None:
            console.print(Text(title, style="bold"))
            return await ask(
                "> ",
                placeholder=placeholder,
                timeout_ms=timeout,
                signal=signal,
                secret=secret,
                **self._mode.terminal,
            )

        return await self._mode.dialog(run)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        console = self._mode.console

        async def run() -> str | None:
            console.print(Text(f"{title} (Alt+Enter or Esc Enter to finish, Ctrl+C cancels)", style="bold"))
            return await ask("", default=prefill or "", multiline=True, **self._mode.terminal)

        return await self._mode.dialog(run)

    def notify(self, message: str, type: str = "info") -> None:
        self._mode.console.print(Text(message, style=_NOTIFY_STYLES.get(type, "cyan")))

    def set_status(self, key: str, text: str | None) -> None:
        """Status text may be styled with SGR colour escapes (``ctx.ui.theme.fg``); every other
        control sequence is removed."""
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = keep_style(text).replace("\n", " ")
        self._mode.invalidate()

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None:
        if content is None:
            self.widgets.pop(key, None)
            self.placements.pop(key, None)
        elif isinstance(content, list) and all(isinstance(line, str) for line in content):
            self.widgets[key] = [keep_style(line) for line in content]
            self.placements[key] = placement if placement == "belowEditor" else "aboveEditor"
        self._mode.invalidate()

    def set_title(self, text: str) -> None:
        self._mode.set_title(text)

    def set_editor_text(self, text: str) -> None:
        self._mode.set_editor_text(text)

    def get_editor_text(self) -> str:
        return self._mode.get_editor_text()

    def clear_plugin_state(self) -> None:
        """Forget statuses and widgets (their plugin instances were replaced)."""
        self.statuses.clear()
        self.widgets.clear()
        self.placements.clear()
        self._mode.invalidate()

    def widget_lines(self, placement: str) -> list[str]:
        """The lines of the widgets placed ``aboveEditor`` or ``belowEditor``."""
        return [
            line
            for key, widget in self.widgets.items()
            if self.placements.get(key, "aboveEditor") == placement
            for line in widget
        ]

    def toolbar_lines(self) -> list[str]:
        lines = [line for widget in self.widgets.values() for line in widget]
        if self.statuses:
            lines.append("  ".join(self.statuses[key] for key in sorted(self.statuses)))
        return lines
