"""How an AgentSession's messages reach its session file, and what the user hears when the file
stops taking writes.

Messages become ``message`` entries (a custom message a ``custom_message`` entry). The session
manager keeps what it could not write and tries again with every append, so a run goes on while
the disk is full; the user is told once when writing stops, once when it works again, and at
dispose how many entries were never written. A failed reply that is retried or recovered from
stays in the file and is omitted from later contexts by a ``context_edit`` (pi 1.6.0).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pi_core.ai.messages import AgentMessage, CustomMessage

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession

logger = logging.getLogger("pi.runtime")


class SessionPersistence:
    """The writing side of one session's file."""

    def __init__(self, session: AgentSession) -> None:
        self._s = session
        self._write_failing = False
        #: The message persisted last and its entry id (a failed reply is omitted by id).
        self._last_persisted: tuple[AgentMessage, str] | None = None

    def persist(self, message: AgentMessage) -> str | None:
        """Append ``message`` to the session; the entry id of a transcript message, else ``None``."""
        manager = self._s.session_manager
        entry_id: str | None = None
        if isinstance(message, CustomMessage):
            manager.append_custom_message_entry(
                message.custom_type, message.content, message.display, message.details
            )
        elif message.role in ("system", "user", "assistant", "toolResult"):
            entry_id = manager.append_message(message)
            self._last_persisted = (message, entry_id)
        self.report_write_state()
        return entry_id

    def report_write_state(self) -> None:
        """Tell the user once when the session file stops taking writes, and when it takes them again."""
        manager = self._s.session_manager
        error = manager.write_error
        if error is not None and not self._write_failing:
            self._write_failing = True
            self._s.ui.notify(
                f"Could not write the session file {manager.get_session_file()}: {error.strerror or error}. "
                "The conversation goes on; unsaved entries are written as soon as that works again.",
                "error",
            )
        elif error is None and self._write_failing:
            self._write_failing = False
            self._s.ui.notify(
                f"Session file {manager.get_session_file()} is written again; nothing was lost.", "info"
            )

    def report_unsaved(self) -> None:
        """A last attempt to write what is still unsaved (at dispose); says how much was lost."""
        manager = self._s.session_manager
        if not manager.retry_write():
            unsaved = manager.unsaved_entries
            error = manager.write_error
            self._s.ui.notify(
                f"{unsaved} entries could not be written to {manager.get_session_file()}: "
                f"{error.strerror or error}",
                "error",
            )

    def drop_trailing_error(self) -> None:
        """Take the failed reply out of the context before a retry or a recovery. As pi 1.6.0 does,
        the reply stays in the session file and a ``context_edit`` omits it from later contexts
        (a resumed session does not see it either)."""
        agent = self._s.agent
        messages = agent.state.messages
        if messages and messages[-1].role == "assistant":
            failed = messages[-1]
            agent.state.messages = messages[:-1]
            persisted = self._last_persisted
            if persisted is not None and persisted[0] is failed:
                try:
                    self._s.session_manager.append_context_edit(persisted[1], None)
                except (KeyError, ValueError):  # not on the branch any more: nothing to omit
                    logger.debug("failed reply %s not omitted", persisted[1], exc_info=True)
                self.report_write_state()
