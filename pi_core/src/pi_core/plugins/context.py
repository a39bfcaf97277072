"""What a hook handler, tool ``execute`` or shortcut receives as ``ctx`` (spec §5), as Protocols.

The runtime implements these; plugins only rely on the members listed here. Properties are resolved
when read, so they reflect the current state, and raise once the runtime they belong to was torn down
(session replacement, ``/reload``): never keep a ``ctx`` beyond the call that received it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from pi_core.ai.abort import AbortSignal


@runtime_checkable
class ExtensionUI(Protocol):
    """Dialogs and decorations (spec §5.2). Without a UI dialogs resolve to ``None``/``False`` at once.

    ``timeout`` (ms) is part of pi's dialog API: the dialog resolves to its empty value when it expires.
    """

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> str | None: ...

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (pi's dialog API)
    ) -> bool: ...

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> str | None: ...

    async def editor(self, title: str, prefill: str | None = None) -> str | None: ...

    def notify(self, message: str, type: str = "info") -> None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None: ...

    def set_title(self, text: str) -> None: ...

    def set_editor_text(self, text: str) -> None: ...

    def get_editor_text(self) -> str: ...


class ContextUsage(Protocol):
    tokens: int | None
    context_window: int
    percent: float | None


@runtime_checkable
class ExtensionContext(Protocol):
    """The context given to every event handler, tool ``execute`` and shortcut handler."""

    @property
    def ui(self) -> ExtensionUI: ...

    @property
    def has_ui(self) -> bool:
        """True in interactive and RPC mode; false in print and JSON mode."""
        ...

    @property
    def cwd(self) -> str:
        """Working directory of the session runtime."""
        ...

    @property
    def session_manager(self) -> Any:
        """Read-only view of the session (``get_branch()``, ``get_entries()``, ``get_leaf_id()``, …)."""
        ...

    @property
    def model_registry(self) -> Any: ...

    @property
    def model(self) -> Any:
        """The selected model, or ``None``."""
        ...

    @property
    def signal(self) -> AbortSignal | None:
        """Abort signal of the active agent run; ``None`` outside runs."""
        ...

    def is_idle(self) -> bool: ...

    def abort(self) -> None: ...

    def has_pending_messages(self) -> bool: ...

    def shutdown(self) -> None: ...

    def get_context_usage(self) -> ContextUsage | None: ...

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None: ...

    def get_system_prompt(self) -> str: ...


class SessionChangeResult(Protocol):
    cancelled: bool


@runtime_checkable
class CommandContext(ExtensionContext, Protocol):
    """What a command handler receives: the extension context plus session control (spec §4.4).

    Only commands get these, because they wait for the agent and would deadlock inside the loop.
    """

    async def wait_for_idle(self) -> None: ...

    async def new_session(
        self,
        *,
        parent_session: str | None = None,
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
        with_session: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> SessionChangeResult: ...

    async def fork(
        self,
        entry_id: str,
        *,
        position: str = "before",
        with_session: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> SessionChangeResult: ...

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> SessionChangeResult: ...

    async def switch_session(
        self, path: str, *, with_session: Callable[[Any], Awaitable[None] | None] | None = None
    ) -> SessionChangeResult: ...

    async def reload(self) -> None: ...
