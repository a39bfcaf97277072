"""The interactive REPL (``pi`` on a terminal): prompt-toolkit input, rich output.

Importing this package is cheap; prompt_toolkit and rich are imported when the REPL starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_core.plugins.registry import ShortcutSpec
    from pi_core.runtime.host import RuntimeHost


async def run_interactive(
    host: RuntimeHost,
    initial_message: str | None,
    images: Sequence[Any] | None = None,
    messages: Sequence[str] = (),
    *,
    shortcuts: Mapping[str, ShortcutSpec] | None = None,
    message_renderers: Mapping[str, Callable[..., Any]] | None = None,
) -> int:
    """Run the REPL on the host's session until the user quits; returns the exit status.

    ``shortcuts`` (key → spec) and ``message_renderers`` (custom type → render) are what plugins
    registered with ``register_shortcuts`` / ``register_message_renderers``.
    """
    from pi_core.modes.interactive.app import InteractiveMode

    mode = InteractiveMode(host, shortcuts=shortcuts, message_renderers=message_renderers)
    return await mode.run(initial_message, list(images or []), list(messages))
