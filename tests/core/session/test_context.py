from __future__ import annotations

from typing import Any

from pi_core.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    TextContent,
    UserMessage,
)
from pi_core.session.context import Leaf, ModelRef, build_session_context, iso_to_ms
from pi_core.session.convert import convert_to_llm
from pi_core.session.entries import SessionEntry, parse_entry

TS = "2025-03-14T09:26:53.120Z"


def e(kind: str, id: str, parent: str | None, **fields: Any) -> SessionEntry:
    return parse_entry({"type": kind, "id": id, "parentId": parent, "timestamp": TS, **fields})


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def asst(text: str, model: str = "m1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "openai-completions",
        "provider": "p",
        "model": model,
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "stop",
        "timestamp": 2,
    }


def spec_tree() -> list[SessionEntry]:
    """The example tree of spec/sessions.md §11.4."""
    return [
        e("model_change", "M", None, provider="anthropic", modelId="claude-sonnet-4-5"),
        e("thinking_level_change", "T", "M", thinkingLevel="medium"),
        e("message", "U1", "T", message=user("Add a --verbose flag")),
        e("message", "A2", "U1", message=asst("Added the flag.")),
        e("message", "U2", "A2", message=user("Now write pytest tests")),
        e("message", "A3", "U2", message=asst("tests")),
        e("branch_summary", "B", "A2", fromId="A2", summary="The user explored ..."),
        e("message", "U3", "B", message=user("Use unittest instead")),
        e("message", "A4", "U3", message=asst("Here is a unittest version", model="m2")),
    ]


def roles(ctx_messages: list[Any]) -> list[str]:
    return [m.role for m in ctx_messages]


def test_default_leaf_is_last_entry_and_branch_summary_is_emitted() -> None:
    ctx = build_session_context(spec_tree())
    assert roles(ctx.messages) == ["user", "assistant", "branchSummary", "user", "assistant"]
    assert ctx.thinking_level == "medium"
    assert ctx.model == ModelRef("p", "m2")
    summary = ctx.messages[2]
    assert isinstance(summary, BranchSummaryMessage)
    assert summary.from_id == "A2" and summary.timestamp == iso_to_ms(TS) == 1741944413120
    llm = convert_to_llm(ctx.messages)
    text = llm[2].content[0]
    assert isinstance(text, TextContent)
    assert text.text == (
        "The following is a summary of a branch that this conversation came back from:\n\n"
        "<summary>\nThe user explored ...</summary>"
    )


def test_other_leaf_and_null_leaf_and_unknown_leaf() -> None:
    entries = spec_tree()
    assert roles(build_session_context(entries, "A3").messages) == ["user", "assistant"] * 2
    empty = build_session_context(entries, None)
    assert empty.messages == [] and empty.thinking_level == "off" and empty.model is None
    assert len(build_session_context(entries, "nope").messages) == 5
    assert build_session_context([], Leaf.LAST).messages == []


def test_empty_branch_summary_is_skipped() -> None:
    entries = [
        e("message", "U", None, message=user("hi")),
        e("branch_summary", "B", "U", fromId="U", summary=""),
    ]
    assert roles(build_session_context(entries).messages) == ["user"]


def test_compaction_keeps_from_first_kept_and_only_latest_counts() -> None:
    entries = [
        e("message", "u1", None, message=user("one")),
        e("message", "a1", "u1", message=asst("r1")),
        e("message", "u2", "a1", message=user("two")),
        e("message", "a2", "u2", message=asst("r2")),
        e("compaction", "c1", "a2", summary="S1", firstKeptEntryId="u2", tokensBefore=100),
        e("message", "u3", "c1", message=user("three")),
        e(
            "compaction",
            "c2",
            "u3",
            summary="S2",
            firstKeptEntryId="u3",
            tokensBefore=200,
            details={"readFiles": []},
        ),
        e("message", "u4", "c2", message=user("four")),
    ]
    ctx = build_session_context(entries)
    first = ctx.messages[0]
    assert isinstance(first, CompactionSummaryMessage)
    assert (first.summary, first.tokens_before) == ("S2", 200)
    assert [getattr(m, "content", None)[0].text for m in ctx.messages[1:]] == ["three", "four"]  # type: ignore[index]
    # leaf before the second compaction: first compaction applies, entries from u2 kept
    ctx1 = build_session_context(entries, "u3")
    assert roles(ctx1.messages) == ["compactionSummary", "user", "assistant", "user"]
    text = convert_to_llm(ctx1.messages)[0].content[0]
    assert isinstance(text, TextContent)
    assert text.text == (
        "The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\nS1\n</summary>"
    )


def test_compaction_with_first_kept_not_before_it_emits_nothing_before() -> None:
    entries = [
        e("message", "u1", None, message=user("one")),
        e("compaction", "c1", "u1", summary="S", firstKeptEntryId="zzz", tokensBefore=1),
        e("message", "u2", "c1", message=user("two")),
    ]
    assert roles(build_session_context(entries).messages) == ["compactionSummary", "user"]


def test_custom_message_entry_becomes_custom_then_user() -> None:
    entries = [
        e("custom_message", "c", None, customType="x", content="hello", display=False, details={"k": 1}),
        e("custom", "d", "c", customType="state", data={"a": 1}),
        e("label", "l", "d", targetId="c", label="mark"),
    ]
    ctx = build_session_context(entries)
    assert len(ctx.messages) == 1
    msg = ctx.messages[0]
    assert isinstance(msg, CustomMessage) and msg.details == {"k": 1} and msg.timestamp == iso_to_ms(TS)
    (llm,) = convert_to_llm(ctx.messages)
    assert isinstance(llm, UserMessage) and llm.content == [TextContent(text="hello")]


def test_bash_execution_conversion_texts() -> None:
    ok = BashExecutionMessage(command="echo hi; exit 3", output="hi\n", exit_code=3, timestamp=5)
    (msg,) = convert_to_llm([ok])
    assert isinstance(msg, UserMessage) and msg.timestamp == 5
    assert msg.content[0].text == "Ran `echo hi; exit 3`\n```\nhi\n\n```\n\nCommand exited with code 3"  # type: ignore[union-attr]
    cancelled = BashExecutionMessage(
        command="x", output="", cancelled=True, truncated=True, full_output_path="/t"
    )
    (msg2,) = convert_to_llm([cancelled])
    assert msg2.content[0].text == (  # type: ignore[union-attr]
        "Ran `x`\n(no output)\n\n(command cancelled)\n\n[Output truncated. Full output: /t]"
    )
    excluded = BashExecutionMessage(command="x", output="y", exclude_from_context=True)
    assert convert_to_llm([excluded]) == []


def test_assistant_messages_pass_through_unchanged() -> None:
    a = AssistantMessage.model_validate(asst("hi"))
    assert convert_to_llm([a])[0] is a


def test_latest_compaction_entry() -> None:
    from pi_core.session.context import get_latest_compaction_entry

    entries = [
        e("compaction", "c1", None, summary="a", firstKeptEntryId="x", tokensBefore=1),
        e("compaction", "c2", "c1", summary="b", firstKeptEntryId="x", tokensBefore=2),
        e("message", "u", "c2", message=user("hi")),
    ]
    found = get_latest_compaction_entry(entries)
    assert found is not None and found.id == "c2"
    assert get_latest_compaction_entry(entries[2:]) is None
