"""The project's files and directories for ``@`` completion, searched fuzzily (pi uses ``fd``).

The walk honours ``.gitignore``/``.ignore``/``.fdignore`` (as pi's fd does), includes hidden entries,
skips ``.git``, follows symlinks once per real directory, and stops at :data:`MAX_ENTRIES`. It
runs in a thread the first time ``@`` is typed and again when the list is older than
:data:`MAX_AGE_SECONDS`; until it is ready, completion lists the typed directory instead.

A query matches a path that holds its characters in order (``mdl`` finds ``src/models.py``).
Candidates are found by one regular expression over all paths joined by newlines, so typing
stays quick on tens of thousands of files; the best are ranked: the query inside the file name,
then inside the path, then shorter paths first.
"""

from __future__ import annotations

import os
import re
import threading
import time

from pi_core.runtime.resources.ignore_rules import IgnoreMatcher

MAX_ENTRIES = 100_000
MAX_AGE_SECONDS = 30.0
#: How many regex matches are ranked at most (the rest are worse by construction: found later).
RANK_LIMIT = 5_000


class FileIndex:
    def __init__(self, root: str) -> None:
        self.root = root
        self._joined = ""
        self._built_at: float | None = None
        self._building = False
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        return self._built_at is not None

    def refresh_if_stale(self) -> None:
        """Start a rebuild in the background when there is none or it is old; never blocks."""
        with self._lock:
            fresh = self._built_at is not None and time.monotonic() - self._built_at < MAX_AGE_SECONDS
            if fresh or self._building:
                return
            self._building = True
        threading.Thread(target=self._build, name="pi-file-index", daemon=True).start()

    def build_now(self) -> None:
        """Build in this thread (tests, and callers that can wait)."""
        with self._lock:
            self._building = True
        self._build()

    def _build(self) -> None:
        try:
            paths = walk_project(self.root)
            joined = "\n".join(paths)
            with self._lock:
                self._joined = joined
                self._built_at = time.monotonic()
        finally:
            with self._lock:
                self._building = False

    def search(self, query: str, limit: int = 100) -> list[str]:
        """The best ``limit`` paths holding the characters of ``query`` in order."""
        joined = self._joined
        if not query:
            return joined.split("\n")[:limit] if joined else []
        gap = "[^\n]*?"
        pattern = re.compile("^[^\n]*?" + gap.join(re.escape(c) for c in query) + "[^\n]*$", re.M | re.I)
        found: list[str] = []
        for match in pattern.finditer(joined):
            found.append(match.group(0))
            if len(found) >= RANK_LIMIT:
                break
        lowered = query.lower()
        return sorted(found, key=lambda path: _rank(path, lowered))[:limit]


def _rank(path: str, query: str) -> tuple[int, int, str]:
    lowered = path.lower()
    name = lowered.rstrip("/").rsplit("/", 1)[-1]
    if query in name:
        tier = 0
    elif query in lowered:
        tier = 1
    else:
        tier = 2
    return tier, len(path), path


def walk_project(root: str, limit: int = MAX_ENTRIES) -> list[str]:
    """Relative posix paths under ``root`` (directories end with ``/``), ignore files honoured."""
    matcher = IgnoreMatcher()
    out: list[str] = []
    seen: set[str] = set()
    for directory, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(directory)
        if real in seen:  # a symlink loop or a second link to the same place
            dirs[:] = []
            continue
        seen.add(real)
        matcher.add_rules_from(directory, root)
        relative = os.path.relpath(directory, root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        kept = [d for d in sorted(dirs) if d != ".git" and not matcher.ignores(prefix + d + "/")]
        dirs[:] = kept
        out.extend(prefix + d + "/" for d in kept)
        out.extend(prefix + f for f in sorted(files) if not matcher.ignores(prefix + f))
        if len(out) >= limit:
            return out[:limit]
    return out


def quote_path(path: str) -> str:
    """How a path is inserted after ``@``: as is, or ``"…"`` when it holds spaces (pi's form)."""
    return f'"{path}"' if " " in path else path
