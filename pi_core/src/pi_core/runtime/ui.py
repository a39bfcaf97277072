"""The UI plugins get when nobody is there to answer: print and JSON modes.

Dialogs resolve at once to their "no answer" value (``None``/``False``), decorations are dropped,
and ``notify`` goes to the mode's notice sink (stderr in print mode), as pi's non-interactive
modes behave.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pi_core.ai.abort import AbortSignal


class HeadlessUI:
    """``ctx.ui`` without a user: dialogs answer nothing, notifications go to ``on_notify``."""

    def __init__(self, on_notify: Callable[[str, str], None] | None = None) -> None:
        self._on_notify = on_notify

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
