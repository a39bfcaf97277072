"""Block writes and edits to sensitive paths (.env, .git/, node_modules/), as pi's protected-paths example."""

from __future__ import annotations

from typing import Any

from pi_core import hookimpl

PROTECTED = (".env", ".git/", "node_modules/")


@hookimpl
def tool_call(event: Any, ctx: Any) -> dict[str, Any] | None:
    if event.tool_name not in ("write", "edit"):
        return None
    path = str(event.input.get("path", ""))
    hit = next((p for p in PROTECTED if p in path), None)
    if hit is None:
        return None
    if ctx.has_ui:
        ctx.ui.notify(f"Blocked {event.tool_name} to protected path {path}", "warning")
    return {"block": True, "reason": f"Path {path!r} is protected ({hit})"}
