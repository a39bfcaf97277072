"""SYSTEM.md (replaces pi's default prompt) and APPEND_SYSTEM.md (appended), plus the CLI overrides."""

from __future__ import annotations

import os
from collections.abc import Sequence

from pi_core._files import read_regular
from pi_core.runtime.resources.diagnostics import ResourceDiagnostic
from pi_core.runtime.resources.paths import CONFIG_DIR_NAME


def resolve_prompt_input(
    value: str | None, description: str, diagnostics: list[ResourceDiagnostic] | None = None
) -> str | None:
    """A ``--system-prompt``-style value: an existing path (relative to the process cwd, as pi)
    yields the file's contents verbatim; anything else is the text itself."""
    if not value:
        return None
    if os.path.exists(value):
        try:
            return read_regular(value).decode("utf-8")  # a named pipe is refused, not waited on
        except (OSError, UnicodeDecodeError) as error:
            if diagnostics is not None:
                diagnostics.append(
                    ResourceDiagnostic(
                        "warning", f"Could not read {description} file {value}: {error}", value
                    )
                )
            return value
    return value


def _first_existing(cwd: str, agent_dir: str, name: str) -> str | None:
    for candidate in (os.path.join(cwd, CONFIG_DIR_NAME, name), os.path.join(agent_dir, name)):
        if os.path.exists(candidate):
            return candidate
    return None


def discover_system_prompt_file(cwd: str, agent_dir: str) -> str | None:
    """``<cwd>/.pi/SYSTEM.md``, else ``<agentDir>/SYSTEM.md`` (no ancestor walk)."""
    return _first_existing(cwd, agent_dir, "SYSTEM.md")


def discover_append_system_prompt_file(cwd: str, agent_dir: str) -> str | None:
    """``<cwd>/.pi/APPEND_SYSTEM.md``, else ``<agentDir>/APPEND_SYSTEM.md``."""
    return _first_existing(cwd, agent_dir, "APPEND_SYSTEM.md")


def load_system_prompt(
    cwd: str,
    agent_dir: str,
    system_prompt: str | None = None,
    diagnostics: list[ResourceDiagnostic] | None = None,
) -> str | None:
    """The custom prompt body: ``--system-prompt`` (text or file) if given, else a discovered SYSTEM.md."""
    source = system_prompt if system_prompt is not None else discover_system_prompt_file(cwd, agent_dir)
    return resolve_prompt_input(source, "system prompt", diagnostics)


def load_append_system_prompt(
    cwd: str,
    agent_dir: str,
    append_system_prompt: Sequence[str] | None = None,
    diagnostics: list[ResourceDiagnostic] | None = None,
) -> list[str]:
    """The append parts: every ``--append-system-prompt`` value, or else the discovered APPEND_SYSTEM.md.

    Giving any ``--append-system-prompt`` replaces the discovered file (pi's behaviour).
    """
    if append_system_prompt is not None:
        sources = list(append_system_prompt)
    else:
        found = discover_append_system_prompt_file(cwd, agent_dir)
        sources = [found] if found else []
    parts: list[str] = []
    for source in sources:
        resolved = resolve_prompt_input(source, "append system prompt", diagnostics)
        if resolved is not None:
            parts.append(resolved)
    return parts
