"""The summary requests byte for byte, incremental updates, file tracking, and failing calls."""

from __future__ import annotations

from typing import Any

import pytest
from pi_builtin_compaction.prepare import prepare_compaction
from pi_builtin_compaction.prompts import SUMMARIZATION_PROMPT, SUMMARIZATION_SYSTEM_PROMPT
from pi_builtin_compaction.summarize import compact
from pi_core.ai.abort import AbortController
from pi_core.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)
from pi_core.runtime.compaction import CompactionError, CompactionSettings
from pi_core.session.entries import MessageEntry


async def test_request_holds_the_serialized_conversation_and_the_prompt(branch: Any, scripted: Any) -> None:
    branch.user("U1", "", parent=None)
    branch.entries["U1"].message = UserMessage(
        content=[
            TextContent(text="Look at "),
            ImageContent(data="AAAA", mime_type="image/png"),
            TextContent(text="this"),
        ]
    )
    thinking_call = AssistantMessage(
        content=[
            TextContent(text="First."),
            ThinkingContent(thinking="hmm"),
            ToolCall(id="c1", name="read", arguments={"path": "src/a.ts", "offset": 3}),
            TextContent(text="Second."),
            ToolCall(id="c2", name="bash", arguments={"command": 'echo "hi"\n', "timeout": 1.0}),
        ],
        api="anthropic-messages",
        provider="anthropic",
        model="m",
    )
    branch._add(MessageEntry, "A1", True, message=thinking_call)
    branch.tool_result("R1", "é" * 2500)
    branch.custom_message("N", "plugin note")
    branch._add(
        MessageEntry, "X", True, message=BashExecutionMessage(command="ls", output="a\nb", exit_code=1)
    )
    branch.user("U2", "u" * 400000)  # keeps everything above out of the kept part

    preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=1000))
    assert preparation is not None and preparation.first_kept_entry_id == "U2"
    scripted.say("S")
    await compact(preparation, scripted, AbortController().signal, "focus on tests")

    request = scripted.requests[0]
    assert request.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    assert request.max_tokens == 13107
    assert len(request.messages) == 1 and request.messages[0].role == "user"
    expected_conversation = "\n\n".join(
        [
            "[User]: Look at this",
            "[Assistant thinking]: hmm",
            "[Assistant]: First.\nSecond.",
            '[Assistant tool calls]: read(path="src/a.ts", offset=3); '
            'bash(command="echo \\"hi\\"\\n", timeout=1)',
            "[Tool result]: " + "é" * 2000 + "\n\n[... 500 more characters truncated]",
            "[User]: plugin note",
            "[User]: Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 1",
        ]
    )
    assert scripted.prompt_text() == (
        f"<conversation>\n{expected_conversation}\n</conversation>\n\n"
        f"{SUMMARIZATION_PROMPT}\n\nAdditional focus: focus on tests"
    )


async def test_file_tracking_accumulates_across_two_compactions(branch: Any, scripted: Any) -> None:
    settings = CompactionSettings(keep_recent_tokens=100)
    branch.user("U1", "u" * 40, parent=None)
    branch.assistant("A1", calls=[("read", {"path": "docs/intro.md"}), ("edit", {"path": "src/app.py"})])
    branch.tool_result("R1", "ok")
    branch.user("U2", "v" * 800)
    first = prepare_compaction(branch.path(), settings)
    assert first is not None and first.first_kept_entry_id == "U2"
    result = await compact(first, scripted.say("ONE"), AbortController().signal)
    assert result.details == {"readFiles": ["docs/intro.md"], "modifiedFiles": ["src/app.py"]}
    assert result.summary == (
        "ONE\n\n<read-files>\ndocs/intro.md\n</read-files>\n\n<modified-files>\nsrc/app.py\n</modified-files>"
    )
    branch.compaction("C1", result.summary, "U2", details=result.details)

    branch.assistant("A2", calls=[("write", {"path": "docs/intro.md"}), ("read", {"path": "README.md"})])
    branch.tool_result("R2", "ok")
    branch.user("U3", "w" * 800)
    second = prepare_compaction(branch.path(), settings)
    assert second is not None and second.first_kept_entry_id == "U3"
    assert second.previous_summary == result.summary
    again = await compact(second, scripted.say("TWO"), AbortController().signal)
    # intro.md was read first, then written: it moves to modified; app.py stays from C1's details.
    assert again.details == {"readFiles": ["README.md"], "modifiedFiles": ["docs/intro.md", "src/app.py"]}
    assert f"<previous-summary>\n{result.summary}\n</previous-summary>" in scripted.prompt_text(1)


