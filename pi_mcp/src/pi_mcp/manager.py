"""The servers of one session and the pi tools made from theirs."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import IO, Any

from pi_core._paths import agent_dir
from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.messages import ImageContent, TextContent

from pi_mcp.client import McpCallError, McpServer, open_log
from pi_mcp.config import (
    LoadedConfig,
    McpConfigError,
    ServerConfig,
    load_config,
    project_mcp_file,
    update_entry,
    validate,
)
from pi_mcp.oauth import credential_store
from pi_mcp.output import limit_content

logger = logging.getLogger(__name__)

MAX_TOOL_NAME = 64
RESOURCE_TOOLS = ("list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource")
SEARCH_TOOL = "tool_search"


def tool_name(server: str, tool: str, taken: Callable[[str], bool] | None = None) -> str:
    """``mcp__<server>__<tool>`` with everything but ``[A-Za-z0-9_]`` as ``_``; a hash suffix when
    longer than 64 characters or when another tool of the server already has the name."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME and not (taken and taken(name)):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - len(digest) - 1]}_{digest}"


def project_allowed(cwd: Path, agent: Path) -> bool:
    """A project's ``.pi/mcp.json`` counts only once the project is trusted (its fingerprint covers it);
    for ``pi mcp``, which loads no plugins (sessions take core's decision, ``ctx.is_project_trusted``)."""
    if not project_mcp_file(cwd).exists():
        return False
    from pi_core.plugins.trust import check_project_trust

    try:
        return check_project_trust(cwd, agent).status == "trusted"
    except Exception:
        return False


DIRECT_WAIT = 10.0


def connect_wait() -> float:
    """How long a prompt (for ``direct`` tools), ``/mcp`` and the search and resource tools wait for
    servers still connecting: pi's 10 s, or ``PI_MCP_DIRECT_WAIT`` seconds on slow machines."""
    import os

    try:
        value = float(os.environ.get("PI_MCP_DIRECT_WAIT", DIRECT_WAIT))
    except ValueError:
        return DIRECT_WAIT
    return value if value >= 0 else DIRECT_WAIT


async def map_result(result: Any, server: str, tool: str) -> AgentToolResult:
    """An MCP ``CallToolResult`` as a pi tool result (text and images; other blocks as text), its
    text limited as :func:`pi_mcp.output.limit_content` does."""
    content: list[TextContent | ImageContent] = []
    for block in result.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            content.append(TextContent(text=block.text))
        elif kind == "image":
            content.append(ImageContent(data=block.data, mime_type=block.mimeType))
        elif kind == "resource_link":
            content.append(
                TextContent(text=f"Resource link: {block.uri} ({block.name}); read it with read_mcp_resource")
            )
        elif kind == "resource":
            inner = block.resource
            text = getattr(inner, "text", None)
            body = (
                text
                if text is not None
                else f"(binary, {getattr(inner, 'mimeType', None) or 'unknown type'})"
            )
            content.append(TextContent(text=f"Resource {inner.uri}:\n{body}"))
        elif kind == "audio":
            content.append(TextContent(text=f"(audio, {block.mimeType}, not shown)"))
    structured = getattr(result, "structuredContent", None)
    if not content and structured is not None:
        content.append(TextContent(text=json.dumps(structured, ensure_ascii=False)))
    is_error = bool(getattr(result, "isError", False))
    limited = await limit_content(content)
    return AgentToolResult(
        content=limited.content,
        details=_details(server, tool, limited.full_output_path),
        structured_content=structured,
        is_error=is_error or None,
    )


def _details(server: str, tool: str, full_output_path: str | None) -> dict[str, str]:
    """What pi 1.6.0 keeps as an MCP result's details: the server, the tool and the saved file."""
    details = {"server": server, "tool": tool}
    if full_output_path is not None:
        details["fullOutputPath"] = full_output_path
    return details


def _error(text: str) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], is_error=True)


def _schema(raw: Any) -> dict[str, Any]:
    """The tool's input schema as given, or an empty object schema when it is not an object schema."""
    if isinstance(raw, dict) and raw.get("type", "object") == "object":
        schema = dict(raw)
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        return schema
    return {"type": "object", "properties": {}}


