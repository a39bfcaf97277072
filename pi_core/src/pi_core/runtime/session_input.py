"""What becomes of a session's typed input before it reaches the model (spec agent-loop §4,
steps 1-3): a plugin's ``/command`` runs instead of a prompt, ``input`` handlers may take or
transform the text, and ``/skill:NAME`` and prompt templates expand.

Functions over the session: its registered commands, resources and hooks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal

from pi_core.ai.messages import ImageContent
from pi_core.plugins import events as hook_events
from pi_core.plugins.registry import CommandSpec
from pi_core.runtime.events import error_text
from pi_core.runtime.resources import SkillExpansionError, expand_prompt_template, expand_skill_command

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession

logger = logging.getLogger("pi.runtime")

InputSource = Literal["interactive", "rpc", "extension"]


def find_command(session: AgentSession, name: str) -> CommandSpec | None:
    return next((c for c in session.services.commands if c.invocation_name == name), None)


async def run_extension_command(session: AgentSession, text: str) -> bool:
    """Run the plugin command ``text`` names (``/name args``); False when no plugin registered it.

    A command that raises is reported as its plugin's error; the session stays intact.
    """
    name, _, args = text[1:].partition(" ")
    command = find_command(session, name)
    if command is None:
        return False
    from pi_core.plugins.dispatch import CURRENT_HANDLER
    from pi_core.runtime.extension_context import RuntimeCommandContext

    acting = (command.plugin, f"command /{name}")
    token = CURRENT_HANDLER.set(acting)  # what the command does (ctx.ui.custom) is its plugin's
    try:
        ctx = RuntimeCommandContext(session, acting=acting)
        outcome = command.handler(args, ctx)
        if asyncio.iscoroutine(outcome) or isinstance(outcome, Awaitable):
            await outcome
    except Exception as error:  # a broken command is reported, the session stays intact
        logger.debug("command /%s failed", name, exc_info=True)
        session._emit_error(command.plugin, f"command /{name}", error_text(error))
    finally:
        CURRENT_HANDLER.reset(token)
    return True


def reject_queued_command(session: AgentSession, text: str) -> None:
    """A plugin command cannot wait in a queue: ``RuntimeError`` with pi's message."""
    if not text.startswith("/"):
        return
    name = text[1:].split(" ", 1)[0]
    if find_command(session, name) is not None:
        raise RuntimeError(
            f'Extension command "/{name}" cannot be queued. '
            "Use prompt() or execute the command when not streaming."
        )


async def run_input_handlers(
    session: AgentSession,
    text: str,
    images: list[ImageContent],
    source: InputSource,
    streaming_behavior: Literal["steer", "followUp"] | None = None,
) -> tuple[str, list[ImageContent]] | None:
    """The ``input`` hook: ``None`` when a handler took the input, else the (new) text and images."""
    hooks = session.hooks
    if hooks is None or not hooks.has("input"):
        return text, images
    outcome = await hooks.input(
        hook_events.InputEvent(
            text=text, images=images or None, source=source, streaming_behavior=streaming_behavior
        ),
        session.extension_context(),
    )
    if outcome.action == "handled":
        return None
    if outcome.action == "transform":
        text = outcome.text if outcome.text is not None else text
        images = list(outcome.images) if outcome.images is not None else images
    return text, images


def expand(session: AgentSession, text: str) -> str:
    """``/skill:NAME`` and prompt-template expansion (a skill that cannot expand is reported)."""
    resources = session.resources
    try:
        text = expand_skill_command(text, resources.skills)
    except SkillExpansionError as error:  # reported as pi does: the skill's file, the reason
        session._emit_error(error.skill.file_path, "skill_expansion", error.reason)
    return expand_prompt_template(text, resources.prompt_templates)
