"""A package-style local extension: makes the agent talk like a pirate (before_agent_start)."""

from __future__ import annotations

from typing import Any

from pi_core import hookimpl

PIRATE = "Always answer like a pirate would."


@hookimpl
def before_agent_start(event: Any) -> dict[str, Any]:
    return {"systemPrompt": f"{event.system_prompt}\n\n{PIRATE}"}
