"""The fast serializer against a plain transcription of pi's ``serializeConversation``.

``serialize_conversation`` and ``conversation_block`` are written for speed (class lookups instead
of ``role``/``type``, pieces joined once, conversion on the way); these properties pin them to the
straightforward version on arbitrary conversations, including non-ASCII and astral text.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pi_builtin_compaction.prompts import TURN_PREFIX_SUMMARIZATION_PROMPT
from pi_builtin_compaction.summarize import conversation_block, history_request, turn_prefix_request
from pi_core.ai.messages import (
    AgentMessage,
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
    UserMessage,
)
from pi_core.runtime.compaction import js_json, js_len, serialize_conversation, serialize_conversation_into
from pi_core.session.convert import convert_to_llm


def _utf16_cut(text: str, limit: int) -> str:
    return text.encode("utf-16-le", "surrogatepass")[: 2 * limit].decode("utf-16-le", "replace")


def reference(messages: list[Any]) -> str:
    """pi's serializeConversation, transcribed plainly."""
    parts: list[str] = []
    for message in messages:
        if message.role == "user":
            content = message.content
            blocks = [content] if isinstance(content, str) else [b.text for b in content if b.type == "text"]
            text = "".join(blocks)
            if text:
                parts.append(f"[User]: {text}")
        elif message.role == "assistant":
            texts = [b.text for b in message.content if b.type == "text"]
            thinking = [b.thinking for b in message.content if b.type == "thinking"]
            calls = [
                f"{b.name}({', '.join(f'{k}={js_json(v)}' for k, v in b.arguments.items())})"
                for b in message.content
                if b.type == "toolCall"
            ]
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif message.role == "toolResult":
            text = "".join(b.text for b in message.content if b.type == "text")
            if text:
                length = js_len(text)
                if length > 2000:
                    text = f"{_utf16_cut(text, 2000)}\n\n[... {length - 2000} more characters truncated]"
                parts.append(f"[Tool result]: {text}")
    return "\n\n".join(parts)


_short = st.text(alphabet=st.sampled_from(["a", " ", "\n", "é", "中", "😀", "\ud83d"]), max_size=30)
_long = st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "😀", "ab"]), st.integers(1990, 2010))
_text = _short | _long
_text_block = st.builds(lambda t: TextContent(text=t), _text)
_image = st.just(ImageContent(data="AAAA", mime_type="image/png"))
_tool_call = st.builds(
    lambda name, args: ToolCall(id="c", name=name, arguments=args),
    st.sampled_from(["read", "bash", "edit"]),
    st.dictionaries(
        st.sampled_from(["path", "n", "flag", "o"]),
        st.one_of(_text, st.integers(), st.booleans(), st.floats(allow_nan=False), st.just({"k": [1, None]})),
        max_size=3,
    ),
)
_assistant = st.builds(
    lambda blocks: AssistantMessage(content=blocks, api="a", provider="p", model="m"),
    st.lists(_text_block | _tool_call | st.builds(lambda t: ThinkingContent(thinking=t), _text), max_size=3),
)
_user = st.builds(lambda c: UserMessage(content=c), _text | st.lists(_text_block | _image, max_size=3))
_tool_result = st.builds(
    lambda blocks: ToolResultMessage(tool_call_id="c", tool_name="read", content=blocks),
    st.lists(_text_block | _image, max_size=3),
)
_agent_only = st.one_of(
    st.builds(
        lambda c, o, x: BashExecutionMessage(command=c, output=o, exit_code=1, exclude_from_context=x),
        _text,
        _text,
        st.booleans(),
    ),
    st.builds(
        lambda c: CustomMessage(custom_type="t", content=c, display=True),
        _text | st.lists(_text_block | _image, max_size=2),
    ),
    st.builds(lambda s: BranchSummaryMessage(summary=s, from_id="x"), _text),
    st.builds(lambda s: CompactionSummaryMessage(summary=s, tokens_before=5), _text),
)
_llm_messages = st.lists(_user | _assistant | _tool_result, max_size=8)


@settings(max_examples=300, deadline=None)
@given(_llm_messages)
def test_serialize_conversation_matches_the_plain_version(messages: list[Any]) -> None:
    assert serialize_conversation(messages) == reference(messages)


@settings(max_examples=300, deadline=None)
@given(st.lists(_user | _assistant | _tool_result | _agent_only, max_size=8))
def test_conversion_on_the_way_equals_converting_first(messages: list[AgentMessage]) -> None:
    expected = reference(convert_to_llm(messages))
    out = ["head"]
    serialize_conversation_into(out, messages, convert=True)
    assert "".join(out) == "head" + expected
    assert conversation_block(messages) == f"<conversation>\n{expected}\n</conversation>\n\n"
    history = history_request(messages, 1000, "focus", "old summary").messages[0].content[0]
    assert isinstance(history, TextContent)
    previous = "<previous-summary>\nold summary\n</previous-summary>\n\n"
    assert history.text.startswith(f"<conversation>\n{expected}\n</conversation>\n\n{previous}")
    prefix = turn_prefix_request(messages, 1000).messages[0].content[0]
    assert isinstance(prefix, TextContent)
    assert prefix.text == f"# Conversation\n{expected}\n\n# Instructions\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    focused = turn_prefix_request(messages, 1000, "focus").messages[0].content[0]
    assert isinstance(focused, TextContent)
    assert focused.text == prefix.text + "\n\nAdditional focus: focus"


def test_js_len_of_a_lone_surrogate_is_one_unit() -> None:
    # JavaScript writes a cut emoji as "\ud83d"; the session reader keeps it as a lone surrogate.
    assert js_len("ab\ud83d") == 3
    assert js_len("é😀\ud83d") == 4
