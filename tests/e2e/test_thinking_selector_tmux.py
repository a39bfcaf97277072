"""/thinking in the real ``pi`` in a tmux pane, both TUI modes: pi 1.6.0's thinking selector."""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.e2e.tmux_pane import start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.mark.parametrize("tui", ["regular", "fullscreen"])
def test_thinking_selector_lists_the_models_levels(pi_env: PiEnv, tui: str) -> None:
    """The levels the model offers (``xhigh`` and ``max`` where its map names them, not the
    ``minimal`` it maps to null), the one in use highlighted; typing searches, Enter applies,
    Ctrl+S saves ``defaultThinkingLevel``, Esc closes it."""
    models = json.loads((pi_env.agent_dir / "models.json").read_text())
    level_map = {"xhigh": "x", "max": "m", "minimal": None}
    deep = {"id": "fake-deep", "reasoning": True, "thinkingLevelMap": level_map}
    models["providers"]["loopa"]["models"].append(deep)
    (pi_env.agent_dir / "models.json").write_text(json.dumps(models))
    pane = start_pane(pi_env, tui=tui, model="loopa/fake-deep")
    try:
        pane.wait_for_editor()
        pane.submit("/thinking")
        screen = pane.wait_for("to set as default")
        listed = screen.split("Thinking Level")[-1]
        assert "Shift+Tab cycles thinking levels in-session" in listed
        assert "→ ✓ medium" in listed and "· default" in listed.split("→ ✓ medium")[1].splitlines()[0]
        for level in ("off", "low", "high", "xhigh", "max"):
            assert any(line.startswith(f"    {level} ") for line in listed.splitlines()), level
        assert "minimal" not in listed
        assert "  Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel" in listed
        pane.type("max")
        pane.wait_for(lambda s: "→   max" in s.split("Thinking Level")[-1])
        pane.keys("Enter")
        pane.wait_for(lambda s: "Thinking level: max" in s and "to set as default" not in pane.visible())
        pane.wait_for("thinking max")
        pane.wait_for_editor()
        pane.submit("/thinking")
        pane.wait_for(lambda s: "→ ✓ max" in pane.visible())
        pane.keys("Up")
        pane.wait_for(lambda s: "→   xhigh" in pane.visible())
        pane.keys("C-s")
        pane.wait_for("Default thinking level: xhigh")
        settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
        assert settings["defaultThinkingLevel"] == "xhigh"
        pane.wait_for_editor()
        pane.submit("/thinking")
        pane.wait_for(lambda s: "→ ✓ xhigh" in pane.visible())
        pane.keys("Escape")
        pane.wait_for(lambda s: "to set as default" not in pane.visible())
        pane.wait_for_editor()
        pane.submit("/thinking minimal")
        refused = 'Unknown thinking level "minimal". Available levels: off, low, medium, high, xhigh, max.'
        pane.wait_for(refused)
    finally:
        pane.kill()
