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
    tui_mode: str | None = None,
    use_theme: str | None = None,
) -> int:
    """Run the REPL on the host's session until the user quits; returns the exit status.

    ``tui_mode`` (``--tui-mode``) or else the ``tuiMode`` setting picks the fullscreen application
    or the inline REPL; fullscreen needs a terminal that can draw it (:func:`fullscreen_capable`).
    Plugin shortcuts and message renderers come from ``host.plugins`` (again after ``/reload``).
    ``use_theme`` (``--use-theme``) stands in for the ``theme`` setting until a theme is chosen.
    """
    from pi_core.modes.interactive.app import InteractiveMode

    wanted = tui_mode or host.session.settings.settings.tui_mode
    if wanted == "fullscreen" and fullscreen_capable():
        from pi_core.modes.interactive.fullscreen import FullscreenMode

        mode: InteractiveMode = FullscreenMode(host, verbose=verbose)
    else:
        mode = InteractiveMode(host, verbose=verbose)
    mode.ui.theme_for_run = use_theme or None
    return await mode.run(initial_message, list(images or []), list(messages))


def fullscreen_capable() -> bool:
    """A terminal on both ends that is not ``dumb`` and has room for a transcript and an editor."""
    import os
    import shutil
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    if os.environ.get("TERM", "") in ("", "dumb", "unknown"):
        return False
    size = shutil.get_terminal_size((0, 0))
    return size.columns >= 20 and size.lines >= 8
