"""The plugin names of the example distributions in ``plugins-example/``, read from their pyproject files.

A full workspace sync (``uv sync --all-packages``) installs every one of them, so the end-to-end
runs block them all (``PI_DISABLED_PLUGINS``) and load only what a test sets up itself. A new
example folder is blocked without anyone having to add it to a list.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "plugins-example"


def _entry_point_names() -> tuple[str, ...]:
    names: list[str] = []
    for pyproject in sorted(EXAMPLES.glob("pi-ext-*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text())["project"]
        names.extend(project.get("entry-points", {}).get("pi", {}))
    return tuple(names)


#: Every entry-point name (group ``pi``) that the example distributions declare.
EXAMPLE_PLUGINS = _entry_point_names()


def disabled_plugins(*more: str) -> str:
    """The value of ``PI_DISABLED_PLUGINS`` that blocks ``more`` and every example plugin."""
    return ",".join([*more, *EXAMPLE_PLUGINS])
