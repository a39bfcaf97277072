"""``/mcp`` in the TUI: the list of servers, then what can be done with the chosen one.

The servers come first when they need the user (a sign-in, then failures). Choosing one shows how
it is reached, where it is configured and its state or last error, with the actions that fit its
state: sign in or out, reconnect, its tools, its exposure, enable or disable (saved to the file
that defines it). Menus redraw while servers connect, so a reconnect is watched in place.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from pi_mcp.client import McpServer
from pi_mcp.config import ServerConfig
from pi_mcp.manager import McpManager
from pi_mcp.oauth import CallbackListener, SignInError
from pi_mcp.panel import McpPanel, Menu, MenuItem

#: The exposures the Exposure menu offers, with what each means in this port (which has no
#: codemode tool: ``codemode`` tools are found through ``tool_search`` like ``deferred`` ones).
EXPOSURES = {
    "codemode": "the default; without a codemode tool here, tool_search finds them",
    "deferred": "declared once tool_search found them, then called directly",
    "direct": "declared to the model like built-in tools",
}


def exposure_of(config: ServerConfig) -> str:
    """The exposure as the entry says it (``codemode`` when it says none)."""
    return str(config.raw.get("exposure", "codemode"))


def describe_state(server: McpServer | None, config: ServerConfig, *, with_error: bool = True) -> str:
    """The short state of the lists: ``connected · 3 tools``, ``failed: <first line>``…"""
    if not config.enabled or server is None or server.state == "disabled":
        return "disabled"
    state = server.state
    if state == "needs-auth":
        return "needs sign-in"
    if state == "failed":
        first = (server.last_error or "unknown error").splitlines()[0] if server.last_error else ""
        return f"failed: {first or 'unknown error'}" if with_error else "failed"
    if state == "connected":
        count = len(server.tools)
        text = f"connected · {count} tool{'' if count == 1 else 's'}"
        return text + (" · resources" if server.has_resources else "")
    if state == "connecting":
        return "connecting…"
    return "disconnected"


def _attention(server: McpServer | None, config: ServerConfig) -> int:
    """Servers that need the user come first."""
    if not config.enabled or server is None:
        return 5
    ranks = {"needs-auth": 0, "failed": 1, "disconnected": 2, "closed": 2, "connecting": 3, "connected": 4}
    return ranks.get(server.state, 5)


def _scope(config: ServerConfig) -> str:
    if config.source == "user":
        return "global"
    return "plugin" if config.source.startswith("plugin:") else config.source


def _transport(config: ServerConfig) -> str:
    raw = config.raw
    if config.kind == "http":
        return str(raw.get("url", ""))
    return " ".join([str(raw.get("command", "")), *(str(a) for a in raw.get("args", []))])


class McpDialogue:
    """One ``/mcp`` session in the panel: menus in a loop until the user closes the list."""

    def __init__(self, manager: McpManager, panel: McpPanel, ctx: Any) -> None:
        self.manager = manager
        self.panel = panel
        self.ctx = ctx
        #: The outcome of the last action on a server that did not go well, shown in its menu.
        self.messages: dict[str, str] = {}

    async def run(self) -> None:
        watcher = self.panel.redraw
        self.manager.watchers.add(watcher)
        try:
            while True:
                name = await self.panel.menu(self.servers_menu)
                if name is None:
                    return
                while True:
                    action = await self.panel.menu(functools.partial(self.server_menu, name))
                    if action is None or name not in self.manager.configs:
                        break
                    await self.act(name, action)
        finally:
            self.manager.watchers.discard(watcher)

    # --- menus ----------------------------------------------------------------------------------

    def servers_menu(self) -> Menu:
        manager = self.manager
        configs = sorted(
            manager.configs.values(),
            key=lambda c: (_attention(manager.servers.get(c.name), c), c.name),
        )
        items = []
        for config in configs:
            server = manager.servers.get(config.name)
            where = "global, project override" if config.override else _scope(config)
            description = f"{describe_state(server, config)} · {exposure_of(config)} · {where}"
            items.append(MenuItem(config.name, config.name, description))
        return Menu(
            title="MCP servers",
            items=items,
            error="\n".join(
                [f"config: {line}" for line in manager.errors]
                + [f"overridden: {line}" for line in manager.overridden]
            ),
            empty=f"No MCP servers configured. Add them to {manager.agent_dir / 'mcp.json'} or .pi/mcp.json.",
            confirm="manage",
            cancel="close",
        )

    def server_menu(self, name: str) -> Menu:
        manager = self.manager
        config = manager.configs.get(name)
        if config is None:
            return Menu(title=name, empty="This server is no longer configured.", confirm="", cancel="back")
        server = manager.servers.get(name)
        saved = self._saved_where(config)
        in_project = self._can_override_in_project(config)
        project_saved = "saved to the project mcp.json"
        items: list[MenuItem] = []
        if not config.enabled or server is None:
            items.append(MenuItem("enable", "Enable", saved))
            if in_project:
                items.append(MenuItem("enable-project", "Enable in this project", project_saved))
        else:
            state = server.state
            if state == "needs-auth":
                items.append(MenuItem("signin", "Sign in", "opens the browser"))
            if state == "connected":
                items.append(MenuItem("tools", "Tools", f"{len(server.tools)} offered"))
            if state in ("failed", "disconnected", "closed", "connected", "needs-auth"):
                items.append(MenuItem("reconnect", "Reconnect"))
            if state == "connected" and server.oauth_url is not None:
                items.append(MenuItem("signout", "Sign out", "deletes the stored credentials"))
            items.append(MenuItem("exposure", "Exposure", exposure_of(config)))
            items.append(MenuItem("disable", "Disable", saved))
            if in_project:
                items.append(MenuItem("disable-project", "Disable in this project", project_saved))
        file = manager.config_file(config)
        details = [_transport(config), f"{_scope(config)}: {file or config.source.removeprefix('plugin:')}"]
        if config.override is not None:
            details.append(f"project override: {config.override}")
        details.append(f"State: {describe_state(server, config, with_error=False)}")
        errors = [self.messages.get(name)]
        if server is not None and server.state not in ("connected", "needs-auth"):
            errors.append(server.last_error)  # a needed sign-in is told by the state and the menu
        return Menu(
            title=f"MCP server {name}",
            items=items,
            details="\n".join(details),
            error="\n".join(line for line in errors if line),
            selected=items[0].value if items else None,
            confirm="select",
            cancel="back",
        )

    def _saved_where(self, config: ServerConfig) -> str:
        if config.source.startswith("plugin:"):
            return "for this session"
        if config.override is not None:
            return "saved to the project mcp.json"
        return f"saved to the {_scope(config)} mcp.json"

    def _can_override_in_project(self, config: ServerConfig) -> bool:
        """A user-level server without a project override can be switched for the trusted project."""
        return config.source == "user" and config.override is None and bool(self.ctx.is_project_trusted())

    async def show_tools(self, name: str) -> None:
        config = self.manager.configs[name]
        server = self.manager.servers.get(name)
        exposure = exposure_of(config)
        overridden = "\nSome tools override it with toolExposure." if config.tool_exposure else ""

        def menu() -> Menu:
            items = []
            for tool in server.tools if server is not None else []:
                own = config.exposure_of(tool.name)
                first = ((tool.description or "").strip().splitlines() or [""])[0]
                mark = "" if own == config.exposure else f"[{own}] "
                items.append(MenuItem(tool.name, tool.name, mark + first))
            return Menu(
                title=f"Tools of {name}",
                items=items,
                details=f"Exposure {exposure}: {EXPOSURES.get(exposure, 'unreachable')}{overridden}",
                empty="The server offers no tools.",
                confirm="back",
                cancel="back",
            )

        await self.panel.menu(menu)

    async def choose_exposure(self, name: str) -> str | None:
        config = self.manager.configs[name]
        current = exposure_of(config)
        file = config.override or self.manager.config_file(config)
        plugin = config.source.removeprefix("plugin:")
        where = (
            f"Saved to {file}."
            if file is not None
            else f"Applies to this session; the server is registered by {plugin}."
        )
        items = [
            MenuItem(value, f"{'✓ ' if value == current else '  '}{value}", meaning)
            for value, meaning in EXPOSURES.items()
        ]
        choice = await self.panel.menu(
            lambda: Menu(
                title=f"Exposure of {name}",
                items=items,
                details=where,
                selected=current,
                confirm="save",
                cancel="back",
            )
        )
        if choice is None or choice == current:
            return None
        return await self.manager.change_entry(name, {"exposure": choice})

    # --- actions --------------------------------------------------------------------------------

    async def act(self, name: str, action: str) -> None:
        manager = self.manager
        manager.ctx = self.ctx  # the server's tools are registered through this command's context
        server = manager.servers.get(name)
        message: str | None = None
        if action == "signin" and server is not None:
            message = await self.sign_in(server)
        elif action == "reconnect":
            # The state and error in the menu tell how it went, a needed sign-in included.
            manager.in_background(manager.reconnect([name]))
        elif action == "signout" and server is not None:
            try:
                await server.sign_out()
            except (SignInError, OSError) as error:
                message = str(error)
            manager.drop_tools(name)
        elif action == "tools":
            await self.show_tools(name)
        elif action == "exposure":
            message = await self.choose_exposure(name)
        elif action in ("enable", "disable", "enable-project", "disable-project"):
            enabled = action.startswith("enable")
            change = {"enabled": None if enabled else False}
            self.messages.pop(name, None)
            manager.in_background(self._change(name, change, action.endswith("-project")))
            return
        if message is None:
            self.messages.pop(name, None)
        else:
            self.messages[name] = message
        self.panel.redraw()

    async def _change(self, name: str, change: dict[str, Any], in_project: bool) -> None:
        failed = await self.manager.change_entry(name, change, in_project=in_project)
        if failed is not None:
            self.messages[name] = failed
            self.panel.redraw()

    async def sign_in(self, server: McpServer) -> str | None:
        """The browser sign-in in the panel; Esc cancels it. The reason when it did not work."""
        panel = self.panel
        title = f"Sign in to {server.name}"
        page = ""
        work: asyncio.Task[None] | None = None

        def cancel() -> None:
            if work is not None:
                work.cancel()

        def show(url: str) -> None:
            nonlocal page
            page = url

        async def paste(listener: CallbackListener) -> None:
            # For a browser on another machine: the address it ended up on. This screen goes
            # away (the task is cancelled) as soon as the browser reaches pi's listener itself.
            problem = ""
            try:
                while True:
                    text = await panel.redirect_url(title, page, problem)
                    if text is None:
                        cancel()
                        return
                    problem = listener.deliver(text) or ""
                    if not problem:
                        break
            finally:
                panel.status(title, "Connecting…", cancel)

        panel.status(title, "Contacting the authorization server…", cancel)
        work = asyncio.get_running_loop().create_task(server.sign_in(show_url=show, paste=paste))
        try:
            await work
        except asyncio.CancelledError:
            this = asyncio.current_task()
            if this is not None and this.cancelling():
                raise  # the command itself is cancelled (the session ends), not just the sign-in
            return "Sign-in cancelled."
        except (SignInError, OSError) as error:
            return f"Sign-in failed: {error}"
        return None
