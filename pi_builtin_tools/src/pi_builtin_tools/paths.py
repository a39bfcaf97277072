"""How tools turn the model's path strings into absolute paths, the way pi does.

Models copy ``@file`` mentions and sometimes type odd Unicode spaces; paths are resolved against the
session's working directory (``ctx.cwd``), never the process's.
"""

from __future__ import annotations

import os
import re
import unicodedata

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)


def expand_path(path: str) -> str:
    """Strip one leading ``@``, turn special spaces into spaces, expand ``~`` and ``~/``."""
    if path.startswith("@"):
        path = path[1:]
    path = _UNICODE_SPACES.sub(" ", path)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.expanduser("~") + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """Absolute, normalised path; relative paths are taken from ``cwd``."""
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(os.path.join(cwd, expanded))


def resolve_read_path(path: str, cwd: str) -> str:
    """``resolve_to_cwd``, then the macOS file-name variants pi tries when that file is missing."""
    resolved = resolve_to_cwd(path, cwd)
    if os.path.lexists(resolved):
        return resolved
    nfd = unicodedata.normalize("NFD", resolved)
    variants = (
        _AM_PM.sub(lambda m: f"\u202f{m.group(1)}.", resolved),
        nfd,
        resolved.replace("'", "\u2019"),
        nfd.replace("'", "\u2019"),
    )
    for variant in variants:
        if variant != resolved and os.path.lexists(variant):
            return variant
    return resolved