async def test_file_tracking_counts_the_calls_a_tool_made_itself(branch: Any, scripted: Any) -> None:
    # pi 1.6.0 reads the nestedCalls record of a tool result (calls made through ctx.execute_tool)
    # as if the model had made them; a call whose arguments were too large to keep has no path.
    # Branch summaries skip tool results, but (unlike pi) still count their nested calls.
    from pi_builtin_compaction.branch import prepare_branch_entries
    from pi_core.ai.messages import NestedCall, NestedCalls, ToolResultMessage

    nested = NestedCalls(
        calls=[
            NestedCall(id="n1", name="read", status="ok", arguments={"path": "lib/util.py"}),
            NestedCall(id="n2", name="edit", status="ok", arguments={"path": "lib/core.py", "edits": []}),
            NestedCall(id="n3", name="write", status="error", arguments={"path": "out.txt"}),
            NestedCall(id="n4", name="write", arguments_bytes=90000),
            NestedCall(id="n5", name="bash", status="ok", arguments={"command": "ls", "path": "x"}),
        ],
        complete=False,
    )
    branch.user("U1", "u" * 40, parent=None)
    branch.assistant("A1", calls=[("script", {"code": "..."})])
    result = ToolResultMessage(
        tool_call_id="A1-call", tool_name="script", content=[TextContent(text="done")], nested_calls=nested
    )
    branch._add(MessageEntry, "R1", True, message=result)
    branch.user("U2", "v" * 800)
    preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=100))
    assert preparation is not None and preparation.first_kept_entry_id == "U2"
    summary = await compact(preparation, scripted.say("ONE"), AbortController().signal)
    assert summary.details == {"readFiles": ["lib/util.py"], "modifiedFiles": ["lib/core.py", "out.txt"]}
    assert prepare_branch_entries(branch.path()).file_ops.file_lists() == (
        ["lib/util.py"],
        ["lib/core.py", "out.txt"],
    )


async def test_hook_made_compaction_is_not_a_file_tracking_seed(branch: Any) -> None:
    branch.user("U1", "u" * 400, parent=None)
    branch.compaction("C1", "by a plugin", "U1", details={"readFiles": ["secret.txt"]}, from_hook=True)
    branch.user("U2", "v" * 400)
    preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=50))
    assert preparation is not None
    assert preparation.file_ops.read == set()


def test_nothing_to_prepare_right_after_a_compaction_or_for_an_empty_branch(branch: Any) -> None:
    assert prepare_compaction([], CompactionSettings()) is None
    branch.user("U1", "hello", parent=None)
    branch.compaction("C1", "s", "U1")
    assert prepare_compaction(branch.path(), CompactionSettings()) is None


@pytest.mark.parametrize(
    ("split", "failure"),
    [(False, "Summarization failed: overloaded"), (True, "Turn prefix summarization failed: overloaded")],
)
async def test_a_failing_summary_call_raises(branch: Any, scripted: Any, split: bool, failure: str) -> None:
    branch.user("U1", "u" * 40, parent=None)
    branch.assistant("A1", calls=[("read", {"path": "a"})])
    branch.tool_result("R1", "r" * 4000)
    branch.assistant("A2", "done")
    keep = 500 if split else 100000
    preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=keep))
    assert preparation is not None and preparation.is_split_turn is split
    # Split: nothing precedes the turn, so only the turn-prefix request runs, and it fails.
    scripted.fail("overloaded")
    with pytest.raises(CompactionError, match=failure):
        await compact(preparation, scripted, AbortController().signal)


async def test_split_turn_failure_of_one_request_cancels_the_other(branch: Any, scripted: Any) -> None:
    branch.user("U0", "u" * 400, parent=None)
    branch.assistant("A0", "a" * 400)
    branch.user("U1", "u" * 40)
    branch.assistant("A1", calls=[("read", {"path": "a"})])
    branch.tool_result("R1", "r" * 4000)
    branch.assistant("A2", "done")
    preparation = prepare_compaction(branch.path(), CompactionSettings(keep_recent_tokens=500))
    assert preparation is not None and preparation.is_split_turn and preparation.messages_to_summarize
    scripted.fail("history broke")
    scripted.say("prefix ok")
    with pytest.raises(CompactionError, match="Summarization failed: history broke"):
        await compact(preparation, scripted, AbortController().signal)
