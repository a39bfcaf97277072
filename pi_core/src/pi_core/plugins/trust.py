"""Project trust: code a project brings (``.pi/extensions``, plugins its ``.pi/settings.json`` asks
for) runs only once the user trusted that project.

Trust is recorded in ``<agent dir>/trusted-projects.json`` against the project's absolute path and a
fingerprint of that code, so any change to it (an edited or added extension, a new settings entry)
asks again. pi v0.73.1 runs such code on open; this is the Python port's addition.

Project settings that choose a program pi runs (:data:`PROGRAM_SETTINGS`: the shell of the bash
tool and of ``!cmd``, a prefix run before every command, the npm command, the external editor of
Ctrl+G) are code as well: they
are part of the fingerprint, and the runtime ignores them while the project is not trusted.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pi_core._files import replace_file
from pi_core._jsonfile import loads, read_json_text
from pi_core.errors import ConfigError
from pi_core.plugins.sources import PROJECT_SCOPES, SettingsReader, discover_local, read_settings

TRUST_FILE = "trusted-projects.json"
#: A project's MCP servers (``.pi/mcp.json``) start programs: the file counts as project code.
MCP_FILE = "mcp.json"

#: ``declined``: a ``project_trust`` plugin answered no with ``remember`` (until ``pi trust`` or
#: ``pi untrust``): the code stays out and nobody is asked.
TrustStatus = Literal["trusted", "untrusted", "changed", "declined", "nothing-to-trust"]

#: Settings keys that make pi run a program of the settings file's choosing.
PROGRAM_SETTINGS: tuple[str, ...] = ("shellPath", "shellCommandPrefix", "npmCommand", "externalEditor")


@dataclass(frozen=True)
class TrustCheck:
    project: Path
    status: TrustStatus
    fingerprint: str
    #: The files whose code would run (what the fingerprint covers).
    files: tuple[Path, ...]
    #: Keys of :data:`PROGRAM_SETTINGS` that the project's settings file sets.
    programs: tuple[str, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.status in ("trusted", "nothing-to-trust")


def project_programs(cwd: Path) -> dict[str, Any]:
    """The :data:`PROGRAM_SETTINGS` the project's ``.pi/settings.json`` sets, with their values."""
    settings = read_settings(cwd / ".pi" / "settings.json")
    return {key: settings[key] for key in PROGRAM_SETTINGS if key in settings}


def project_code(cwd: Path, agent: Path, read: SettingsReader | None = None) -> tuple[str, tuple[Path, ...]]:
    """The fingerprint of the project's plugin code and program settings, and the files it covers.

    Settings files that cannot be used count as empty; their problems land in ``read.errors``.
    """
    sources = discover_local(cwd=cwd, agent=agent, read=read)
    files: list[Path] = []
    for plugin in sources.plugins:
        if plugin.scope in PROJECT_SCOPES:
            files.extend(plugin.files())
    mcp_file = cwd / ".pi" / MCP_FILE
    if mcp_file.is_file():  # its servers are programs pi starts
        files.append(mcp_file)
    settings_file = cwd / ".pi" / "settings.json"
    requested = read_settings(settings_file).get("extensions", [])
    digest = hashlib.sha256()
    digest.update(json.dumps(requested, sort_keys=True).encode())
    programs = project_programs(cwd)
    if programs:  # (absent: the fingerprint stays what it was before these counted)
        digest.update(b"\0programs\0" + json.dumps(programs, sort_keys=True).encode())
    for path in files:
        digest.update(b"\0" + str(path.resolve()).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest(), tuple(files)


def _store_path(agent: Path) -> Path:
    return agent / TRUST_FILE


def _read_store(agent: Path) -> dict[str, Any]:
    path = _store_path(agent)
    try:
        data = loads(read_json_text(path))
    except FileNotFoundError:
        return {"projects": {}}
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Cannot read the trust file {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
        raise ConfigError(f'The trust file {path} must hold {{"projects": {{...}}}}')
    return data


def _write_store(agent: Path, data: dict[str, Any]) -> None:
    agent.mkdir(parents=True, exist_ok=True)
    replace_file(_store_path(agent), json.dumps(data, indent=2, sort_keys=True) + "\n")


def check_project_trust(cwd: Path, agent: Path) -> TrustCheck:
    """Whether the project's plugin code may run (the REPL asks the user when it may not)."""
    project = cwd.resolve()
    fingerprint, files = project_code(project, agent)
    programs = tuple(project_programs(project))
    if not files and fingerprint == _empty_fingerprint():
        return TrustCheck(project, "nothing-to-trust", fingerprint, files)
    recorded = _read_store(agent)["projects"].get(str(project))
    if recorded is None:
        return TrustCheck(project, "untrusted", fingerprint, files, programs)
    if recorded.get("declined") is True:
        return TrustCheck(project, "declined", fingerprint, files, programs)
    status: TrustStatus = "trusted" if recorded.get("fingerprint") == fingerprint else "changed"
    return TrustCheck(project, status, fingerprint, files, programs)


def _empty_fingerprint() -> str:
    return hashlib.sha256(json.dumps([]).encode()).hexdigest()


def trust_project(cwd: Path, agent: Path, read: SettingsReader | None = None) -> TrustCheck:
    """Record the project's current plugin code as trusted (settings problems go to ``read.errors``)."""
    project = cwd.resolve()
    fingerprint, files = project_code(project, agent, read)
    data = _read_store(agent)
    data["projects"][str(project)] = {"fingerprint": fingerprint, "trustedAt": int(time.time() * 1000)}
    _write_store(agent, data)
    return TrustCheck(project, "trusted", fingerprint, files, tuple(project_programs(project)))


def decline_project(cwd: Path, agent: Path) -> None:
    """Record that the project's code is not to run (a ``project_trust`` no with ``remember``)."""
    data = _read_store(agent)
    data["projects"][str(cwd.resolve())] = {"declined": True, "decidedAt": int(time.time() * 1000)}
    _write_store(agent, data)


def untrust_project(cwd: Path, agent: Path) -> bool:
    """Forget the project's trust (or recorded refusal); returns whether there was one."""
    data = _read_store(agent)
    removed = data["projects"].pop(str(cwd.resolve()), None) is not None
    if removed:
        _write_store(agent, data)
    return removed


def untrusted_message(check: TrustCheck) -> str:
    """What to tell a user whose run stopped because of untrusted project code."""
    what = "changed since you trusted it" if check.status == "changed" else "is not trusted yet"
    listed = "\n".join(f"    {path}" for path in check.files)
    if check.programs:
        chosen = ", ".join(check.programs)
        listed += ("\n" if listed else "") + f"    .pi/settings.json: {chosen} (programs pi would run)"
    listed = listed or "    (plugins requested in .pi/settings.json)"
    return (
        f"The project {check.project} has plugin code that {what}:\n{listed}\n"
        "  Review it, then run `pi trust` in the project (or pass --trust-project for this run only),\n"
        "  or run without local extensions: --no-extensions."
    )
