"""Replacing a small file whole: settings.json, auth.json, the trust store, the flag cache.

Standard library only (the CLI's fast paths use it).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def replace_file(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    A full disk or a crash half-way leaves the old file whole instead of a truncated one, and a
    reader never sees half a file. A symlinked file (a dotfiles checkout) is written where the link
    points, so the link stays. ``mode`` is the new file's permission bits; without it the old
    file's are kept (``0o644`` for a new file).
    """
    path = path.resolve() if path.is_symlink() else path
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if mode is None:
            mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
