"""Which shell runs bash commands, its environment, and killing a command's whole process tree."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys

from pi_core.agent.tools import ToolError


def shell_command(shell_path: str | None = None) -> list[str]:
    """``[shell, "-c"]``: a configured shell, else /bin/bash, else bash on PATH, else sh."""
    if shell_path:
        if not os.path.exists(shell_path):
            raise ToolError(f"Custom shell path not found: {shell_path}")
        return [shell_path, "-c"]
    if os.path.exists("/bin/bash"):
        return ["/bin/bash", "-c"]
    found = shutil.which("bash")
    return [found or "sh", "-c"]


def shell_env(extra_bin_dirs: list[str] | None = None) -> dict[str, str]:
    """The process environment with pi's binary directories put in front of PATH."""
    env = dict(os.environ)
    path = env.get("PATH", "")
    parts = path.split(os.pathsep) if path else []
    for directory in reversed(extra_bin_dirs or []):
        if directory and directory not in parts:
            parts.insert(0, directory)
    env["PATH"] = os.pathsep.join(parts)
    return env


def kill_process_tree(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (the command and everything it started)."""
    if sys.platform == "win32":  # pragma: no cover - the port targets POSIX first
        os.system(f"taskkill /F /T /PID {pid}")
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
