from __future__ import annotations

from pi_core.ai.messages import TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_core.runtime.compaction import format_tool_call, serialize_conversation, truncate_for_summary


def test_tool_call_format_keeps_key_order_and_json_values() -> None:
    call = ToolCall(id="1", name="edit", arguments={"path": "a.py", "n": 2, "flag": True, "o": {"k": None}})
    assert format_tool_call(call) == 'edit(path="a.py", n=2, flag=true, o={"k":null})'


def test_truncation_counts_utf16_units() -> None:
    assert truncate_for_summary("a" * 2000) == "a" * 2000
    assert truncate_for_summary("a" * 2001) == "a" * 2000 + "\n\n[... 1 more characters truncated]"
    assert truncate_for_summary("😀" * 1001) == "😀" * 1000 + "\n\n[... 2 more characters truncated]"


def test_empty_parts_are_omitted() -> None:
    messages = [
        UserMessage(content=""),
        ToolResultMessage(tool_call_id="c", tool_name="read", content=[]),
        UserMessage(content=[TextContent(text="a"), TextContent(text="b")]),
    ]
    assert serialize_conversation(messages) == "[User]: ab"


def test_single_block_shapes() -> None:
    from pi_core.ai.messages import AssistantMessage, ImageContent, ThinkingContent

    def assistant(*blocks: object) -> AssistantMessage:
        return AssistantMessage(content=list(blocks), api="a", provider="p", model="m")  # type: ignore[arg-type]

    messages = [
        assistant(ToolCall(id="1", name="ls", arguments={})),
        assistant(ThinkingContent(thinking="plan")),
        assistant(),
        ToolResultMessage(
            tool_call_id="1", tool_name="ls", content=[ImageContent(data="A", mime_type="image/png")]
        ),
        ToolResultMessage(tool_call_id="2", tool_name="read", content=[TextContent(text="y" * 2003)]),
        UserMessage(content=[ImageContent(data="A", mime_type="image/png")]),
    ]
    assert serialize_conversation(messages) == "\n\n".join(
        [
            "[Assistant tool calls]: ls()",
            "[Assistant thinking]: plan",
            "[Tool result]: " + "y" * 2000 + "\n\n[... 3 more characters truncated]",
        ]
    )
