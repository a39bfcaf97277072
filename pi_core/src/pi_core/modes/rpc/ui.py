"""Extension UI over RPC: dialogs become ``extension_ui_request`` lines and wait for the client.

Dialogs resolve to their default (``None``/``False``) on timeout, abort or ``cancelled``; requests
the client never answers stay pending until then. Fire-and-forget calls are written and forgotten.
Widget content other than a list of strings is not representable over RPC and is ignored, as pi does.
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.modes.rpc.ui_protocol import (
    ConfirmRequest,
    EditorRequest,
    InputRequest,
    NotifyRequest,
    SelectRequest,
    SetEditorTextRequest,
    SetStatusRequest,
    SetTitleRequest,
    SetWidgetRequest,
    UiRequest,
    UiResponse,
)
from pi_core.plugins.context import UITheme
from pi_core.runtime.ui import NoTerminalParts, Theme, ThemeResult, headless_theme


def _new_id() -> str:
    return str(uuid.uuid4())


class RpcExtensionUI(NoTerminalParts):
    """The ``ctx.ui`` plugins get in RPC mode."""

    #: The RPC client answers dialogs.
    has_ui = True

    def __init__(self, send: Callable[[UiRequest], None], theme: Callable[[], Theme] | None = None) -> None:
        self._send = send
        self._theme_source = theme
        self._pending: dict[str, asyncio.Future[UiResponse | None]] = {}
        self._closed = False

    def resolve(self, response: UiResponse) -> None:
        """Hand a client's ``extension_ui_response`` to the dialog waiting for it (unknown ids ignored)."""
        future = self._pending.pop(response.id, None)
        if future is not None and not future.done():
            future.set_result(response)

    def close(self) -> None:
        """The client is gone: every open dialog gets its default answer, new ones get it at once."""
        self._closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_result(None)

    async def _dialog(
        self, request: UiRequest, signal: AbortSignal | None, timeout_ms: float | None
    ) -> UiResponse | None:
        if self._closed or (signal is not None and signal.aborted):
            return None
        future: asyncio.Future[UiResponse | None] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = future

        def on_abort() -> None:
            if not future.done():
                future.set_result(None)

        remove = signal.add_listener(on_abort) if signal is not None else (lambda: None)
        self._send(request)
        try:
            if timeout_ms:
                return await asyncio.wait_for(future, timeout_ms / 1000)
            return await future
        except TimeoutError:
            return None
        finally:
            remove()
            self._pending.pop(request.id, None)

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        request = SelectRequest(id=_new_id(), title=title, options=list(options), timeout=_ms(timeout))
        return _value(await self._dialog(request, signal, timeout))

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool:
        request = ConfirmRequest(id=_new_id(), title=title, message=message, timeout=_ms(timeout))
        response = await self._dialog(request, signal, timeout)
        if response is None or response.cancelled:
            return False
        return bool(response.confirmed)

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the ExtensionUI protocol's parameter (ms)
    ) -> str | None:
        request = InputRequest(id=_new_id(), title=title, placeholder=placeholder, timeout=_ms(timeout))
        return _value(await self._dialog(request, signal, timeout))

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        request = EditorRequest(id=_new_id(), title=title, prefill=prefill)
        return _value(await self._dialog(request, None, None))

    def notify(self, message: str, type: str = "info") -> None:
        kind = type if type in ("info", "warning", "error") else None
        self._send(NotifyRequest(id=_new_id(), message=message, notify_type=kind))

    def set_status(self, key: str, text: str | None) -> None:
        self._send(SetStatusRequest(id=_new_id(), status_key=key, status_text=text))

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None:
        if content is not None and not (
            isinstance(content, list) and all(isinstance(x, str) for x in content)
        ):
            return  # renderables cannot travel over RPC
        where = placement if placement in ("aboveEditor", "belowEditor") else None
        self._send(
            SetWidgetRequest(id=_new_id(), widget_key=key, widget_lines=content, widget_placement=where)
        )

    def set_title(self, text: str) -> None:
        self._send(SetTitleRequest(id=_new_id(), title=text))

    def set_editor_text(self, text: str) -> None:
        self._send(SetEditorTextRequest(id=_new_id(), text=text))

    def get_editor_text(self) -> str:
        return ""  # the client owns the editor; a synchronous answer is impossible over RPC

    def paste_to_editor(self, text: str) -> None:
        """No terminal paste handling over RPC: the text goes to the client as ``set_editor_text``."""
        self.set_editor_text(text)

    # pi's extension-UI sub-protocol has no requests for these: in RPC mode they do nothing
    # (``custom`` answers ``None``, ``on_terminal_input`` returns an unsubscribe that does nothing).

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

    @functools.cached_property
    def theme(self) -> Theme:
        """The theme the ``theme`` setting names (``theme``'s, made when a plugin first asks), as
        pi's RPC mode: plugins may read its colours; the client draws with its own theme."""
        return headless_theme(self._theme_source)

    def set_theme(self, theme: str | UITheme) -> ThemeResult:
        return ThemeResult(False, "Theme switching not supported in RPC mode")


def _value(response: UiResponse | None) -> str | None:
    """A select/input/editor answer: the client's value, or ``None`` when there was none or it cancelled."""
    if response is None or response.cancelled:
        return None
    return response.value


def _ms(timeout: float | None) -> int | None:
    """Dialog timeouts are milliseconds on the wire, as in pi."""
    return int(timeout) if timeout else None