async def _stop_all(servers: list[McpServer]) -> None:
    """Stop servers side by side (each may take 2.5 s to leave)."""
    if servers:
        await asyncio.gather(*(server.stop() for server in servers))


def _reaches_deferred(config: ServerConfig) -> bool:
    return config.exposure == "deferred" or "deferred" in (_norm(v) for v in config.tool_exposure.values())


def _norm(value: str) -> str:
    return "deferred" if value in ("codemode", "codemode-deferred") else value


class McpManager:
    def __init__(self, ctx: Any, *, cwd: Path) -> None:
        self.ctx = ctx
        self.cwd = cwd
        self.agent_dir = agent_dir()
        self.servers: dict[str, McpServer] = {}
        self.credentials = credential_store(self.agent_dir)
        self._told_sign_in: set[str] = set()
        self.configs: dict[str, ServerConfig] = {}
        self.errors: list[str] = []
        #: pi tool name → (server, MCP tool name).
        self.tool_map: dict[str, tuple[str, str]] = {}
        self.deferred: dict[str, AgentTool] = {}
        self._log: IO[str] | None = None
        self._resource_tools = False
        self._search_tool = False
        self._sync: asyncio.Task[None] | None = None
        #: Called whenever a server's state, tools or entry changed (the ``/mcp`` panel redraws).
        self.watchers: set[Callable[[], None]] = set()
        #: Reconnects and enable/disable changes the ``/mcp`` panel started and does not wait for.
        self._background: set[asyncio.Task[None]] = set()
        #: Plugins' servers that an ``mcp.json`` entry of the same name replaces, one line each.
        self.overridden: list[str] = []
        #: One change of a server's connection at a time (a Disable still stopping it, then Enable).
        self._changing: dict[str, asyncio.Lock] = {}
        #: Made in the plugin's ``session_start``: servers connect in it, so a reconnect a tool
        #: call starts registers the tools as this plugin.
        self.context = contextvars.copy_context()

    # --- life cycle ---------------------------------------------------------------------------

    async def start(
        self, registered: dict[str, tuple[str, dict[str, Any]]], previous: McpManager | None
    ) -> None:
        # The project's servers follow the decision about its extension code (trust, --trust-project,
        # --no-approve), made once by core for this plugin load.
        allowed = project_mcp_file(self.cwd).exists() and bool(self.ctx.is_project_trusted())
        loaded = await asyncio.to_thread(load_config, self.agent_dir, self.cwd, project_allowed=allowed)
        self._merge_registered(loaded, registered)
        self.errors = loaded.errors
        for line in self.errors:
            self.ctx.ui.notify(f"MCP: {line}", "warning")
        reuse: dict[str, McpServer] = {}
        if previous is not None:
            reuse = await previous.hand_over(loaded.servers)
        self.configs = loaded.servers
        if any(c.enabled and _reaches_deferred(c) for c in loaded.servers.values()):
            self._ensure_search_tool()  # declared from the first request on; it waits for the servers
        for name, config in loaded.servers.items():
            server = reuse.get(name)
            if server is not None:
                server.on_tools = self._tools_arrived
                server.on_sign_in_needed = self._sign_in_needed
                server.on_state = self._changed
                server.context = self.context
                self.servers[name] = server
                if server.state == "connected":
                    self._tools_arrived(server)
                continue
            self._start_server(config)

    def _merge_registered(
        self, loaded: LoadedConfig, registered: dict[str, tuple[str, dict[str, Any]]]
    ) -> None:
        self.overridden = []
        for name, (plugin, raw) in registered.items():
            same = [c for n, c in loaded.servers.items() if n.replace("-", "_") == name.replace("-", "_")]
            if same:  # a file entry of that name takes precedence
                where = self.config_file(same[0]) or same[0].source
                self.overridden.append(
                    f'"{name}" registered by {plugin} is overridden by "{same[0].name}" in {where}'
                )
                continue
            checked = validate(name, raw, f"plugin:{plugin}")
            if isinstance(checked, str):
                loaded.errors.append(f"registered server: {checked}")
            else:
                loaded.servers[name] = checked

    def _open_log(self) -> IO[str]:
        if self._log is None or self._log.closed:
            self._log = open_log(self.agent_dir)
        return self._log

    def _start_server(self, config: ServerConfig) -> None:
        server = McpServer(
            config,
            cwd=self.cwd,
            log=self._open_log(),
            on_tools=self._tools_arrived,
            credentials=self.credentials,
            on_sign_in_needed=self._sign_in_needed,
        )
        server.on_state = self._changed
        server.context = self.context
        self.servers[config.name] = server
        server.start()
        self._changed()

    def _changed(self, server: McpServer | None = None) -> None:
        for watcher in list(self.watchers):
            watcher()

    def detach(self) -> None:
        """The session is being replaced: keep the servers for :meth:`hand_over`, drop the tools."""
        self.ctx = None

    async def hand_over(self, configs: dict[str, ServerConfig]) -> dict[str, McpServer]:
        """Servers whose entry is unchanged move to the next manager; the rest stop."""
        kept: dict[str, McpServer] = {}
        stopping: list[McpServer] = []
        for name, server in list(self.servers.items()):
            new = configs.get(name)
            if (
                new is not None
                and new.fingerprint() == server.config.fingerprint()
                and server.state not in ("failed", "needs-auth", "disconnected")
            ):
                server.config = new
                kept[name] = server
            else:
                stopping.append(server)
        await _stop_all(stopping)
        self.servers = {}
        return kept

    def schedule_sync(self, registered: dict[str, tuple[str, dict[str, Any]]]) -> None:
        """Plugins added or removed servers: connect the new ones now, stop the withdrawn ones."""
        loaded = LoadedConfig(
            servers={n: c for n, c in self.configs.items() if not c.source.startswith("plugin:")}
        )
        self._merge_registered(loaded, registered)
        for line in loaded.errors:
            if line not in self.errors:
                self.errors.append(line)
                if self.ctx is not None:
                    self.ctx.ui.notify(f"MCP: {line}", "warning")
        gone = [
            self.servers.pop(name)
            for name, server in list(self.servers.items())
            if loaded.servers.get(name) is None
            or loaded.servers[name].fingerprint() != server.config.fingerprint()
        ]
        for server in gone:
            self.drop_tools(server.name)
        self.configs = loaded.servers
        if any(c.enabled and _reaches_deferred(c) for c in loaded.servers.values()):
            self._ensure_search_tool()
        for name, config in loaded.servers.items():
            if name not in self.servers:
                self._start_server(config)

        async def stop() -> None:
            await _stop_all(gone)

        self._sync = asyncio.get_running_loop().create_task(stop())

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        if self._sync is not None:
            await self._sync
        await _stop_all(list(self.servers.values()))
        self.servers = {}
        if self._log is not None:
            self._log.close()

    def _lock(self, name: str) -> asyncio.Lock:
        return self._changing.setdefault(name, asyncio.Lock())

    async def reconnect(self, names: list[str]) -> None:
        for name in names:
            async with self._lock(name):
                server = self.servers[name]
                self.drop_tools(name)
                await server.restart()
            await server.wait_settled(server.connect_timeout + 1)

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` without waiting for it (until the session closes)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("MCP background change failed", exc_info=task.exception())
            if self.ctx is not None:
                self.ctx.ui.notify(f"MCP: {task.exception()}", "error")

    def config_file(self, config: ServerConfig) -> Path | None:
        """The file that defines the server (``None``: a plugin registered it for this session)."""
        if config.source == "user":
            return self.agent_dir / "mcp.json"
        if config.source == "project":
            return project_mcp_file(self.cwd)
        return None

    async def change_entry(
        self, name: str, changes: dict[str, Any], *, in_project: bool = False
    ) -> str | None:
        """Change ``enabled`` or ``exposure`` of a server, saved to the file that defines it (with
        ``in_project``, or when one exists, to the project's override of a user-level server) and
        applied now. The reason when it could not be saved; ``None`` when done."""
        async with self._lock(name):
            return await self._change_entry(name, changes, in_project)

    async def _change_entry(self, name: str, changes: dict[str, Any], in_project: bool) -> str | None:
        config = self.configs.get(name)
        if config is None:
            return f'MCP server "{name}" is no longer configured.'
        raw = {k: v for k, v in {**config.raw, **changes}.items() if v is not None}
        checked = validate(name, raw, config.source)
        if isinstance(checked, str):
            return checked
        checked.override = project_mcp_file(self.cwd) if in_project else config.override
        target = checked.override or self.config_file(config)
        if target is not None:
            try:
                await asyncio.to_thread(update_entry, target, name, changes)
            except (McpConfigError, OSError) as error:
                return f"Could not update {target}: {error}"
        self.configs[name] = checked
        server = self.servers.get(name)
        if "enabled" in changes or server is None:
            self.drop_tools(name)
            if server is not None:
                await server.stop()
            self._start_server(checked)
        else:
            server.config = checked
            self.drop_tools(name)
            if server.state == "connected":
                self._tools_arrived(server)
        if checked.enabled and _reaches_deferred(checked):
            self._ensure_search_tool()
        self._changed()
        return None

    async def pick_up_sign_ins(self, limit: float) -> None:
        """Reconnect servers waiting for a sign-in once one happened outside the session."""
        waiting = [s for s in self.servers.values() if s.signed_in_elsewhere()]
        for server in waiting:
            await server.restart()
        if waiting:
            await self._wait_for(lambda s: s in waiting, limit)

    async def wait_direct(self, limit: float) -> None:
        """Wait (up to ``limit`` in all) for the servers that have or may have ``direct`` tools."""
        await self._wait_for(
            lambda s: s.config.exposure == "direct" or "direct" in s.config.tool_exposure.values(), limit
        )

    async def wait_all(self, limit: float | None = None) -> None:
        await self._wait_for(lambda s: True, connect_wait() if limit is None else limit)

    async def _wait_for(self, selected: Callable[[McpServer], bool], limit: float) -> None:
        # Servers can start while we wait (a plugin's mcp_servers_change arrives in the background),
        # so the list is taken again each time a server settles, until the deadline.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while True:
            waiting = [s for s in self.servers.values() if s.state == "connecting" and selected(s)]
            remaining = deadline - loop.time()
            if not waiting or remaining <= 0:
                return
            tasks = [asyncio.ensure_future(s.wait_settled(remaining)) for s in waiting]
            _done, pending = await asyncio.wait(tasks, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()

    def _sign_in_needed(self, server: McpServer) -> None:
        self.drop_tools(server.name)
        if self.ctx is not None and server.last_error and server.name not in self._told_sign_in:
            self._told_sign_in.add(server.name)  # once per session: /mcp shows it from then on
            self.ctx.ui.notify(server.last_error, "warning")

    # --- tools ----------------------------------------------------------------------------------

    def drop_tools(self, server: str) -> None:
        if self.ctx is None:
            return
        for name, (owner, _tool) in list(self.tool_map.items()):
            if owner == server:
                del self.tool_map[name]
                self.deferred.pop(name, None)
                with contextlib.suppress(ValueError):
                    self.ctx.unregister_tool(name)

    def _tools_arrived(self, server: McpServer) -> None:
        """(Re-)register the server's tools; tools it no longer lists are withdrawn."""
        self._changed()
        if self.ctx is None:
            return
        fresh: dict[str, AgentTool] = {}
        for tool in server.tools:
            name = tool_name(server.name, tool.name, lambda n: n in fresh)
            fresh[name] = self._make_tool(server, tool, name)
        for name, (owner, _tool) in list(self.tool_map.items()):
            if owner == server.name and name not in fresh:
                del self.tool_map[name]
                self.deferred.pop(name, None)
                with contextlib.suppress(ValueError):
                    self.ctx.unregister_tool(name)
        for name, agent_tool in fresh.items():
            self.tool_map[name] = (server.name, agent_tool.label)
            if agent_tool.exposure == "deferred":
                self.deferred[name] = agent_tool
            else:
                self.deferred.pop(name, None)
            try:
                self.ctx.register_tool(agent_tool)
            except ValueError as error:
                server.last_error = str(error)
        if any(t.exposure == "deferred" for t in fresh.values()):
            self._ensure_search_tool()
        if server.has_resources:
            self._ensure_resource_tools()

    def _make_tool(self, server: McpServer, tool: Any, name: str) -> AgentTool:
        mcp_name = tool.name
        exposure = server.config.exposure_of(mcp_name)

        async def execute(
            call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
        ) -> AgentToolResult:
            live = self.servers.get(server.name, server)
            try:
                result = await live.call_tool(mcp_name, dict(params or {}), signal)
            except McpCallError as error:
                return _error(str(error))
            return await map_result(result, server.name, mcp_name)

        annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else None
        description = (tool.description or tool.title or mcp_name).strip()
        return AgentTool(
            name=name,
            label=mcp_name,
            description=description,
            parameters=_schema(tool.inputSchema),
            execute=execute,
            exposure=exposure,
            annotations=annotations,
            output_schema=tool.outputSchema if isinstance(tool.outputSchema, dict) else None,
        )

    def _ensure_search_tool(self) -> None:
        if self._search_tool or self.ctx is None:
            return
        self._search_tool = True
        schema = {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words to look for in tool names and descriptions",
                },
                "limit": {"type": "integer", "description": "At most this many tools (default 5)"},
            },
            "required": ["query"],
        }
        self.ctx.register_tool(
            AgentTool(
                name=SEARCH_TOOL,
                label="Tool search",
                description=(
                    "Find MCP tools that are not declared yet by keywords; the matches become callable "
                    "from your next tool call on."
                ),
                parameters=schema,
                execute=self._tool_search,
                annotations={"readOnlyHint": True},
            )
        )

    async def _tool_search(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        await self.wait_all()
        words = [w for w in re.split(r"[\s_\-.]+", str(params.get("query", "")).lower()) if w]
        limit = max(1, int(params.get("limit") or 5))
        ranked: list[tuple[int, str]] = []
        for name, tool in self.deferred.items():
            server = self.tool_map.get(name, ("", ""))[0]
            config = self.configs.get(server)
            hay_name = name.lower()
            hay = f"{tool.description} {config.description if config and config.description else ''}".lower()
            score = sum(3 * (w in hay_name) + (w in hay) for w in words)
            if score:
                ranked.append((score, name))
        ranked.sort(key=lambda item: (-item[0], item[1]))
        found = [name for _score, name in ranked[:limit]]
        if not found:
            return AgentToolResult(content=[TextContent(text="No matching tools.")], details={"tools": []})
        active = list(self.ctx.get_active_tools()) if self.ctx is not None else []
        if self.ctx is not None:
            self.ctx.set_active_tools([*active, *[n for n in found if n not in active]])
        lines = [f"{name}: {(self.deferred[name].description.splitlines() or [''])[0]}" for name in found]
        text = "Loaded these tools; call them directly:\n" + "\n".join(lines)
        return AgentToolResult(content=[TextContent(text=text)], details={"tools": found})

    def _ensure_resource_tools(self) -> None:
        if self._resource_tools or self.ctx is None:
            return
        self._resource_tools = True
        server_prop = {"type": "string", "description": "MCP server name"}
        cursor_prop = {"type": "string", "description": "Cursor of the next page (with server)"}
        specs = [
            (
                "list_mcp_resources",
                "List the resources MCP servers offer (JSON).",
                self._list_resources,
                {"server": server_prop, "cursor": cursor_prop},
                [],
            ),
            (
                "list_mcp_resource_templates",
                "List the resource URI templates MCP servers offer (JSON).",
                self._list_templates,
                {"server": server_prop, "cursor": cursor_prop},
                [],
            ),
            (
                "read_mcp_resource",
                "Read one resource of an MCP server by its URI.",
                self._read_resource,
                {"server": server_prop, "uri": {"type": "string", "description": "Resource URI"}},
                ["server", "uri"],
            ),
        ]
        for name, description, execute, props, required in specs:
            self.ctx.register_tool(
                AgentTool(
                    name=name,
                    label=name,
                    description=description,
                    parameters={"type": "object", "properties": props, "required": required},
                    execute=execute,
                    annotations={"readOnlyHint": True},
                )
            )

    def _resource_servers(self, name: str | None) -> list[McpServer] | str:
        if name is not None:
            server = self.servers.get(name)
            if server is None:
                return f'Unknown MCP server "{name}"'
            return [server]
        return [s for s in self.servers.values() if s.has_resources and s.config.exposure != "hidden"]

    async def _paged(self, params: Any, method: str, key: str, tool: str) -> AgentToolResult:
        await self.wait_all()
        name = params.get("server")
        servers = self._resource_servers(name)
        if isinstance(servers, str):
            return _error(servers)
        items: list[dict[str, Any]] = []
        next_cursor: str | None = None
        try:
            for server in servers:
                cursor = params.get("cursor") if name else None
                while True:
                    page = await getattr(server, method)(cursor)
                    for item in getattr(page, key):
                        data = item.model_dump(mode="json", exclude_none=True)
                        data.pop("icons", None)
                        if str(data.get("uri", "")).startswith("ui://"):
                            continue
                        items.append({"server": server.name, **data})
                    cursor = page.nextCursor
                    if name or not cursor:
                        next_cursor = cursor if name else None
                        break
        except McpCallError as error:
            return _error(str(error))
        body: dict[str, Any] = {key: items}
        if name:
            body = {"server": name, **body}
        if next_cursor:
            body["nextCursor"] = next_cursor
        limited = await limit_content([TextContent(text=json.dumps(body, ensure_ascii=False))])
        return AgentToolResult(
            content=limited.content,
            details=_details(name or "", tool, limited.full_output_path),
            structured_content=body,
        )

    async def _list_resources(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        return await self._paged(params, "list_resources", "resources", "list_mcp_resources")

    async def _list_templates(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        return await self._paged(
            params, "list_resource_templates", "resourceTemplates", "list_mcp_resource_templates"
        )

    async def _read_resource(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        await self.wait_all()
        servers = self._resource_servers(str(params.get("server", "")))
        if isinstance(servers, str):
            return _error(servers)
        uri = str(params.get("uri", ""))
        try:
            result = await servers[0].read_resource(uri)
        except McpCallError as error:
            return _error(str(error))
        content: list[TextContent | ImageContent] = []
        for item in result.contents:
            text = getattr(item, "text", None)
            mime = getattr(item, "mimeType", None) or ""
            if text is not None:
                content.append(TextContent(text=text))
            elif mime.startswith("image/"):
                content.append(ImageContent(data=item.blob, mime_type=mime))
            else:
                content.append(
                    TextContent(
                        text=f"(binary resource {item.uri}, {mime or 'unknown type'}, "
                        f"{len(item.blob) * 3 // 4} bytes)"
                    )
                )
        limited = await limit_content(content)
        details = {**_details(servers[0].name, "read_mcp_resource", limited.full_output_path), "uri": uri}
        return AgentToolResult(content=limited.content, details=details)

    # --- reports ----------------------------------------------------------------------------------

    def status_text(self) -> str:
        """What ``/mcp`` says where there is no panel, in pi 1.6.0's words: one line per server
        (state, tool count, exposure as configured), its error indented under it."""
        if not self.configs and not self.errors and not self.overridden:
            return f"No MCP servers configured. Add them to {self.agent_dir / 'mcp.json'} or .pi/mcp.json."
        lines = []
        for name, config in self.configs.items():
            server = self.servers.get(name)
            exposure = config.raw.get("exposure", "codemode")
            state: str = server.state if server is not None and config.enabled else "disabled"
            if state == "needs-auth":
                lines.append(f"{name}: needs sign-in, run /mcp login {name} ({exposure})")
                continue
            if state == "disconnected":
                state = "disconnected, reconnects on next call"
            tools = f", {len(server.tools)} tools" if server is not None and state == "connected" else ""
            line = f"{name}: {state}{tools} ({exposure})"
            if server is not None and server.last_error and state != "connected":
                line += "\n    " + server.last_error.replace("\n", "\n    ")
            lines.append(line)
        lines.extend(f"config error: {e}" for e in self.errors)
        lines.extend(f"overridden: {line}" for line in self.overridden)
        return "\n".join(lines)
