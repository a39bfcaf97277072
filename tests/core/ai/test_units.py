from __future__ import annotations

from pi_core.ai.json_parse import parse_streaming_json
from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_core.ai.overflow import is_context_overflow
from pi_core.ai.provider import Model
from pi_core.ai.transform import TOOL_IMAGE_PLACEHOLDER, USER_IMAGE_PLACEHOLDER, transform_messages


def test_parse_streaming_json_partials() -> None:
    assert parse_streaming_json("") == {}
    assert parse_streaming_json('{"path": "src/ma') == {"path": "src/ma"}
    assert parse_streaming_json('{"a": 1, "b": [1, 2') == {"a": 1, "b": [1, 2]}
    assert parse_streaming_json('{"a": 1, "b"') == {"a": 1}
    assert parse_streaming_json('{"a": tr') == {}
    assert parse_streaming_json('{"a": "x\\') == {"a": "x"}
    assert parse_streaming_json('{"a": "line\nbreak"}') == {"a": "line\nbreak"}


def error(text: str) -> AssistantMessage:
    return AssistantMessage(api="a", provider="p", model="m", stop_reason="error", error_message=text)


def test_overflow_patterns() -> None:
    assert is_context_overflow(
        error('400 {"error":{"message":"prompt is too long: 213462 tokens > 200000 maximum"}}')
    )
    assert is_context_overflow(error("413 status code (no body)"))
    assert not is_context_overflow(error("ThrottlingException: Too many tokens, rate limit"))
    assert not is_context_overflow(error("429 Too many requests"))
    silent = AssistantMessage(api="a", provider="p", model="m", usage=Usage(input=900, cache_read=200))
    assert is_context_overflow(silent, 1000) and not is_context_overflow(silent)
    truncated = AssistantMessage(
        api="a", provider="p", model="m", stop_reason="length", usage=Usage(input=995)
    )
    assert is_context_overflow(truncated, 1000)


def test_transform_images_for_text_only_models() -> None:
    model = Model(id="m", api="a", provider="p", input=["text"])
    img = ImageContent(data="x", mime_type="image/png")
    out = transform_messages(
        [
            UserMessage(content=[img, img, TextContent(text="hi")]),
            ToolResultMessage(tool_call_id="t", tool_name="n", content=[img]),
        ],
        model,
    )
    assert [b.text for b in out[0].content] == [USER_IMAGE_PLACEHOLDER, "hi"]  # type: ignore[union-attr]
    assert out[1].content[0].text == TOOL_IMAGE_PLACEHOLDER  # type: ignore[union-attr]


def test_transform_copies_only_what_changes() -> None:
    # A resumed session sends every message on every request: unchanged ones are passed on as they
    # are, changed ones are copies (the session's own objects are never modified).
    model = Model(id="m", api="a", provider="p", input=["text"])
    same = AssistantMessage(
        api="a", provider="p", model="m", content=[TextContent(text="t"), ToolCall(id="c1", name="ls")]
    )
    other = AssistantMessage(
        api="b",
        provider="q",
        model="x",
        content=[TextContent(text="t"), ThinkingContent(thinking="th", thinking_signature="sig")],
    )
    messages = [
        UserMessage(content=[TextContent(text="hi")]),
        same,
        ToolResultMessage(tool_call_id="c1", tool_name="ls", content=[TextContent(text="r")]),
        other,
    ]
    out = transform_messages(messages, model)
    assert [a is b for a, b in zip(out, messages, strict=True)] == [True, True, True, False]
    assert [b.type for b in out[3].content] == ["text", "text"]  # another model's thinking as text
    assert isinstance(other.content[1], ThinkingContent)


def test_usage_one_hour_cache_writes_cost_double_input() -> None:
    """pi 1.6.0 prices one-hour cache writes at twice the input price, the rest at the cache-write
    price; summing usages keeps ``cacheWrite1h`` and ``reasoning`` when any part has them."""
    from pi_core.ai.cost import calculate_cost
    from pi_core.ai.messages import sum_usage
    from pi_core.ai.provider import ModelCost

    model = Model(id="m", api="anthropic-messages", provider="p", cost=ModelCost(input=3, cache_write=3.75))
    usage = Usage(cache_write=1000, cache_write_1h=400)
    calculate_cost(model, usage)
    assert usage.cost.cache_write == (3.75 * 600 + 3 * 2 * 400) / 1_000_000
    assert usage.to_json_dict()["cacheWrite1h"] == 400
    total = sum_usage([usage, Usage(reasoning=7), Usage()])
    assert total is not None
    assert (total.cache_write_1h, total.reasoning, total.cache_write) == (400, 7, 1000)
    assert sum_usage([Usage(), Usage()]).to_json_dict().keys().isdisjoint({"cacheWrite1h", "reasoning"})  # type: ignore[union-attr]


def test_summed_usage_says_whether_its_total_came_from_the_provider() -> None:
    """pi 1.6.0's ``combineUsage`` writes ``cost.totalFromProvider`` on every sum of two: true
    only when both parts' totals came from the provider; a lone usage is kept as it is."""
    from pi_core.ai.messages import Cost, sum_usage

    def usage(from_provider: bool | None) -> Usage:
        return Usage(input=1, cost=Cost(total=0.5, total_from_provider=from_provider))

    def flag(*parts: bool | None) -> object:
        total = sum_usage([usage(part) for part in parts])
        assert total is not None
        return total.to_json_dict()["cost"].get("totalFromProvider")

    assert [flag(False, False), flag(True, True), flag(True, False), flag(None, True)] == [
        False,
        True,
        False,
        False,
    ]
    assert (flag(None), flag(True)) == (None, True)
    lone = usage(False)
    total = sum_usage([lone])
    assert total == lone
    assert total is not lone
