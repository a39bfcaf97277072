"""A theme set-up for the end-to-end runs: a theme file, the ``theme`` setting and a plugin that
says which theme ``ctx.ui`` gave it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pi_core.runtime

if TYPE_CHECKING:
    from tests.e2e.conftest import PiEnv

THEME_PLUGIN = """
from pi_core import hookimpl


@hookimpl
def session_start(event, ctx):
    ctx.ui.notify(f"theme={ctx.ui.theme.name} accent={ctx.ui.theme.color('accent')}", "info")
"""


def write_theme_setup(pi_env: PiEnv, setting: str) -> Path:
    """Settings naming ``setting`` as the theme, a theme file ``sea`` (accent #008080) in the
    agent dir, and the plugin that says which theme ``ctx.ui`` has; the plugin's path."""
    themes = pi_env.agent_dir / "themes"
    themes.mkdir()
    light = Path(pi_core.runtime.__file__).with_name("builtin_themes") / "light.json"
    sea = json.loads(light.read_text(encoding="utf-8"))
    sea["name"], sea["colors"]["accent"] = "sea", "#008080"
    (themes / "sea.json").write_text(json.dumps(sea), encoding="utf-8")
    (pi_env.agent_dir / "settings.json").write_text(json.dumps({"theme": setting}), encoding="utf-8")
    plugin = pi_env.root / "theme_plugin.py"
    plugin.write_text(THEME_PLUGIN, encoding="utf-8")
    return plugin


def sea_where_pi_does_not_look(pi_env: PiEnv) -> list[str]:
    """Theme ``sea`` in the project, in a ``themes`` setting's folder and in a ``--theme`` file,
    none in the agent folder; the ``--theme`` arguments."""
    sea = (pi_env.agent_dir / "themes" / "sea.json").read_text(encoding="utf-8")
    (pi_env.agent_dir / "themes" / "sea.json").unlink()
    for folder in (pi_env.project / ".pi" / "themes", pi_env.root / "listed", pi_env.root / "flagged"):
        folder.mkdir(parents=True)
        (folder / "sea.json").write_text(sea, encoding="utf-8")
    settings = {"theme": "sea", "themes": [str(pi_env.root / "listed")]}
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return ["--theme", str(pi_env.root / "flagged" / "sea.json")]
