"""The UI plugins get when nobody is there to answer: print and JSON modes.

Dialogs resolve at once to their "no answer" value (``None``/``False``), decorations are dropped,
and ``notify`` goes to the mode's notice sink (stderr in print mode), as pi's non-interactive
modes behave.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.plugins.context import UITheme
from pi_core.runtime.themes import Theme, ThemeInfo

__all__ = ["HeadlessUI", "NoTerminalParts", "Theme", "ThemeInfo", "ThemeResult", "headless_theme"]


@dataclass(frozen=True)
class ThemeResult:
    """What ``set_theme`` did: ``success``, else the ``error`` saying why nothing changed."""

    success: bool
    error: str | None = None


def headless_theme(source: Callable[[], Theme] | None) -> Theme:
    """``ctx.ui.theme`` without a terminal: ``source``'s theme, or ``system``'s when there is none."""
    if source is not None:
        return source()
    from pi_core.runtime import themes

    return themes.system()


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

    def __init__(
        self,
        on_notify: Callable[[str, str], None] | None = None,
        theme: Callable[[], Theme] | None = None,
    ) -> None:
        self._on_notify = on_notify
        self._theme_source = theme

    @functools.cached_property
    def theme(self) -> Theme:
        """What ``theme`` (the mode's :meth:`~pi_core.runtime.host.RuntimeHost.setting_theme`)
        gives, else ``system``'s, made when a plugin first asks (print runs rarely do)."""
        return headless_theme(self._theme_source)

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
        blocked: Any = None,
    ) -> Any:
        return None

    def paste_to_editor(self, text: str) -> None:
        return None


def _nothing() -> None:
    """What ``on_terminal_input`` returns where no terminal input reaches plugins."""
