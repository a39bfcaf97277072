"""Where a skill or prompt template came from (pi's ``sourceInfo``, shown by RPC ``get_commands``)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pi_core._model import PiModel
from pi_core.runtime.resources.paths import is_under


class SourceInfo(PiModel):
    """``{path, source, scope, origin, baseDir?}`` exactly as pi reports it.

    ``source`` is ``auto`` (discovered), ``local`` (settings entry or explicit path) or
    ``extension:<name>`` (added by a ``resources_discover`` hook); ``scope`` is ``user``,
    ``project`` or ``temporary``.
    """

    path: str
    source: str
    scope: str
    origin: str = "top-level"
    base_dir: str | None = None

    def for_path(self, path: str) -> SourceInfo:
        """The same origin, reported for a file found under this source's path."""
        return self.model_copy(update={"path": path})


def find_source_info(
    path: str,
    extension_infos: Mapping[str, SourceInfo],
    resolved_infos: Mapping[str, SourceInfo],
) -> SourceInfo | None:
    """pi's lookup: hook-contributed paths first (exact or parent), then resolved files (exact, parent)."""
    normalized = os.path.normpath(path)
    for source_path, info in extension_infos.items():
        if is_under(normalized, os.path.normpath(source_path)):
            return info.for_path(path)
    exact = resolved_infos.get(normalized) or resolved_infos.get(path)
    if exact is not None:
        return exact.for_path(path)
    for source_path, info in resolved_infos.items():
        if is_under(normalized, os.path.normpath(source_path)):
            return info.for_path(path)
    return None
