"""The extension-UI sub-protocol: requests pi writes to stdout, responses the client sends back.

Dialogs (``select``, ``confirm``, ``input``, ``editor``) wait for an ``extension_ui_response`` with
the same id; the rest are fire-and-forget notifications.
"""

from __future__ import annotations

from typing import Literal

from pi_core._model import PiModel
from pi_core.modes.rpc.responses import WireModel


class _UiRequest(WireModel):
    type: Literal["extension_ui_request"] = "extension_ui_request"
    id: str


class SelectRequest(_UiRequest):
    method: Literal["select"] = "select"
    title: str
    options: list[str]
    timeout: int | None = None


class ConfirmRequest(_UiRequest):
    method: Literal["confirm"] = "confirm"
    title: str
    message: str
    timeout: int | None = None


class InputRequest(_UiRequest):
    method: Literal["input"] = "input"
    title: str
    placeholder: str | None = None
    timeout: int | None = None


class EditorRequest(_UiRequest):
    method: Literal["editor"] = "editor"
    title: str
    prefill: str | None = None


class NotifyRequest(_UiRequest):
    method: Literal["notify"] = "notify"
    message: str
    notify_type: Literal["info", "warning", "error"] | None = None


class SetStatusRequest(_UiRequest):
    method: Literal["setStatus"] = "setStatus"
    status_key: str
    status_text: str | None = None


class SetWidgetRequest(_UiRequest):
    method: Literal["setWidget"] = "setWidget"
    widget_key: str
    widget_lines: list[str] | None = None
    widget_placement: Literal["aboveEditor", "belowEditor"] | None = None


class SetTitleRequest(_UiRequest):
    method: Literal["setTitle"] = "setTitle"
    title: str


class SetEditorTextRequest(_UiRequest):
    method: Literal["set_editor_text"] = "set_editor_text"
    text: str


UiRequest = (
    SelectRequest
    | ConfirmRequest
    | InputRequest
    | EditorRequest
    | NotifyRequest
    | SetStatusRequest
    | SetWidgetRequest
    | SetTitleRequest
    | SetEditorTextRequest
)


class UiResponse(PiModel):
    """A client's answer: ``value`` (select/input/editor), ``confirmed`` (confirm) or ``cancelled``."""

    type: Literal["extension_ui_response"] = "extension_ui_response"
    id: str
    value: str | None = None
    confirmed: bool | None = None
    cancelled: bool | None = None
