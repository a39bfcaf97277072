"""``.gitignore`` / ``.ignore`` / ``.fdignore`` rules honoured while walking resource directories.

As pi does, the rules of a nested directory are prefixed with that directory's path relative to the
walk's root and added to one matcher shared by the whole walk.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pi_core._files import read_regular

if TYPE_CHECKING:
    import pathspec

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")


def _prefix_pattern(line: str, prefix: str) -> str | None:
    trimmed = line.strip()
    if not trimmed or (trimmed.startswith("#") and not trimmed.startswith("\\#")):
        return None
    pattern = line
    negated = False
    if pattern.startswith("!"):
        negated = True
        pattern = pattern[1:]
    elif pattern.startswith("\\!"):
        pattern = pattern[1:]
    pattern = pattern.removeprefix("/")
    prefixed = prefix + pattern
    return "!" + prefixed if negated else prefixed


class IgnoreMatcher:
    """Accumulated gitignore-style rules for one directory walk."""

    def __init__(self) -> None:
        self._patterns: list[str] = []
        self._spec: pathspec.PathSpec | None = None

    def add_rules_from(self, directory: str, root: str) -> None:
        """Add the ignore files found in ``directory`` (paths relative to ``root``)."""
        relative = os.path.relpath(directory, root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in IGNORE_FILE_NAMES:
            path = os.path.join(directory, name)
            if not os.path.exists(path):
                continue
            try:
                lines = read_regular(path).decode("utf-8").splitlines()  # never waits on a pipe
            except (OSError, UnicodeDecodeError):
                continue  # an unreadable ignore file is skipped, as in pi
            added = [p for p in (_prefix_pattern(line, prefix) for line in lines) if p]
            if added:
                self._patterns.extend(added)
                self._spec = None

    def ignores(self, relative_path: str) -> bool:
        """True if the posix ``relative_path`` (directories end with ``/``) is ignored."""
        if not self._patterns:
            return False
        if self._spec is None:
            import pathspec  # imported on first use: most walks have no ignore files

            self._spec = pathspec.GitIgnoreSpec.from_lines(self._patterns)
        return self._spec.match_file(relative_path)
