"""``mcp.json``: the ``mcpServers`` shape MCP clients share, read as pi 1.6.0 reads it.

``<agent dir>/mcp.json`` holds the user's servers; a project's ``.pi/mcp.json`` adds or replaces
entries, and only in a trusted project (its servers start programs). A project entry without
``command``, ``url`` or ``type`` only overrides ``enabled``, ``exposure`` and ``toolExposure`` of
the user's entry of that name. Invalid entries are reported one by one and skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from pi_core._jsonfile import loads, read_json_text

from pi_mcp.oauth import validate_oauth

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
Exposure = Literal["direct", "deferred", "codemode", "hidden"]
EXPOSURES = ("direct", "deferred", "codemode", "codemode-deferred", "hidden")
OVERRIDE_FIELDS = ("enabled", "exposure", "toolExposure")
DEFAULT_TIMEOUT = 60.0


class McpConfigError(Exception):
    """A ``mcp.json`` that cannot be read at all (its message names the file, line and column)."""


@dataclass
class ServerConfig:
    name: str
    kind: Literal["stdio", "http"]
    raw: dict[str, Any]
    #: ``user``, ``project`` or ``plugin:<name>``.
    source: str
    enabled: bool = True
    exposure: Exposure = "deferred"
    tool_exposure: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    description: str | None = None
    #: The project file whose entry overrides ``enabled``/``exposure`` of this user-level server.
    override: Path | None = None

    def exposure_of(self, tool: str) -> Exposure:
        """The tool's effective exposure: an exact ``toolExposure`` key, else the first pattern."""
        chosen = self.tool_exposure.get(tool)
        if chosen is None:
            chosen = next(
                (v for k, v in self.tool_exposure.items() if "*" in k and fnmatchcase(tool, k)), None
            )
        return _exposure(chosen) if chosen is not None else self.exposure

    def fingerprint(self) -> str:
        """What decides whether a running connection still fits this entry."""
        return json.dumps([self.kind, self.raw], sort_keys=True)


def _exposure(value: str) -> Exposure:
    # There is no codemode tool in this port: codemode servers are reached through tool_search.
    if value in ("codemode", "codemode-deferred", "deferred"):
        return "deferred"
    return "direct" if value == "direct" else "hidden"


