"""The active theme's file, read again when it changes (pi hot-reloads a user theme).

As pi, only ``<agent-dir>/themes/<name>.json`` of the theme in use is watched: other themes are
read again on ``/reload``. The file's size and modification time are compared twice a second (one
``stat`` in a thread, no reading); a change is read after the editor has had a moment to finish
writing. A file that does not read (half written, broken, gone) keeps the last good colours.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from pi_core.runtime import themes
from pi_core.runtime.colors import ColorMode

#: Seconds between two looks at the file.
POLL_INTERVAL = 0.5
#: Seconds a change is left to settle before the file is read (pi waits 0.1 s).
SETTLE = 0.1


def watched_file(agent_dir: str, name: str) -> Path | None:
    """The file pi would watch for the theme ``name`` (``None`` for a built-in theme)."""
    if name in (*themes.BUILTIN, themes.SYSTEM):
        return None
    return Path(agent_dir) / "themes" / f"{name}.json"


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


async def watch_theme(
    current: Callable[[], str | None],
    agent_dir: str,
    mode: Callable[[], ColorMode],
    changed: Callable[[themes.Theme], None],
) -> None:
    """Until cancelled: when the file of the theme ``current()`` names changes and reads, call
    ``changed`` with the theme read from it."""
    watching: Path | None = None
    seen: tuple[int, int] | None = None
    while True:
        await asyncio.sleep(POLL_INTERVAL)
        name = current()
        path = watched_file(agent_dir, name) if name else None
        if path != watching:
            watching, seen = path, (await asyncio.to_thread(_signature, path) if path is not None else None)
            continue
        if path is None:
            continue
        signature = await asyncio.to_thread(_signature, path)
        if signature is None or signature == seen:
            continue
        await asyncio.sleep(SETTLE)
        seen = await asyncio.to_thread(_signature, path)
        try:
            theme = await asyncio.to_thread(themes.read_file, str(path), mode())
        except themes.ThemeError:
            continue
        if theme.name == name:
            changed(theme)
