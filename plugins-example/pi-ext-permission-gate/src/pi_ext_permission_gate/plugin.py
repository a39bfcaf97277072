"""Ask before a dangerous bash command runs; block it where nobody can answer (print/JSON mode).

Dangerous: ``rm -r``/``rm -f``/``rm --recursive``, ``sudo``, ``chmod``/``chown`` with 777, ``mkfs``,
``dd of=``, a ``git push --force``, and redirections into ``/dev/sd*``. Add your own patterns with
``--permission-gate-extra 'regex1;regex2'``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pi_core.plugins.context import ExtensionContext
from pi_core.plugins.events import ToolCallEvent, ToolCallResult

from pi_core import hookimpl

DANGEROUS = (
    r"\brm\s+(-[a-z]*[rf][a-z]*|--recursive|--force)\b",
    r"\bsudo\b",
    r"\b(chmod|chown)\b.*\b777\b",
    r"\bmkfs(\.\w+)?\b",
    r"\bdd\b.*\bof=",
    r"\bgit\s+push\b.*(--force\b|\s-f\b)",
    r">\s*/dev/sd[a-z]",
)


def patterns(extra: str | None) -> list[re.Pattern[str]]:
    texts = [*DANGEROUS, *(part for part in (extra or "").split(";") if part.strip())]
    return [re.compile(text, re.IGNORECASE) for text in texts]


def dangerous(command: str, extra: str | None = None) -> str | None:
    """The first pattern ``command`` matches, or ``None``."""
    return next((p.pattern for p in patterns(extra) if p.search(command)), None)


@hookimpl
def register_flags(register: Callable[..., None]) -> None:
    register("permission-gate-extra", type="string", description="More dangerous patterns, ';'-separated")


@hookimpl
async def tool_call(event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
    if event.tool_name != "bash":
        return None
    command = str(event.input.get("command", ""))
    if dangerous(command, ctx.get_flag("permission-gate-extra")) is None:
        return None
    if not ctx.has_ui:
        return ToolCallResult(block=True, reason="Dangerous command blocked (no UI to confirm it)")
    choice = await ctx.ui.select(
        f"Dangerous command:\n\n  {command}\n\nRun it?", ["Yes", "No"], signal=ctx.signal
    )
    if choice != "Yes":
        return ToolCallResult(block=True, reason="Blocked by the user")
    return None
