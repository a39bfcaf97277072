"""Which files a summarized stretch of conversation read and changed (spec §5.8).

The lists are stored in the entry's ``details`` and appended to the summary text, so file
history accumulates across compactions.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pi_core._model import PiModel
from pi_core.ai.messages import AgentMessage, ImageContent, TextContent, ThinkingContent, ToolCall

#: Content block classes that are never a tool call (their ``type`` is fixed).
_NOT_TOOL_CALL = frozenset({TextContent, ThinkingContent, ImageContent})


class FileOperations(PiModel):
    """Paths seen in ``read``, ``write`` and ``edit`` tool calls, exactly as the model wrote them."""

    read: set[str] = Field(default_factory=set)
    written: set[str] = Field(default_factory=set)
    edited: set[str] = Field(default_factory=set)

    def add_from_details(self, details: Any) -> None:
        """Seed from an earlier summary's ``details``: read files stay read, modified count as edited."""
        if not isinstance(details, dict):
            return
        read_files = details.get("readFiles")
        if isinstance(read_files, list):
            self.read.update(path for path in read_files if isinstance(path, str))
        modified = details.get("modifiedFiles")
        if isinstance(modified, list):
            self.edited.update(path for path in modified if isinstance(path, str))

    def add_from_message(self, message: AgentMessage) -> None:
        """Record the file operations of an assistant message's tool calls, or of the calls a
        tool made itself (a tool result's ``nestedCalls``, as pi 1.6.0 counts them)."""
        if message.role == "toolResult":
            nested = message.nested_calls
            if nested is not None:
                for call in nested.calls:
                    if isinstance(call.arguments, dict):
                        self._add(call.name, call.arguments.get("path"))
            return
        if message.role != "assistant":
            return
        block: Any
        for block in message.content:
            kind = type(block)  # pi's own blocks by class: spares a dictionary read per block
            if kind is not ToolCall and (kind in _NOT_TOOL_CALL or block.type != "toolCall"):
                continue
            self._add(block.name, block.arguments.get("path"))

    def _add(self, tool_name: str, path: Any) -> None:
        if not isinstance(path, str) or not path:
            return
        if tool_name == "read":
            self.read.add(path)
        elif tool_name == "write":
            self.written.add(path)
        elif tool_name == "edit":
            self.edited.add(path)

    def file_lists(self) -> tuple[list[str], list[str]]:
        """``(readFiles, modifiedFiles)``: modified = edited ∪ written; read = read − modified; sorted."""
        modified = self.edited | self.written
        return sorted(self.read - modified), sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The ``<read-files>`` / ``<modified-files>`` blocks appended to a summary ('' when both are empty)."""
    sections: list[str] = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)
