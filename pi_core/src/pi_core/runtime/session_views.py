"""What an AgentSession shows of itself: the last answer, fork points, the command list, exports.

Plain functions over the session's parts (messages, the session manager, the registered commands
and resources), so they read without the session's run machinery around them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_core.ai.messages import AgentMessage, AssistantMessage, UserMessage, text_of


def user_text(message: UserMessage) -> str:
    return text_of(message.content)


def last_assistant_text(messages: Sequence[AgentMessage]) -> str | None:
    """The text of the last answer, for ``/copy``: a reply that did not end normally (aborted,
    failed, only calling tools) counts only when it has text; one that ended normally counts
    even without text (then ``None``), as pi 1.6.0's."""
    for message in reversed(messages):
        if not isinstance(message, AssistantMessage):
            continue
        said = any(block.type == "text" and block.text.strip() for block in message.content)
        if message.stop_reason != "stop" and not said:
            continue  # an aborted or failed reply, or one that only called tools (pi 1.6.0)
        text = text_of(message.content).strip()
        return text or None
    return None


def export_path(value: str) -> Path:
    """An export's ``outputPath`` as pi 1.6.0 reads it: ``~`` and ``~/…`` in the home folder, a
    ``file://`` URL as its path, anything else as given (relative to the current folder)."""
    if value == "~":
        return Path.home()
    if value.startswith("~/"):
        return Path.home() / value[2:]
    if value.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return Path(unquote(urlparse(value).path))
    return Path(value)


def user_messages_for_forking(entries: Sequence[Any]) -> list[tuple[str, str]]:
    """(entry id, text) of every user message among ``entries`` that has text."""
    found: list[tuple[str, str]] = []
    for entry in entries:
        message = getattr(entry, "message", None) if entry.type == "message" else None
        if isinstance(message, UserMessage):
            text = user_text(message)
            if text:
                found.append((entry.id, text))
    return found


def command_list(
    commands: Sequence[Any], plugin_sources: dict[str, dict[str, str]], resources: Any
) -> list[dict[str, Any]]:
    """Plugin commands, prompt templates and skills, as RPC ``get_commands`` lists them."""
    out: list[dict[str, Any]] = []
    for command in commands:
        item: dict[str, Any] = {"name": command.invocation_name}
        if command.description:
            item["description"] = command.description
        info = plugin_sources.get(command.plugin) or {
            "path": command.plugin, "source": "local", "scope": "temporary", "origin": "top-level",
        }  # fmt: skip
        item.update(source="extension", sourceInfo=info)
        out.append(item)
    for template in resources.prompt_templates:
        out.append(_resource_command(template.name, template, "prompt"))
    for skill in resources.skills:
        out.append(_resource_command(f"skill:{skill.name}", skill, "skill"))
    return out


def _resource_command(name: str, resource: Any, source: str) -> dict[str, Any]:
    item: dict[str, Any] = {"name": name}
    description = getattr(resource, "description", None)
    if description:
        item["description"] = description
    info = getattr(resource, "source_info", None)
    if info is None:
        info = {
            "path": str(getattr(resource, "file_path", "")),
            "source": getattr(resource, "source", "auto"),
        }
    elif hasattr(info, "to_json_dict"):
        info = info.to_json_dict()
    elif not isinstance(info, dict):
        info = dict(vars(info))
    item.update(source=source, sourceInfo=info)
    return item


async def export_html(
    manager: Any,
    system_prompt: str,
    tools: list[dict[str, str]],
    output_path: str | None,
    theme: Any = None,
    setting: tuple[str | None, str] = (None, ""),
) -> Path:
    """The whole session file as one HTML page (``/export``, RPC ``export_html``), in ``theme``'s
    colours, else those of the theme ``setting`` (the ``theme`` setting, the agent folder) names."""
    from pi_core.runtime.export_html import default_export_path, render_session_html
    from pi_core.runtime.themes import setting_theme

    file = manager.get_session_file()
    if file is None:
        raise RuntimeError("Cannot export in-memory session to HTML")
    if not await asyncio.to_thread(Path(file).exists):
        raise RuntimeError("Nothing to export yet - start a conversation first")
    entries = [e.to_json_dict() if hasattr(e, "to_json_dict") else e for e in manager.get_entries()]
    header = manager.get_header()
    header_dict = header.to_json_dict() if hasattr(header, "to_json_dict") else header
    if theme is None:
        theme = await asyncio.to_thread(setting_theme, *setting)
    page = render_session_html(
        header_dict, entries, manager.get_leaf_id(), system_prompt=system_prompt, tools=tools, theme=theme
    )
    target = export_path(output_path) if output_path else default_export_path(file)
    await asyncio.to_thread(target.write_text, page, encoding="utf-8")
    return target


async def export_jsonl(manager: Any, output_path: str | None) -> Path:
    """The current branch as a session file of its own, re-chained into a line (pi's export).

    A new header (this session's id and cwd, the time of the export) and the entries from the root
    to the leaf, each one's ``parentId`` set to the entry before it.
    """
    from pi_core.session.entries import CURRENT_SESSION_VERSION
    from pi_core.session.jsonl import dumps
    from pi_core.session.paths import iso_now

    stamp = iso_now()
    default_name = f"session-{stamp.replace(':', '-').replace('.', '-')}.jsonl"
    header = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": manager.get_session_id(),
        "timestamp": stamp,
        "cwd": manager.get_cwd(),
    }
    lines = [dumps(header)]
    previous: str | None = None
    for entry in manager.get_branch():
        data = entry.to_json_dict() if hasattr(entry, "to_json_dict") else dict(entry)
        data["parentId"] = previous
        lines.append(dumps(data))
        previous = data["id"]

    def write() -> Path:
        target = Path(os.path.abspath(export_path(output_path) if output_path else default_name))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return target

    return await asyncio.to_thread(write)
