from __future__ import annotations

from pi_core.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def assistant(text: str, *, tool: bool = False) -> AssistantMessage:
    content: list[TextContent | ToolCall] = [TextContent(text=text)]
    if tool:
        content.append(ToolCall(id="call_1", name="read", arguments={"path": "a.py"}))
    return AssistantMessage(
        content=content,  # type: ignore[arg-type]
        api="openai-completions",
        provider="loop",
        model="m",
        stop_reason="toolUse" if tool else "stop",
    )


def tool_result(text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="call_1", tool_name="read", content=[TextContent(text=text)])
