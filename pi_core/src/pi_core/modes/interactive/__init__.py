"""The interactive REPL (``pi`` on a terminal): prompt-toolkit input, rich output.

Importing this package is cheap; prompt_toolkit and rich are imported when the REPL starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_core.runtime.host import RuntimeHost


async def run_interactive(
    host: RuntimeHost,
    initial_message: str | None,
    images: Sequence[Any] | None = None,
    messages: Sequence[str] = (),
    *,
    verbose: bool = False,
) -> int:
    """Run the REPL on the host's session until the user quits; returns the exit status.

    Plugin shortcuts and message renderers come from ``host.plugins`` (again after ``/reload``).
    """
    from pi_core.modes.interactive.app import InteractiveMode

    mode = InteractiveMode(host, verbose=verbose)
    return await mode.run(initial_message, list(images or []), list(messages))
