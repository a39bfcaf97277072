"""The user's ``!command``s of one session (interactive ``!cmd``, RPC ``bash``).

A command runs in the session's directory through the configured shell (``shellPath``, with
``shellCommandPrefix`` put in front). Its result joins the transcript at once when the agent is
idle; during a run it waits and joins before the next prompt (or when the session is disposed),
so it never lands in the middle of a turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_core.ai.abort import AbortController
from pi_core.ai.messages import BashExecutionMessage
from pi_core.runtime.bash_executor import BashOutcome, execute_bash

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession


class UserBash:
    def __init__(self, session: AgentSession) -> None:
        self._s = session
        #: Results that finished during a run, waiting for the next prompt.
        self.pending: list[BashExecutionMessage] = []
        self._abort: AbortController | None = None

    async def execute(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_chunk: Callable[[str], None] | None = None,
    ) -> BashOutcome:
        settings = self._s.settings.settings
        prefix = settings.shell_command_prefix
        resolved = f"{prefix}\n{command}" if prefix else command
        controller = self._abort = AbortController()
        try:
            outcome = await execute_bash(
                resolved,
                self._s.cwd,
                shell_path=settings.shell_path,
                signal_=controller.signal,
                on_chunk=on_chunk,
            )
        finally:
            self._abort = None
        self.record(command, outcome, exclude_from_context=exclude_from_context)
        return outcome

    def record(self, command: str, outcome: BashOutcome, *, exclude_from_context: bool = False) -> None:
        message = outcome.to_message(command, exclude_from_context=exclude_from_context)
        if self._s.is_streaming:
            self.pending.append(message)
            return
        self._append(message)

    def flush(self) -> None:
        """Record the results that waited for the run to end."""
        pending, self.pending = self.pending, []
        for message in pending:
            self._append(message)

    def abort(self) -> None:
        if self._abort is not None:
            self._abort.abort()

    def _append(self, message: BashExecutionMessage) -> None:
        self._s.agent.state.messages.append(message)
        self._s.session_manager.append_message(message)
