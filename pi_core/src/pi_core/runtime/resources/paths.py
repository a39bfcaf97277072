"""Where pi keeps its files, and how resource paths are expanded and resolved."""

from __future__ import annotations

import os
from pathlib import Path

from pi_core._paths import agent_dir

#: The per-project configuration directory (``<cwd>/.pi``).
CONFIG_DIR_NAME = ".pi"


def home_dir() -> Path:
    """The user's home directory (``$HOME`` first, as pi's resource discovery does)."""
    return Path(os.environ.get("HOME") or Path.home())


def expand_home(value: str) -> str:
    """Expand a leading ``~`` the way pi does: ``~``, ``~/x`` and also ``~x`` (joined onto home)."""
    trimmed = value.strip()
    if trimmed == "~":
        return str(home_dir())
    if trimmed.startswith("~/"):
        return os.path.join(home_dir(), trimmed[2:])
    if trimmed.startswith("~"):
        return os.path.join(home_dir(), trimmed[1:])
    return trimmed


def resolve_path(value: str, base: str | os.PathLike[str]) -> str:
    """Expand ``~`` and make ``value`` absolute against ``base``, normalised like Node's path.resolve."""
    expanded = expand_home(value)
    return os.path.normpath(os.path.join(os.fspath(base), expanded))


def get_agent_dir() -> Path:
    """``PI_CODING_AGENT_DIR`` (with ``~`` expanded) or ``~/.pi/agent``."""
    return agent_dir()


def canonical(path: str) -> str:
    """The real path (symlinks followed), or the path itself when it cannot be resolved."""
    try:
        return os.path.realpath(path, strict=True)
    except OSError:
        return path


def file_identity(path: str) -> tuple[int, int] | str:
    """What makes two paths the same file: device and inode (symlinks followed), else the path.

    Equivalent to comparing real paths, without resolving every path component.
    """
    try:
        stat = os.stat(path)
    except OSError:
        return path
    return (stat.st_dev, stat.st_ino)


def is_under(target: str, root: str) -> bool:
    """True if ``target`` is ``root`` or lies inside it (both absolute)."""
    root = os.path.normpath(root)
    if target == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return target.startswith(prefix)
