"""Plan mode: explore read-only, write a numbered plan, then execute it.

``/plan`` (or ``--plan``) switches it on: only read-only tools stay active, ``bash`` may run only
commands that change nothing, and the model is asked for a numbered plan. When the run ends, pi asks
whether to execute the plan; yes restores the tools and starts the run that executes it. The mode is
kept in the session (a ``plan-mode`` entry), so it survives ``/reload`` and resuming.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pi_core.plugins import events as ev
from pi_core.plugins.context import CommandContext, ExtensionContext

from pi_core import hookimpl

ENTRY = "plan-mode"
READ_ONLY_TOOLS = ["read", "bash", "grep", "find", "ls"]
SAFE_COMMANDS = {
    *("cat", "head", "tail", "less", "ls", "pwd", "wc", "grep", "rg", "find", "fd", "tree"),
    *("file", "stat", "du", "df", "echo", "which", "sort", "uniq", "diff", "git"),
}
SAFE_GIT = {"status", "log", "diff", "show", "branch", "blame", "ls-files", "rev-parse"}
INSTRUCTIONS = (
    "\n\nPlan mode is on: explore with read-only tools and do not change any file. "
    "Finish with a numbered plan under a 'Plan:' heading."
)


def state(ctx: ExtensionContext) -> dict[str, Any]:
    """The last ``plan-mode`` entry on this branch: ``{enabled, tools}``."""
    for entry in reversed(ctx.session_manager.get_branch(types=("custom",))):
        if entry.type == "custom" and entry.custom_type == ENTRY and isinstance(entry.data, dict):
            return dict(entry.data)
    return {"enabled": False, "tools": None}


def switch(ctx: ExtensionContext, enabled: bool) -> None:
    previous = state(ctx)
    if enabled:
        tools = previous.get("tools") if previous["enabled"] else ctx.get_active_tools()
        ctx.set_active_tools([t for t in READ_ONLY_TOOLS if t in ctx.get_all_tools()])
    else:
        tools = None
        ctx.set_active_tools(previous.get("tools") or ctx.get_all_tools())
    ctx.append_entry(ENTRY, {"enabled": enabled, "tools": tools})
    ctx.ui.set_status("plan", "plan mode" if enabled else None)


def is_safe(command: str) -> bool:
    """Every part of a pipeline/sequence is a read-only command (no redirection into files)."""
    import shlex  # only when a command is checked: keeps the entry module cheap to import

    if re.search(r"(^|[^2&])>|\btee\b|`|\$\(", command):
        return False
    for part in re.split(r"&&|\|\||[|;]", command):
        try:
            words = shlex.split(part)
        except ValueError:
            return False
        if not words:
            continue
        if words[0] not in SAFE_COMMANDS or (
            words[0] == "git" and (len(words) < 2 or words[1] not in SAFE_GIT)
        ):
            return False
    return True


@hookimpl
def register_flags(register: Callable[..., None]) -> None:
    register("plan", type="boolean", description="Start in plan mode (read-only exploration)")


@hookimpl
def register_commands(register: Callable[..., None]) -> None:
    async def toggle(args: str, ctx: CommandContext) -> None:
        switch(ctx, not state(ctx)["enabled"])
        ctx.ui.notify("Plan mode on: read-only tools" if state(ctx)["enabled"] else "Plan mode off", "info")

    register("plan", toggle, description="Toggle plan mode (read-only exploration, then a plan)")


@hookimpl
def session_start(event: ev.SessionStartEvent, ctx: ExtensionContext) -> None:
    current = state(ctx)
    if current["enabled"] or (event.reason == "startup" and ctx.get_flag("plan")):
        switch(ctx, True)


@hookimpl
def before_agent_start(
    event: ev.BeforeAgentStartEvent, ctx: ExtensionContext
) -> ev.BeforeAgentStartResult | None:
    if not state(ctx)["enabled"]:
        return None
    return ev.BeforeAgentStartResult(system_prompt=event.system_prompt + INSTRUCTIONS)


@hookimpl
def tool_call(event: ev.ToolCallEvent, ctx: ExtensionContext) -> ev.ToolCallResult | None:
    if not state(ctx)["enabled"]:
        return None
    if event.tool_name in ("write", "edit"):
        return ev.ToolCallResult(
            block=True, reason="Plan mode: files stay unchanged until the plan is executed"
        )
    if event.tool_name == "bash" and not is_safe(str(event.input.get("command", ""))):
        return ev.ToolCallResult(block=True, reason="Plan mode: only read-only commands may run")
    return None


@hookimpl
async def agent_end(event: ev.AgentEndEvent, ctx: ExtensionContext) -> None:
    if not state(ctx)["enabled"] or not ctx.has_ui:
        return
    choice = await ctx.ui.select("Execute the plan?", ["Execute the plan", "Keep planning"])
    if choice == "Execute the plan":
        switch(ctx, False)
        await ctx.send_message(
            "plan-execute", "Execute the plan you just made, step by step.", trigger_turn=True
        )
