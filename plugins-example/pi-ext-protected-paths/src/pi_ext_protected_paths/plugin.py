"""Refuse ``write`` and ``edit`` on protected paths; the model gets the reason as the tool's error.

Protected by default: ``.env`` files, ``.git/``, ``node_modules/``, private keys. More with
``--protected-paths 'glob1,glob2'`` (``fnmatch`` globs against the path relative to the project).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable

from pi_core.plugins.context import ExtensionContext
from pi_core.plugins.events import ToolCallEvent, ToolCallResult

from pi_core import hookimpl

DEFAULT = (".env", ".env.*", "*/.env", "*/.env.*", ".git/*", "*/.git/*", "node_modules/*", "*/node_modules/*")
DEFAULT_NAMES = ("id_rsa", "id_ed25519", "*.pem", "*.key")
GUARDED_TOOLS = ("write", "edit")


def protected(path: str, cwd: str, extra: str | None = None) -> str | None:
    """The glob ``path`` falls under (relative to ``cwd``), or ``None``."""
    absolute = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    relative = os.path.relpath(absolute, cwd).replace(os.sep, "/")
    globs = [*DEFAULT, *(g.strip() for g in (extra or "").split(",") if g.strip())]
    for glob in globs:
        if fnmatch.fnmatch(relative, glob):
            return glob
    name = os.path.basename(absolute)
    return next((glob for glob in DEFAULT_NAMES if fnmatch.fnmatch(name, glob)), None)


@hookimpl
def register_flags(register: Callable[..., None]) -> None:
    register("protected-paths", type="string", description="More protected globs, comma-separated")


@hookimpl
def tool_call(event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
    if event.tool_name not in GUARDED_TOOLS:
        return None
    path = str(event.input.get("path", ""))
    hit = protected(path, ctx.cwd, ctx.get_flag("protected-paths"))
    if hit is None:
        return None
    if ctx.has_ui:
        ctx.ui.notify(f"Blocked {event.tool_name} of protected path {path}", "warning")
    return ToolCallResult(block=True, reason=f"Path {path!r} is protected ({hit}); leave it unchanged")
