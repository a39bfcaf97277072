"""The UI plugins get when nobody is there to answer: print and JSON modes.

Dialogs resolve at once to their "no answer" value (``None``/``False``), decorations are dropped,
and ``notify`` goes to the mode's notice sink (stderr in print mode), as pi's non-interactive
modes behave.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.plugins.context import UITheme

#: pi's theme colour names with the dark and light palettes (``theme`` setting; ``dark`` is the
#: default and what an unknown name falls back to).
THEMES: dict[str, dict[str, str]] = {
    "dark": {
        "accent": "#5fafd7",
        "border": "#4e4e4e",
        "borderAccent": "#5fafd7",
        "success": "#87d787",
        "error": "#ff5f5f",
        "warning": "#ffd75f",
        "muted": "#8a8a8a",
        "dim": "#626262",
        "text": "#d0d0d0",
        "thinkingText": "#8a8a8a",
        "toolTitle": "#d7d7ff",
        "toolOutput": "#a8a8a8",
        "userMessageText": "#87d787",
        "customMessageLabel": "#d787d7",
        "customMessageBg": "#262626",
        "toolPendingBg": "#1c1c24",
        "toolSuccessBg": "#1c241c",
        "toolErrorBg": "#241c1c",
    },
    "light": {
        "accent": "#005f87",
        "border": "#bcbcbc",
        "borderAccent": "#005f87",
        "success": "#008700",
        "error": "#d70000",
        "warning": "#af8700",
        "muted": "#6c6c6c",
        "dim": "#8a8a8a",
        "text": "#1c1c1c",
        "thinkingText": "#6c6c6c",
        "toolTitle": "#303090",
        "toolOutput": "#4e4e4e",
        "userMessageText": "#005f00",
        "customMessageLabel": "#870087",
        "customMessageBg": "#eeeeee",
        "toolPendingBg": "#eeeef8",
        "toolSuccessBg": "#eef8ee",
        "toolErrorBg": "#f8eeee",
    },
}


class Theme:
    """``ctx.ui.theme``: pi's named colours as terminal text (``fg``/``bg`` wrap ``text`` in 24-bit
    colour escapes, which the REPL's status line and widgets keep) and as hex (``color``).

    ``Theme(name)`` is a built-in palette (``dark`` for a name it does not know); with ``colors``
    (role → ``#rrggbb``) it is a theme of that name, as a theme file makes (``path``)."""

    def __init__(
        self, name: str | None = None, colors: dict[str, str] | None = None, *, path: str | None = None
    ) -> None:
        if colors is None:
            self.name = name if name in THEMES else "dark"
            self.colors = dict(THEMES[self.name])
        else:
            self.name = name or "custom"
            self.colors = {**THEMES["dark"], **colors}
        self.path = path

    def color(self, name: str) -> str:
        """The colour ``name`` as ``#rrggbb`` (the theme's ``text`` colour for an unknown name)."""
        return self.colors.get(name, self.colors["text"])

    def fg(self, name: str, text: str) -> str:
        red, green, blue = _rgb(self.color(name))
        return f"\x1b[38;2;{red};{green};{blue}m{text}\x1b[39m"

    def bg(self, name: str, text: str) -> str:
        red, green, blue = _rgb(self.color(name))
        return f"\x1b[48;2;{red};{green};{blue}m{text}\x1b[49m"

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[22m"

    def italic(self, text: str) -> str:
        return f"\x1b[3m{text}\x1b[23m"

    def underline(self, text: str) -> str:
        return f"\x1b[4m{text}\x1b[24m"


@dataclass(frozen=True)
class ThemeInfo:
    """One theme ``get_all_themes`` lists: its name and its file (``None`` for a built-in one)."""

    name: str
    path: str | None = None


@dataclass(frozen=True)
class ThemeResult:
    """What ``set_theme`` did: ``success``, else the ``error`` saying why nothing changed."""

    success: bool
    error: str | None = None


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


class NoTerminalParts:
    """The ``ctx.ui`` members that only a terminal can honour, as no-ops: headless and RPC modes
    (pi's RPC mode ignores them too)."""

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        return None

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        return None

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        return _nothing

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        return None

    def set_working_message(self, text: str | None = None) -> None:
        return None

    def set_working_visible(self, visible: bool) -> None:
        return None

    def set_hidden_thinking_label(self, text: str | None = None) -> None:
        return None

    def set_working_indicator(
        self, frames: Sequence[str] | None = None, *, interval_ms: float | None = None
    ) -> None:
        return None

    def get_tools_expanded(self) -> bool:
        return False

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        return None

    def get_editor_component(self) -> Callable[..., Any] | None:
        return None

    def set_tools_expanded(self, expanded: bool) -> None:
        return None

    def get_all_themes(self) -> list[ThemeInfo]:
        return []

    def get_theme(self, name: str) -> Theme | None:
        return None

    def set_theme(self, theme: str | UITheme) -> ThemeResult:
        return ThemeResult(False, "UI not available")


class HeadlessUI(NoTerminalParts):
    """``ctx.ui`` without a user: dialogs answer nothing, notifications go to ``on_notify``."""

    #: Nobody answers dialogs here (``ctx.has_ui`` is false); a subclass that answers sets it true.
    has_ui = False

    def __init__(self, on_notify: Callable[[str, str], None] | None = None) -> None:
        self._on_notify = on_notify
        self.theme = Theme()

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        return None

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool:
        return False

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    def notify(self, message: str, type: str = "info") -> None:
        if self._on_notify is not None:
            self._on_notify(message, type)

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None:
        return None

    def set_title(self, text: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        return ""

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], Any] | None = None,
    ) -> Any:
        return None

    def paste_to_editor(self, text: str) -> None:
        return None


def _nothing() -> None:
    """What ``on_terminal_input`` returns where no terminal input reaches plugins."""
