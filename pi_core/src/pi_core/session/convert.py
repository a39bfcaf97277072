"""pi's ``convertToLlm``: the coding agent's own message roles turned into provider messages.

Runs before every model call. ``user``/``assistant``/``toolResult`` pass through; a
``bashExecution`` (the user's ``!cmd``) becomes a user text unless excluded; plugin
(``custom``) messages and branch/compaction summaries become user messages with pi's exact
wrapper texts (spec/agent-loop.md §2.3, spec/sessions.md §11.2).
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    LlmMessage,
    TextContent,
    ToolResultMessage,
    UserContentBlock,
    UserMessage,
)

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"


def bash_execution_to_text(message: BashExecutionMessage) -> str:
    """The user text a ``!cmd`` execution is sent as."""
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code is not None and message.exit_code != 0:
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def _user_text(text: str, timestamp: int) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def convert_to_llm(messages: Iterable[AgentMessage]) -> list[LlmMessage]:
    """Map agent messages to the three provider roles, dropping what the model must not see."""
    out: list[LlmMessage] = []
    for message in messages:
        if isinstance(message, (UserMessage, AssistantMessage, ToolResultMessage)):
            out.append(message)
        elif isinstance(message, BashExecutionMessage):
            if not message.exclude_from_context:
                out.append(_user_text(bash_execution_to_text(message), message.timestamp))
        elif isinstance(message, CustomMessage):
            content: list[UserContentBlock] = (
                [TextContent(text=message.content)] if isinstance(message.content, str) else message.content
            )
            out.append(UserMessage(content=content, timestamp=message.timestamp))
        elif isinstance(message, BranchSummaryMessage):
            text = BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX
            out.append(_user_text(text, message.timestamp))
        elif isinstance(message, CompactionSummaryMessage):
            text = COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX
            out.append(_user_text(text, message.timestamp))
        # Any other role is not for the model; pi drops it the same way. System messages (pi
        # 1.6.0) are prompt state: the request carries the current prompt and tools itself.
    return out


IMAGES_BLOCKED = "Image reading is disabled."


def block_images(messages: list[LlmMessage]) -> list[LlmMessage]:
    """Setting ``images.blockImages``: every image of a user or tool result becomes pi's notice.

    Runs of notices collapse into one, so ten screenshots cost the model one line.
    """
    out: list[LlmMessage] = []
    for message in messages:
        content = message.content if isinstance(message, (UserMessage, ToolResultMessage)) else None
        if not isinstance(content, list) or not any(block.type == "image" for block in content):
            out.append(message)
            continue
        blocks: list[UserContentBlock] = []
        for block in content:
            replaced = TextContent(text=IMAGES_BLOCKED) if block.type == "image" else block
            previous = blocks[-1] if blocks else None
            if _is_notice(replaced) and previous is not None and _is_notice(previous):
                continue
            blocks.append(replaced)
        out.append(message.model_copy(update={"content": blocks}))
    return out


def _is_notice(block: UserContentBlock) -> bool:
    return isinstance(block, TextContent) and block.text == IMAGES_BLOCKED
