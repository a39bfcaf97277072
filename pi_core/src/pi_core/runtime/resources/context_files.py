"""Project context files (AGENTS.md / CLAUDE.md): the global one, then every ancestor down to cwd."""

from __future__ import annotations

import os
from dataclasses import dataclass

from pi_core._files import read_regular
from pi_core.runtime.resources.diagnostics import ResourceDiagnostic

#: Checked in this order in each directory; only the first existing one is used.
CONTEXT_FILE_NAMES = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


@dataclass(frozen=True)
class ContextFile:
    """One loaded context file: its absolute path (the heading in the prompt) and its text."""

    path: str
    content: str


def _load_from_dir(directory: str, diagnostics: list[ResourceDiagnostic]) -> ContextFile | None:
    for name in CONTEXT_FILE_NAMES:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            continue
        try:
            data = read_regular(path)  # a named pipe called AGENTS.md is not waited on
        except OSError as error:
            # pi warns and tries the next candidate name in the same directory.
            diagnostics.append(ResourceDiagnostic("warning", f"Could not read {path}: {error}", path))
            continue
        try:
            return ContextFile(path, data.decode("utf-8"))
        except UnicodeDecodeError as error:
            # pi (JavaScript) reads such bytes as U+FFFD and uses the file: so does this.
            line = data.count(b"\n", 0, error.start) + 1
            message = f"{path}:{line}: not valid UTF-8; read with U+FFFD in place of the bad bytes"
            diagnostics.append(ResourceDiagnostic("warning", message, path))
            return ContextFile(path, data.decode("utf-8", "replace"))
    return None


def load_context_files(
    cwd: str, agent_dir: str, diagnostics: list[ResourceDiagnostic] | None = None
) -> list[ContextFile]:
    """The global context file first, then ancestors of ``cwd`` from ``/`` down to ``cwd`` itself.

    The walk does not stop at a git root. A path already loaded is not loaded twice.
    """
    sink = diagnostics if diagnostics is not None else []
    files: list[ContextFile] = []
    seen: set[str] = set()
    global_file = _load_from_dir(agent_dir, sink)
    if global_file is not None:
        files.append(global_file)
        seen.add(global_file.path)
    ancestors: list[ContextFile] = []
    current = os.path.abspath(cwd)
    while True:
        found = _load_from_dir(current, sink)
        if found is not None and found.path not in seen:
            ancestors.insert(0, found)
            seen.add(found.path)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    files.extend(ancestors)
    return files
