"""A git checkpoint per turn, offered back on ``/fork`` and ``/tree``.

When the model's reply asks for tools — before any of them runs — ``git stash create`` records the
working tree as a commit without touching it, and a ``git-checkpoint`` entry keeps ``{entryId, ref}``
in the session (the entry the turn builds on: the prompt or the last tool result). Forking from that
entry or navigating back to it offers to restore the tracked files as they were (``git checkout REF
-- .``); in print/JSON mode nothing is restored. Files the model created stay.
"""

from __future__ import annotations

from typing import Any

from pi_core.ai.messages import AssistantMessage, ToolCall
from pi_core.plugins.context import ExtensionContext
from pi_core.plugins.events import MessageEndEvent, SessionBeforeForkEvent, SessionBeforeTreeEvent

from pi_core import hookimpl

ENTRY = "git-checkpoint"
RESTORE, KEEP = "Yes, restore the code to that point", "No, keep the current code"


def checkpoints(ctx: ExtensionContext) -> dict[str, str]:
    """Entry id → stash ref, from the session's ``git-checkpoint`` entries (all branches)."""
    found: dict[str, str] = {}
    for entry in ctx.session_manager.get_entries():
        if entry.type == "custom" and entry.custom_type == ENTRY and isinstance(entry.data, dict):
            found[str(entry.data.get("entryId"))] = str(entry.data.get("ref"))
    return found


@hookimpl
async def message_end(event: MessageEndEvent, ctx: ExtensionContext) -> None:
    message = event.message
    if not isinstance(message, AssistantMessage) or not any(isinstance(b, ToolCall) for b in message.content):
        return
    leaf = ctx.session_manager.get_leaf_id()
    if leaf is None or leaf in checkpoints(ctx):
        return
    done = await ctx.exec("git", ["stash", "create"], timeout=30)
    if done.code != 0:
        return  # not a git repository
    ref = done.stdout.strip()
    if not ref:  # nothing changed since HEAD: then HEAD is the checkpoint
        head = await ctx.exec("git", ["rev-parse", "HEAD"], timeout=30)
        ref = head.stdout.strip() if head.code == 0 else ""
    if ref:
        ctx.append_entry(ENTRY, {"entryId": leaf, "ref": ref})


async def offer(entry_id: str, ctx: ExtensionContext) -> None:
    ref = checkpoints(ctx).get(entry_id)
    if ref is None or not ctx.has_ui:
        return
    if await ctx.ui.select("Restore the code as it was then?", [RESTORE, KEEP]) != RESTORE:
        return
    done = await ctx.exec("git", ["checkout", ref, "--", "."], timeout=60)
    if done.code == 0:
        ctx.ui.notify("Code restored to the checkpoint", "info")
    else:
        ctx.ui.notify(f"git checkout of the checkpoint failed: {done.stderr.strip()}", "error")


@hookimpl
async def session_before_fork(event: SessionBeforeForkEvent, ctx: ExtensionContext) -> None:
    await offer(event.entry_id, ctx)


@hookimpl
async def session_before_tree(event: SessionBeforeTreeEvent, ctx: ExtensionContext) -> Any:
    await offer(event.preparation.target_id, ctx)
    return None
