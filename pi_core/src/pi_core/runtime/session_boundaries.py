"""The boundaries of an AgentSession's runs where plugins may act (pi 1.6.0): ``turn_end``
(after each turn) and ``agent_before_settle`` (before the session settles) may propose entries
— ``custom`` entries, ``custom_message``s for the model, ``context_edit``s that replace or omit a
message of the branch — and ask for one more request or run.

A proposal is checked whole before any of it is applied; a proposal that cannot apply is
reported as the handlers' error and dropped. Applied entries go to the session file in order
and into the agent's messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi_core.agent import events as agent_events
from pi_core.agent.loop import AfterTurn, ShouldStopContext
from pi_core.ai.messages import AgentMessage, CustomMessage, TextContent
from pi_core.plugins import events as hook_events
from pi_core.runtime.hook_bridge import HookBridge

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession


class RunBoundaries:
    """``turn_end`` and ``agent_before_settle`` proposals of one session."""

    def __init__(self, session: AgentSession, bridge: HookBridge | None) -> None:
        self._s = session
        self._bridge = bridge
        #: Entry ids of the messages persisted in the current turn (``turn_end``'s ids), by object.
        self.turn_entries: dict[int, tuple[AgentMessage, str]] = {}

    def note_persisted(self, message: AgentMessage, entry_id: str) -> None:
        """``message`` of the current turn was persisted as ``entry_id``."""
        self.turn_entries[id(message)] = (message, entry_id)

    async def before_settle(self) -> Callable[[], Awaitable[None]] | None:
        """``agent_before_settle``: plugins may add entries and ask for one more run (not after an abort)."""
        s = self._s
        if s.hooks is None or not s.hooks.has("agent_before_settle") or s._run.abort_requested:
            return None
        event = hook_events.AgentBeforeSettleEvent(messages=list(s.messages))
        outcome = await s.hooks.agent_before_settle(event, s.extension_context())
        entries = list(outcome.entries or [])
        made: dict[int, CustomMessage] = {}
        try:  # check the whole proposal before anything of it is applied
            self._with_entries(list(s.agent.state.messages), entries, made)
        except ValueError as problem:
            s.report_plugin_error("(agent_before_settle handlers)", "agent_before_settle", problem)
            return None
        self._apply_entries(entries, made)
        if not outcome.continue_ or s._run.abort_requested:
            return None
        if not s.messages or s.messages[-1].role == "assistant":
            error = ValueError("continue needs a custom_message entry for the model to answer")
            s.report_plugin_error("(agent_before_settle handlers)", "agent_before_settle", error)
            return None
        return s.agent.continue_

    def _entry_id_of(self, message: AgentMessage) -> str | None:
        found = self.turn_entries.get(id(message))
        return found[1] if found is not None and found[0] is message else None

    def describe_turn(self, event: hook_events.TurnEndEvent) -> None:
        """What ``turn_end`` handlers see beyond the loop's event: entry ids, outcome, context."""
        s = self._s
        event.message_entry_id = self._entry_id_of(event.message)
        event.tool_result_entry_ids = [i for m in event.tool_results if (i := self._entry_id_of(m))]
        reason = getattr(event.message, "stop_reason", None)
        event.outcome = reason if reason in ("error", "aborted") else "completed"

        def rebuild(turn: hook_events.TurnEndEvent) -> None:
            try:
                turn.context = self._with_entries(list(s.agent.state.messages), turn.entries)
            except ValueError:
                turn.context = list(s.agent.state.messages)  # reported when it is applied

        rebuild(event)
        event._rebuild = rebuild

    def _with_entries(
        self,
        messages: list[AgentMessage],
        entries: Sequence[hook_events.SettleEntry],
        made: dict[int, CustomMessage] | None = None,
    ) -> list[AgentMessage]:
        """``messages`` as the next request carries them once ``entries`` are appended (the
        ``custom_message`` objects are kept in ``made`` by position, and reused from it).
        ``ValueError`` for a ``context_edit`` whose target is not a message entry of this branch."""
        s = self._s
        on_branch = {entry.id for entry in s.session_manager.get_branch()}
        made = {} if made is None else made
        for position, entry in enumerate(entries):
            if entry.type == "custom_message":
                messages.append(made.setdefault(position, _custom_message(entry)))
            elif entry.type == "context_edit":
                target = s.session_manager.get_entry(entry.target_id or "")
                if target is None or target.id not in on_branch:
                    raise ValueError(f"context_edit: entry {entry.target_id} is not on the current branch")
                # the agent holds the object it persisted; the entry may hold its own copy
                original = next(
                    (m for m, entry_id in self.turn_entries.values() if entry_id == target.id),
                    getattr(target, "message", None),
                )
                index = next((i for i, m in enumerate(messages) if m is original), None)
                if index is None and original is not None:
                    index = next((i for i, m in enumerate(messages) if m == original), None)
                if index is None:
                    raise ValueError(f"context_edit: entry {entry.target_id} has no message in the context")
                if entry.replacement is None:
                    del messages[index]
                else:
                    messages[index] = _replaced(messages[index], entry.replacement)
        return messages

    async def after_turn(self, turn: ShouldStopContext) -> AfterTurn | None:
        """Apply the ``turn_end`` proposal: entries in order, then maybe one more request."""
        s = self._s
        bridge = self._bridge
        proposal = bridge.turn_proposal if bridge is not None else None
        if bridge is not None:
            bridge.turn_proposal = None
        self.turn_entries = {}
        if proposal is None or (not proposal.entries and not proposal.continue_):
            return None
        entries = list(proposal.entries or [])
        made: dict[int, CustomMessage] = {}
        try:  # check the whole proposal before anything of it is applied
            transcript = self._with_entries(list(turn.context.messages), entries, made)
        except ValueError as error:
            s.report_plugin_error("(turn_end handlers)", "turn_end", error)
            return None
        self._apply_entries(entries, made)
        completed = turn.message.stop_reason not in ("error", "aborted")
        return AfterTurn(transcript=transcript, continue_=bool(proposal.continue_) and completed)

    def _apply_entries(
        self, entries: Sequence[hook_events.SettleEntry], made: dict[int, CustomMessage]
    ) -> None:
        """Append a checked boundary proposal to the session, in order, and to the agent's messages."""
        s = self._s
        state = self._with_entries(list(s.agent.state.messages), entries, made)
        for position, entry in enumerate(entries):
            if entry.type == "custom":
                s.session_manager.append_custom_entry(entry.custom_type or "", entry.data)
            elif entry.type == "context_edit":
                s.session_manager.append_context_edit(entry.target_id or "", entry.replacement)
            else:
                message = made[position]
                s._emit(agent_events.MessageStartEvent(message=message))
                s._emit(agent_events.MessageEndEvent(message=message))
                s._persistence.persist(message)
        s._persistence.report_write_state()
        s.agent.state.messages = state


def _custom_message(entry: hook_events.SettleEntry) -> CustomMessage:
    return CustomMessage(
        custom_type=entry.custom_type or "",
        content=entry.content if entry.content is not None else "",
        display=entry.display,
        details=entry.details,
    )


def _replaced(message: AgentMessage, replacement: Any) -> AgentMessage:
    """``message`` with the content of a ``context_edit`` (a string becomes one text block where
    the role takes blocks)."""
    if isinstance(replacement, str) and message.role in ("assistant", "toolResult"):
        replacement = [TextContent(text=replacement)]
    return message.model_copy(update={"content": replacement})
