from __future__ import annotations

from pi_core.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_core.runtime.compaction import (
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    js_json,
    js_len,
    should_compact,
)

IMAGE = ImageContent(data="AAAA", mime_type="image/png")


def assistant(*blocks: object, stop: str = "stop", total: int = 0) -> AssistantMessage:
    return AssistantMessage(
        content=list(blocks),  # type: ignore[arg-type]
        api="a",
        provider="p",
        model="m",
        stop_reason=stop,  # type: ignore[arg-type]
        usage=Usage(total_tokens=total),
    )


def test_js_len_counts_utf16_units() -> None:
    assert js_len("abc") == 3
    assert js_len("é") == 1
    assert js_len("😀") == 2


def test_js_json_matches_json_stringify() -> None:
    assert js_json({"path": "a.py", "n": 1.0, "x": [1.5, "ü"]}) == '{"path":"a.py","n":1,"x":[1.5,"ü"]}'


def test_user_images_count_nothing_but_tool_result_images_count_1200_tokens() -> None:
    assert estimate_tokens(UserMessage(content=[TextContent(text="abcde"), IMAGE])) == 2
    result = ToolResultMessage(tool_call_id="c", tool_name="read", content=[IMAGE, TextContent(text="ab")])
    assert estimate_tokens(result) == 1201
    custom = CustomMessage(custom_type="t", content=[IMAGE])
    assert estimate_tokens(custom) == 1200


def test_assistant_counts_text_thinking_and_tool_call_json() -> None:
    message = assistant(
        TextContent(text="abcd"),
        ThinkingContent(thinking="efgh"),
        ToolCall(id="1", name="read", arguments={"path": "cli.py"}),
    )
    # 4 + 4 + len("read") + len('{"path":"cli.py"}') = 8 + 4 + 17 = 29 -> 8
    assert estimate_tokens(message) == 8


def test_other_roles() -> None:
    assert estimate_tokens(BashExecutionMessage(command="ls", output="abcdef")) == 2
    assert estimate_tokens(BranchSummaryMessage(summary="x" * 9, from_id="a")) == 3
    assert estimate_tokens(CompactionSummaryMessage(summary="x" * 8, tokens_before=1)) == 2
    assert estimate_tokens(UserMessage(content="😀😀")) == 1  # 4 UTF-16 units


def test_context_tokens_prefer_total_tokens() -> None:
    assert calculate_context_tokens(Usage(total_tokens=10, input=1)) == 10
    assert calculate_context_tokens(Usage(input=1, output=2, cache_read=3, cache_write=4)) == 10


def test_estimate_uses_last_valid_usage_plus_trailing_estimates() -> None:
    messages = [
        UserMessage(content="x" * 400),
        assistant(TextContent(text="a"), total=1000),
        UserMessage(content="y" * 40),
        assistant(TextContent(text="b" * 400), stop="error", total=99999),
    ]
    estimate = estimate_context_tokens(messages)
    assert (estimate.tokens, estimate.usage_tokens, estimate.trailing_tokens) == (1110, 1000, 110)
    assert estimate.last_usage_index == 1


def test_estimate_without_usage_sums_everything() -> None:
    messages = [UserMessage(content="x" * 400), assistant(TextContent(text="y"), stop="aborted", total=5)]
    estimate = estimate_context_tokens(messages)
    assert (estimate.tokens, estimate.last_usage_index) == (101, None)


def test_should_compact_threshold() -> None:
    settings = CompactionSettings()
    assert should_compact(200000 - 16384 + 1, 200000, settings)
    assert not should_compact(200000 - 16384, 200000, settings)
    assert should_compact(1, 0, settings)  # unknown window
    assert not should_compact(10**9, 1000, CompactionSettings(enabled=False))
