"""The ``mcp`` plugin: MCP servers of ``mcp.json`` (and of plugins) as pi tools.

Servers connect in the background when a session starts; their tools are registered as they
arrive (``mcp__<server>__<tool>``). The first prompt waits (up to 10 s) only for servers with
``direct`` tools, which its request must declare. ``deferred`` tools are declared once
``tool_search`` found them; ``hidden`` ones stay unreachable. Heavy imports (the SDK) happen only
when a server is configured.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_core import hookimpl
from pi_mcp.manager import McpManager, connect_wait

if TYPE_CHECKING:
    from pi_mcp.panel import McpPanel

#: The manager of the current session (entry-point plugins are not re-imported on /reload).
_state: dict[str, McpManager] = {}


def _registered(servers: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """``ctx.get_mcp_servers()`` / ``mcp_servers_change`` servers as name → (plugin, entry)."""
    return {server.name: (server.extension_path, dict(server.config)) for server in servers}


@hookimpl
def register_flags(register: Callable[..., None]) -> None:
    register("no-mcp", type="boolean", description="Do not connect MCP servers for this run")


@hookimpl
def register_commands(register: Callable[..., None]) -> None:
    register(
        "mcp",
        _mcp_command,
        description="Manage MCP servers: sign in, reconnect, enable or disable, change exposure",
        get_argument_completions=_mcp_completions,
    )


ACTIONS = ("login", "logout", "reconnect")


def _mcp_completions(prefix: str) -> list[dict[str, str]] | None:
    """``/mcp`` arguments: the sub-commands, then the servers each applies to (OAuth servers for
    login and logout, enabled ones for reconnect), with their state."""
    import re

    action, *rest = re.split(r"\s+", prefix.lstrip())
    if not rest:
        return [{"value": f"{a} ", "label": a} for a in ACTIONS if a.startswith(action)] or None
    manager = _state.get("manager")
    if len(rest) > 1 or action not in ACTIONS or manager is None:
        return None
    from pi_mcp.manage import describe_state

    items = []
    for name, server in manager.servers.items():
        config = manager.configs.get(name, server.config)
        fits = config.enabled if action == "reconnect" else server.oauth_url is not None
        if fits and name.startswith(rest[0]):
            items.append(
                {"value": f"{action} {name}", "label": name, "description": describe_state(server, config)}
            )
    return items or None


@hookimpl
async def session_start(event: Any, ctx: Any) -> None:
    old = _state.pop("manager", None)
    if ctx.get_flag("no-mcp"):
        if old is not None:
            await old.close()
        return
    manager = McpManager(ctx, cwd=Path(ctx.cwd))
    _state["manager"] = manager
    await manager.start(_registered(ctx.get_mcp_servers()), previous=old)


@hookimpl
def mcp_servers_change(event: Any, ctx: Any) -> None:
    manager = _state.get("manager")
    if manager is not None and manager.ctx is not None:  # before session_start: it reads them then
        manager.schedule_sync(_registered(event.servers))


@hookimpl
async def before_agent_start(event: Any, ctx: Any) -> None:
    manager = _state.get("manager")
    if manager is not None:
        await manager.pick_up_sign_ins(connect_wait())
        await manager.wait_direct(connect_wait())


@hookimpl
async def session_shutdown(event: Any, ctx: Any) -> None:
    manager = _state.get("manager")
    if manager is None:
        return
    if event.reason == "quit":
        _state.pop("manager", None)
        await manager.close()
    else:
        manager.detach()  # the next session_start keeps the servers whose entry did not change


async def _mcp_command(args: str, ctx: Any) -> None:
    manager = _state.get("manager")
    if manager is None:
        ctx.ui.notify("MCP is off for this run (--no-mcp)" if ctx.get_flag("no-mcp") else "No MCP servers")
        return
    words = args.split()
    if words and words[0] == "reconnect":
        names = words[1:] or list(manager.servers)
        unknown = [n for n in names if n not in manager.servers]
        if unknown:
            ctx.ui.notify(f"Unknown MCP server: {', '.join(unknown)}", "error")
            return
        manager.ctx = ctx  # acts for this plugin from here on (the servers' tools are re-registered)
        await manager.reconnect(names)
        ctx.ui.notify(manager.status_text())
        return
    if words and words[0] in ("login", "logout"):
        await _sign_in_command(manager, words[0], words[1:], ctx)
        return
    if words:
        ctx.ui.notify(
            f"Unknown /mcp action {words[0]!r}; use /mcp, /mcp reconnect|login|logout [server]", "error"
        )
        return
    if ctx.mode == "tui":
        from pi_mcp.manage import McpDialogue

        await _in_panel(ctx, lambda panel: McpDialogue(manager, panel, ctx).run())
        return
    await manager.wait_all()  # servers still connecting get a moment (bounded) to settle
    ctx.ui.notify(manager.status_text())


async def _in_panel(ctx: Any, work: Callable[[McpPanel], Coroutine[Any, Any, None]]) -> None:
    """Show the ``/mcp`` panel while ``work`` drives it; it closes when ``work`` returns."""
    from pi_mcp.panel import McpPanel

    running: list[asyncio.Task[None]] = []

    def make(tui: Any, theme: Any, keys: Any, done: Callable[..., None]) -> McpPanel:
        panel = McpPanel(tui, theme, keys)

        def finished(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                ctx.ui.notify(f"/mcp: {task.exception()}", "error")
            done(None)

        task = asyncio.get_running_loop().create_task(work(panel))
        task.add_done_callback(finished)
        running.append(task)
        return panel

    try:
        await ctx.ui.custom(make)
    finally:
        for task in running:  # the panel went away first (the session ends)
            task.cancel()


async def _sign_in_command(manager: McpManager, action: str, names: list[str], ctx: Any) -> None:
    """``/mcp login|logout [server]``; without a name, the one OAuth server (one needing a sign-in
    first, for login)."""
    from pi_mcp.oauth import CallbackListener, SignInError

    oauth = [s for s in manager.servers.values() if s.oauth_url is not None and s.config.enabled]
    if names:
        server = manager.servers.get(names[0])
        if server is None:
            known = ", ".join(manager.servers) or "none"
            ctx.ui.notify(f'No MCP server named "{names[0]}" (configured: {known})', "error")
            return
    else:
        waiting = [s for s in oauth if s.state == "needs-auth"]
        pool = waiting if action == "login" and waiting else oauth
        if len(pool) != 1:
            which = ", ".join(s.name for s in pool) or "none of the configured servers uses OAuth"
            ctx.ui.notify(f"Name the server: /mcp {action} <server> ({which})", "error")
            return
        server = pool[0]
    name = server.name
    if action == "login" and not ctx.has_ui:
        # Print and JSON mode: nobody could paste an address or see the page, as pi 1.6.0 says.
        ctx.ui.notify(f'Signing in to MCP server "{name}" requires interactive mode.', "error")
        return
    manager.ctx = ctx  # the server's tools are registered again through this command's context
    if action == "logout":
        try:
            removed = await server.sign_out()
        except (SignInError, OSError) as error:
            ctx.ui.notify(str(error), "error")
            return
        manager.drop_tools(name)
        done = f'Signed out of MCP server "{name}".' if removed else f'"{name}" had no stored credentials.'
        ctx.ui.notify(done)
        return

    def show(url: str) -> None:
        ctx.ui.notify(f'Open this page to sign in to MCP server "{name}":\n{url}')

    async def paste(listener: CallbackListener) -> None:
        # For a browser on another machine: the address it ended up on, typed into a dialog that
        # closes when the browser reaches the listener first. Cancelling it cancels the sign-in.
        from pi_core.ai.abort import AbortController

        closing = AbortController()
        try:
            while True:
                text = await ctx.ui.input(
                    f'Waiting for the browser to sign in to "{name}". If it runs on another machine, '
                    "paste the address it ended up on:",
                    "http://127.0.0.1:…/callback?code=…",
                    signal=closing.signal,
                )
                if not text or not text.strip():
                    listener.cancel()
                    return
                problem = listener.deliver(text)
                if problem is None:
                    return
                ctx.ui.notify(f"{problem}; paste the full address", "error")
        finally:
            closing.abort()

    if ctx.mode == "tui":
        from pi_mcp.manage import McpDialogue

        failure: list[str] = []

        async def sign_in_here(panel: McpPanel) -> None:
            message = await McpDialogue(manager, panel, ctx).sign_in(server)
            if message is not None:
                failure.append(message)

        await _in_panel(ctx, sign_in_here)
        if failure:
            ctx.ui.notify(failure[0], "info" if failure[0] == "Sign-in cancelled." else "error")
            return
        ctx.ui.notify(f'Signed in to MCP server "{name}" ({len(server.tools)} tools).')
        return
    try:
        await server.sign_in(show_url=show, paste=paste if ctx.has_ui else None)
    except (SignInError, OSError) as error:
        ctx.ui.notify(f'Sign-in to MCP server "{name}" failed: {error}', "error")
        return
    ctx.ui.notify(f'Signed in to MCP server "{name}" ({len(server.tools)} tools).')
