"""What waits for a session's agent: steering messages (delivered after the current tool batch),
follow-ups (delivered when it would otherwise stop) and plugins' custom messages for the next
prompt; and the ``queue_update`` events that show the user's queued texts until each is delivered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core.agent.agent import Agent
from pi_core.ai.messages import CustomMessage, ImageContent, TextContent, UserMessage, text_of
from pi_core.runtime.events import QueueUpdateEvent


class MessageQueues:
    """The queued messages of one session; the agent holds the messages, this their texts."""

    def __init__(self, agent: Agent, emit: Callable[[Any], None]) -> None:
        self._agent = agent
        self._emit = emit
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        #: Custom messages that go with the next prompt (``deliver_as="nextTurn"``).
        self.next_turn: list[CustomMessage] = []

    @property
    def pending_count(self) -> int:
        return len(self.steering) + len(self.follow_up)

    def add(self, text: str, images: list[ImageContent], *, follow_up: bool) -> None:
        message = UserMessage(content=[TextContent(text=text), *images])
        if follow_up:
            self.follow_up.append(text)
            self._agent.follow_up(message)
        else:
            self.steering.append(text)
            self._agent.steer(message)
        self.emit_update()

    def emit_update(self) -> None:
        self._emit(QueueUpdateEvent(steering=list(self.steering), follow_up=list(self.follow_up)))

    def clear(self) -> tuple[list[str], list[str]]:
        """Drop everything queued; returns the (steering, follow-up) texts."""
        steering, follow = self.steering, self.follow_up
        self.steering, self.follow_up = [], []
        self._agent.clear_all_queues()
        self.emit_update()
        return steering, follow

    def delivered(self, message: UserMessage) -> None:
        """``message`` reached the transcript: its text leaves the queue shown to the user."""
        text = text_of(message.content)
        for texts in (self.steering, self.follow_up):
            if text in texts:
                texts.remove(text)
                self.emit_update()
                return

    def take_next_turn(self) -> list[CustomMessage]:
        taken, self.next_turn = self.next_turn, []
        return taken
