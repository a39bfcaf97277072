"""What the REPL tells the terminal about itself: the Program Status Protocol (OSC 7501), as pi
1.6.0 reports it — ``working`` while a run or a compaction goes, ``blocked`` while a dialog waits
for the user, then ``done``, ``error`` or ``idle`` once the run has settled.

Reports carry only the session name, a dialog's title or the first line of an error, never a
prompt or model output. They are sent when ``PI_PROGRAM_STATUS=1``; with ``0`` never; otherwise
only once the terminal has answered the protocol's support query, sent at start. The answer
comes in with the keys and is taken out of them, with the terminal's other answers, by
:class:`~pi_core.modes.interactive.terminal_colors.AnswerFilter`, which tells
:meth:`ProgramStatus.supported`.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

State = Literal["idle", "working", "blocked", "done", "error", "clear"]
Kind = Literal["question", "permission", "auth"]

#: The program's name in every report.
APP = "pi"
#: The longest message, in UTF-8 bytes (its base64 stays under the protocol's limit).
MAX_MESSAGE_BYTES = 2048
#: Asks whether the terminal takes reports; one that does answers with the same body.
SUPPORT_QUERY = "\x1b]7501;?\x1b\\"
_APP_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,32}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Status:
    state: State
    kind: Kind | None = None
    message: str | None = None


class Blocked(BaseModel):
    """What a dialog waits for (``kind``) and what it asks (``message``): pi's ``blocked``
    option of ``ctx.ui.custom``, given as a dict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    message: str


def encode(status: Status, app: str = APP) -> str:
    """One report: ``ESC ] 7501 ; state=…:app=…:kind=…:msg=<base64> ESC \\``."""
    pairs = [f"state={status.state}"]
    if _APP_NAME.fullmatch(app):
        pairs.append(f"app={app}")
    if status.state == "blocked" and status.kind:
        pairs.append(f"kind={status.kind}")
    message = _CONTROL.sub(" ", status.message or "").strip()
    data = message.encode()
    if len(data) > MAX_MESSAGE_BYTES:
        message = data[:MAX_MESSAGE_BYTES].decode(errors="ignore")  # whole characters only
    if message:
        pairs.append("msg=" + base64.b64encode(message.encode()).decode())
    return f"\x1b]7501;{':'.join(pairs)}\x1b\\"


def _first_line(text: str | None) -> str:
    line = (text or "").splitlines()[0].strip() if (text or "").strip() else ""
    return line or "Error"


class ProgramStatus:
    """Follows the session's events and the open dialogs, and writes a report whenever what it
    would say changes. Call it with each session event; :meth:`set_blocked` for dialogs."""

    def __init__(
        self,
        write: Callable[[str], None],
        session_name: Callable[[], str | None],
        setting: str | None = None,
    ) -> None:
        self._write = write
        self._session_name = session_name
        #: ``PI_PROGRAM_STATUS``: ``1`` reports, ``0`` never does, else the terminal is asked.
        self.setting = os.environ.get("PI_PROGRAM_STATUS") if setting is None else setting
        self.enabled = self.setting == "1"
        self._run_active = False
        self._compacting = False
        self._run_result = Status("done")
        self._resting = Status("idle")
        #: Open dialogs by source, in the order they opened (the newest is reported).
        self._blocked: dict[object, Blocked] = {}
        self._last: str | None = None

    # --- the terminal ----------------------------------------------------------------------------

    def query(self) -> None:
        """Ask the terminal whether it takes reports (unless ``PI_PROGRAM_STATUS`` decided)."""
        if self.setting in ("0", "1"):
            self.report()
        else:
            self._write(SUPPORT_QUERY)

    def supported(self) -> None:
        """The terminal answered the query: it takes reports, starting with the state now."""
        if self.setting != "0" and not self.enabled:
            self.enabled = True
            self._last = None
            self.report()

    def clear(self) -> None:
        """Take the status away (pi is leaving the terminal)."""
        if self.enabled and self._last is not None:
            self._write(encode(Status("clear")))
        self._last = None

    # --- what is reported ------------------------------------------------------------------------

    def __call__(self, event: Any) -> None:
        kind = getattr(event, "type", "")
        if kind == "agent_start":
            self._run_active = True
            self._run_result = Status("done")
        elif kind == "message_end":
            message = event.message
            if getattr(message, "role", None) != "assistant":
                return
            # The latest answer decides: a failed one that a retry replaced no longer counts.
            failed = getattr(message, "stop_reason", None) == "error"
            self._run_result = (
                Status("error", message=_first_line(getattr(message, "error_message", None)))
                if failed
                else Status("done")
            )
        elif kind == "compaction_start":
            self._compacting = True
        elif kind == "compaction_end":
            self._compacting = False
            if self._run_active:
                if event.aborted:
                    self._run_result = Status("idle")
                elif event.error_message:
                    self._run_result = Status("error", message=_first_line(event.error_message))
            elif event.aborted:
                self._resting = Status("idle")
            elif event.reason == "manual":
                self._resting = (
                    Status("error", message=_first_line(event.error_message))
                    if event.error_message
                    else Status("done")
                )
        elif kind == "agent_settled":
            self._run_active = False
            self._resting = Status("idle") if event.aborted else self._run_result
        elif kind != "session_info_changed":  # a new name shows in working and done reports
            return
        self.report()

    def set_blocked(self, source: object, blocked: Blocked | None) -> None:
        """``source`` (a dialog) waits for the user (``None``: no longer). Opened again, it
        counts as the newest."""
        self._blocked.pop(source, None)
        if blocked is not None:
            self._blocked[source] = blocked
        self.report()

    def reset(self) -> None:
        """Another session: its predecessor's run is forgotten."""
        self._run_active = self._compacting = False
        self._run_result = Status("done")
        self._resting = Status("idle")
        self.report()

    def current(self) -> Status:
        if self._blocked:
            newest = list(self._blocked.values())[-1]
            return Status("blocked", kind=newest.kind, message=newest.message)
        if self._compacting:
            return Status("working", message="Compacting context")
        status = Status("working") if self._run_active else self._resting
        if status.state in ("working", "done"):
            return Status(status.state, message=self._session_name())
        return status

    def report(self) -> None:
        if not self.enabled:
            return
        sequence = encode(self.current())
        if sequence != self._last:
            self._last = sequence
            self._write(sequence)
