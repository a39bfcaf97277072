"""Builders for crafted session branches and a scripted summarizing model.

Entries get readable ids (``U1``, ``A4``) — pi accepts ids of any form — and timestamps one
second apart, so the worked examples of spec/compaction.md §11 read like the spec.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_core.runtime.compaction import SummaryRequest
from pi_core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    ThinkingLevelChangeEntry,
)

BASE_MS = 1_741_945_600_000  # 2025-03-14T09:46:40Z


def iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def text_of_tokens(tokens: int, char: str = "x") -> str:
    """A text whose pi estimate is exactly ``tokens`` (4 characters per token)."""
    return char * (4 * tokens)


@dataclass
class Branch:
    """Appends entries in a chain (or under ``parent=``) and hands out the path to any leaf."""

    entries: dict[str, Any] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    last: str | None = None

    def _add(self, entry_cls: type, entry_id: str, parent: str | bool | None, **fields: Any) -> str:
        parent_id = self.last if parent is True else parent
        ms = BASE_MS + 1000 * len(self.order)
        entry = entry_cls(id=entry_id, parent_id=parent_id, timestamp=iso(ms), **fields)
        if hasattr(entry, "message"):
            entry.message.timestamp = ms
        self.entries[entry_id] = entry
        self.order.append(entry_id)
        self.last = entry_id
        return entry_id

    def model_change(self, entry_id: str = "M", parent: str | bool | None = True) -> str:
        return self._add(
            ModelChangeEntry, entry_id, parent, provider="anthropic", model_id="claude-sonnet-4-5"
        )

    def thinking(self, entry_id: str = "T", parent: str | bool | None = True) -> str:
        return self._add(ThinkingLevelChangeEntry, entry_id, parent, thinking_level="medium")

    def user(self, entry_id: str, text: str, parent: str | bool | None = True) -> str:
        return self._add(MessageEntry, entry_id, parent, message=UserMessage(content=text))

    def assistant(
        self,
        entry_id: str,
        text: str = "",
        *,
        calls: list[tuple[str, dict[str, Any]]] | None = None,
        total_tokens: int = 0,
        parent: str | bool | None = True,
    ) -> str:
        content: list[Any] = [TextContent(text=text)] if text else []
        for index, (name, arguments) in enumerate(calls or []):
            content.append(ToolCall(id=f"{entry_id}-call{index}", name=name, arguments=arguments))
        message = AssistantMessage(
            content=content,
            api="anthropic-messages",
            provider="anthropic",
            model="claude-sonnet-4-5",
            usage=Usage(total_tokens=total_tokens),
            stop_reason="toolUse" if calls else "stop",
        )
        return self._add(MessageEntry, entry_id, parent, message=message)

    def tool_result(
        self, entry_id: str, text: str, parent: str | bool | None = True, name: str = "read"
    ) -> str:
        message = ToolResultMessage(
            tool_call_id=f"{entry_id}-call", tool_name=name, content=[TextContent(text=text)]
        )
        return self._add(MessageEntry, entry_id, parent, message=message)

    def branch_summary(
        self, entry_id: str, summary: str, parent: str | bool | None = True, details: Any = None
    ) -> str:
        parent_id = self.last if parent is True else parent
        return self._add(
            BranchSummaryEntry,
            entry_id,
            parent_id,
            from_id=parent_id or "root",
            summary=summary,
            details=details,
        )

    def custom_message(self, entry_id: str, text: str, parent: str | bool | None = True) -> str:
        return self._add(CustomMessageEntry, entry_id, parent, custom_type="note", content=text, display=True)

    def compaction(
        self,
        entry_id: str,
        summary: str,
        first_kept: str,
        tokens_before: int = 0,
        details: Any = None,
        parent: str | bool | None = True,
        from_hook: bool = False,
    ) -> str:
        return self._add(
            CompactionEntry,
            entry_id,
            parent,
            summary=summary,
            first_kept_entry_id=first_kept,
            tokens_before=tokens_before,
            details=details,
            from_hook=from_hook,
        )

    def fill_random(self, rng: random.Random, size: int) -> None:
        """A long chain mixing every entry type, tool calls on a few paths and occasional compactions."""
        paths = ["a.py", "b.py", "docs/x.md", "ünï.txt"]
        self.model_change("e0", parent=None)
        for n in range(1, size):
            entry_id = f"e{n}"
            roll = rng.random()
            if roll < 0.25:
                self.user(entry_id, "u" * rng.randint(0, 900) + rng.choice(["", "😀", "é"]))
            elif roll < 0.5:
                calls = [
                    (
                        rng.choice(["read", "write", "edit", "bash"]),
                        {"path": rng.choice(paths), "n": rng.randint(0, 9)},
                    )
                    for _ in range(rng.randint(0, 2))
                ]
                self.assistant(
                    entry_id, "a" * rng.randint(0, 1200), calls=calls, total_tokens=rng.randint(0, 9000)
                )
            elif roll < 0.75:
                self.tool_result(entry_id, "r" * rng.choice([2, 500, 2500, 9000]))
            elif roll < 0.8:
                self.thinking(entry_id)
            elif roll < 0.85:
                self.custom_message(entry_id, "note " * rng.randint(1, 60))
            elif roll < 0.9:
                self.branch_summary(
                    entry_id,
                    "s" * rng.randint(0, 300),
                    details={"readFiles": ["r.md"], "modifiedFiles": ["m.md"]},
                )
            elif roll < 0.94 and n > 3:
                path = self.path()
                kept = rng.choice(path[1:])
                self.compaction(
                    entry_id,
                    "summary " * 20,
                    kept.id,
                    rng.randint(0, 5000),
                    {"readFiles": ["old.py"], "modifiedFiles": []},
                )
            else:
                self.model_change(entry_id)

    def path(self, leaf: str | None = None) -> list[Any]:
        """Root-first entries from ``leaf`` (default: the last added) up the parent chain."""
        path: list[Any] = []
        current = leaf or self.last
        while current is not None:
            entry = self.entries[current]
            path.append(entry)
            current = entry.parent_id
        return path[::-1]


@pytest.fixture
def branch() -> Branch:
    return Branch()


PYTEST_CONTENT = "c" * 1202  # makes A3 = write(...) estimate exactly 312 tokens


def build_starting_tree(branch: Any) -> None:
    """§11.1: the pytest attempt (U2..R2) and, after /tree back to A2, the unittest branch."""
    branch.model_change("M", parent=None)
    branch.thinking("T")
    branch.user("U1", "Add a --verbose flag to cli.py".ljust(200, "."))
    branch.assistant("A1", calls=[("read", {"path": "cli.py"})])
    branch.tool_result("R1", "x" * 8000)
    branch.assistant("A2", "Added the flag".ljust(400, "."))
    branch.user("U2", "Now write pytest tests".ljust(80, "."))
    branch.assistant("A3", calls=[("write", {"path": "tests/test_cli.py", "content": PYTEST_CONTENT})])
    branch.tool_result("R2", "ok", name="write")
    branch.branch_summary(
        "B",
        "The user tried pytest tests.",
        parent="A2",
        details={"readFiles": [], "modifiedFiles": ["tests/test_cli.py"]},
    )
    branch.user("U3", "Use unittest instead".ljust(120, "."))
    branch.assistant("A4", "Here is a unittest version".ljust(1600, "."), total_tokens=5800)


@pytest.fixture
def tree(branch: Branch) -> Branch:
    """The starting tree of spec §11.1, leaf A4."""
    build_starting_tree(branch)
    return branch


def reply(text: str, stop_reason: str = "stop", error: str | None = None) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)] if text else [],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        stop_reason=stop_reason,  # type: ignore[arg-type]
        error_message=error,
    )


@dataclass
class ScriptedModel:
    """A ``CompleteFn`` that records each request and answers from a script (FIFO)."""

    answers: list[AssistantMessage] = field(default_factory=list)
    requests: list[SummaryRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    delay: float = 0.0

    async def __call__(self, request: SummaryRequest, signal: AbortSignal) -> AssistantMessage:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            if not self.answers:
                raise AssertionError(f"unexpected summary request #{len(self.requests)}")
            return self.answers.pop(0)
        finally:
            self.in_flight -= 1

    def say(self, *texts: str) -> ScriptedModel:
        self.answers.extend(reply(text) for text in texts)
        return self

    def fail(self, error: str) -> ScriptedModel:
        self.answers.append(reply("", "error", error))
        return self

    def abort(self) -> ScriptedModel:
        self.answers.append(reply("", "aborted", "Request was aborted"))
        return self

    def prompt_text(self, index: int = 0) -> str:
        block = self.requests[index].messages[0].content[0]
        assert isinstance(block, TextContent)
        return block.text


@pytest.fixture
def scripted() -> ScriptedModel:
    return ScriptedModel()
