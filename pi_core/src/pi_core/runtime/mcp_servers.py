"""The MCP servers plugins register with ``ctx.register_mcp_server`` (pi's ``pi.registerMcpServer``).

Core only checks and keeps the registrations; the plugin that connects MCP servers (the ``mcp``
plugin, or a replacement) reads them with ``ctx.get_mcp_servers()`` when a session starts and hears
of later changes through the ``mcp_servers_change`` hook. Each plugin load has a registry of its own,
so ``/reload`` and session replacement start with none: plugins register again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pi_core.plugins.events import RegisteredMcpServer

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    # pi counts names that differ only in "-" and "_" as one server.
    return name.replace("-", "_")


@dataclass
class McpServerRegistry:
    _servers: dict[str, RegisteredMcpServer] = field(default_factory=dict)

    def register(self, name: str, config: Any, plugin: str) -> None:
        """Add or replace ``plugin``'s server ``name``; ``ValueError`` for a bad name, a config that
        is not an object, or a name another plugin holds."""
        if not isinstance(name, str) or not SERVER_NAME.match(name):
            raise ValueError(f'invalid MCP server name "{name}" (use letters, digits, "_" and "-")')
        if not isinstance(config, dict):
            raise ValueError(f'MCP server "{name}": the config must be an object (an mcpServers entry)')
        held = self._servers.get(_key(name))
        if held is not None and held.extension_path != plugin:
            raise ValueError(f'MCP server "{name}" is already registered by plugin {held.extension_path!r}')
        self._servers.pop(_key(name), None)  # a replacement moves to the end, as a new registration
        self._servers[_key(name)] = RegisteredMcpServer(name=name, config=dict(config), extension_path=plugin)

    def unregister(self, name: str, plugin: str) -> bool:
        """Remove ``plugin``'s server ``name``; False when that plugin registered none by the name."""
        held = self._servers.get(_key(name))
        if held is None or held.extension_path != plugin:
            return False
        del self._servers[_key(name)]
        return True

    def list(self) -> list[RegisteredMcpServer]:
        """Copies of the registrations, in registration order."""
        return [server.model_copy(deep=True) for server in self._servers.values()]