def read_json(path: Path) -> dict[str, Any] | None:
    """The file's object, ``None`` when it does not exist; :class:`McpConfigError` when unusable."""
    try:
        text = read_json_text(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise McpConfigError(f"{path}: cannot read: {exc}") from exc
    if not text.strip():
        return {}
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise McpConfigError(f"{path}: must hold a JSON object")
    return data


def _string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def validate(name: str, raw: Any, source: str) -> ServerConfig | str:
    """One ``mcpServers`` entry as a :class:`ServerConfig`, or the reason it is unusable."""
    if not SERVER_NAME.match(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not isinstance(raw, dict):
        return f'server "{name}" must be an object'
    error = _base_error(raw)
    if error:
        return f'server "{name}": {error}'
    kind: Literal["stdio", "http"]
    typ, url, command = raw.get("type"), raw.get("url"), raw.get("command")
    if typ == "sse":  # as pi 1.6.0: the legacy transport is refused, the other servers go on
        return f'server "{name}": legacy SSE transport is not supported; use the streamable HTTP URL'
    if isinstance(url, str) and typ in (None, "http", "streamable-http"):
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            return f'server "{name}": url must be an http or https URL'
        if "headers" in raw and not _string_map(raw["headers"]):
            return f'server "{name}": headers must map names to strings'
        oauth_error = validate_oauth(raw.get("oauth"))
        if oauth_error:
            return f'server "{name}": {oauth_error}'
        kind = "http"
    elif isinstance(command, str) and typ in (None, "stdio"):
        args = raw.get("args", [])
        if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            return f'server "{name}": args must be an array of strings'
        if "env" in raw and not _string_map(raw["env"]):
            return f'server "{name}": env must map names to strings'
        if "cwd" in raw and not isinstance(raw["cwd"], str):
            return f'server "{name}": cwd must be a string'
        kind = "stdio"
    elif typ is not None and typ not in ("stdio", "http", "streamable-http"):
        return f'server "{name}": type must be "stdio", "http" or "streamable-http"'
    else:
        return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'
    return ServerConfig(
        name=name,
        kind=kind,
        raw=raw,
        source=source,
        enabled=raw.get("enabled", True),
        exposure=_exposure(raw.get("exposure", "codemode")),
        tool_exposure=dict(raw.get("toolExposure") or {}),
        timeout=float(raw.get("timeout", DEFAULT_TIMEOUT)),
        description=raw.get("description"),
    )


def _base_error(raw: dict[str, Any]) -> str | None:
    if "enabled" in raw and not isinstance(raw["enabled"], bool):
        return "enabled must be a boolean"
    if "description" in raw and not isinstance(raw["description"], str):
        return "description must be a string"
    timeout = raw.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        return "timeout must be a positive number of seconds"
    if "exposure" in raw and raw["exposure"] not in EXPOSURES:
        return f"exposure must be one of {', '.join(EXPOSURES)}"
    tool_exposure = raw.get("toolExposure")
    if tool_exposure is not None and not (
        _string_map(tool_exposure) and all(v in EXPOSURES for v in tool_exposure.values())
    ):
        return f"toolExposure must map tool names or patterns to one of {', '.join(EXPOSURES)}"
    return None


@dataclass
class LoadedConfig:
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    #: One line per unusable file or entry.
    errors: list[str] = field(default_factory=list)


def _entries(path: Path, errors: list[str]) -> dict[str, Any]:
    try:
        data = read_json(path)
    except McpConfigError as exc:
        errors.append(str(exc))
        return {}
    if data is None:
        return {}
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        errors.append(f"{path}: mcpServers must be an object")
        return {}
    return servers


def _same(a: str, b: str) -> bool:
    return a.replace("-", "_") == b.replace("-", "_")


def load_config(agent_dir: Path, cwd: Path, *, project_allowed: bool) -> LoadedConfig:
    """The servers of the user's and (when allowed) the project's ``mcp.json``."""
    result = LoadedConfig()
    user_path = agent_dir / "mcp.json"
    for name, raw in _entries(user_path, result.errors).items():
        _add(result, validate(name, raw, "user"), user_path)
    project_path = cwd / ".pi" / "mcp.json"
    if not project_allowed:
        return result
    for name, raw in _entries(project_path, result.errors).items():
        base = result.servers.get(name)
        if isinstance(raw, dict) and base is not None and not ({"command", "url", "type"} & raw.keys()):
            merged = dict(base.raw)
            merged.update({k: v for k, v in raw.items() if k in OVERRIDE_FIELDS})
            checked = validate(name, merged, base.source)
            if not isinstance(checked, str):
                checked.override = project_path
        else:
            checked = validate(name, raw, "project")
            result.servers.pop(name, None)
        _add(result, checked, project_path)
    return result


def _add(result: LoadedConfig, checked: ServerConfig | str, path: Path) -> None:
    if isinstance(checked, str):
        result.errors.append(f"{path}: {checked}")
        return
    clash = next((n for n in result.servers if n != checked.name and _same(n, checked.name)), None)
    if clash is not None:
        result.errors.append(f'{path}: server "{checked.name}" clashes with "{clash}" (- and _ count as one)')
        return
    result.servers[checked.name] = checked


_VAR = re.compile(r"\$\$|\$!|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
COMMAND_TIMEOUT = 10.0


class McpValueError(Exception):
    """An ``env``/``headers`` value that cannot be resolved (names the server, field and cause)."""


def expand(value: str, env: dict[str, str] | None = None, *, what: str | None = None) -> str:
    """``${NAME}`` and ``$NAME`` replaced by the environment's value, ``$$`` by ``$``, ``$!`` by ``!``.

    With ``what`` (e.g. ``MCP server "x" env "KEY"``), an unset or empty variable raises
    :class:`McpValueError`; without it, it becomes the empty string.
    """
    source = os.environ if env is None else env
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        if match.group(0) in ("$$", "$!"):
            return match.group(0)[1]
        name = match.group(1) or match.group(2)
        found = source.get(name, "")
        if not found and name not in missing:
            missing.append(name)
        return found

    result = _VAR.sub(replace, value)
    if missing and what is not None:
        plural = "s" if len(missing) > 1 else ""
        raise McpValueError(
            f"Failed to resolve {what} from environment variable{plural}: {', '.join(missing)}"
        )
    return result


async def resolve_value(value: str, what: str) -> str:
    """A configured ``env``/``headers`` value: ``!command`` (the whole value) runs in the shell and
    gives its trimmed output; anything else is expanded as :func:`expand` does. Runs at every
    connect, so a token command is asked again on reconnect."""
    if not value.startswith("!"):
        return expand(value, what=what)
    import asyncio
    import signal

    command = value[1:]
    failed = McpValueError(f"Failed to resolve {what} from shell command: {command}")
    try:
        process = await asyncio.create_subprocess_shell(
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as error:
        raise failed from error
    try:
        out, _ = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT)
    except (TimeoutError, asyncio.CancelledError) as error:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        if isinstance(error, TimeoutError):
            raise McpValueError(f"{failed} (no answer within {COMMAND_TIMEOUT:g} s)") from None
        raise
    if process.returncode != 0:
        raise failed
    text = out.decode("utf-8", "replace").strip()
    if not text:
        raise failed
    return text


def project_mcp_file(cwd: Path) -> Path:
    return cwd / ".pi" / "mcp.json"


def update_entry(path: Path, name: str, changes: dict[str, Any]) -> None:
    """Change fields of server ``name`` in ``path`` (a ``None`` value removes the field), keeping
    the rest of the file and its indentation; the entry is created when missing (a project
    override). :class:`McpConfigError` or ``OSError`` when the file cannot be read or written."""
    from pi_core._files import replace_file

    data = read_json(path) or {}
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise McpConfigError(f"{path}: mcpServers must be an object")
    entry = servers.setdefault(name, {})
    if not isinstance(entry, dict):
        raise McpConfigError(f'{path}: server "{name}" must be an object')
    for key, value in changes.items():
        if value is None:
            entry.pop(key, None)
        else:
            entry[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps(data, indent=_indent_of(path), ensure_ascii=False) + "\n")


def _indent_of(path: Path) -> str | int:
    """The indentation the file uses (its first indented line), 2 spaces when it has none."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        found = re.search(r"\n([ \t]+)\S", path.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    return 2
