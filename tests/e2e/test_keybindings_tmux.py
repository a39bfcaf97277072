"""``keybindings.json`` in the real ``pi``, in a tmux pane: rebound keys act as a person presses
them, a freed default does nothing, and /hotkeys lists the keys as bound, as pi lays it out."""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.e2e.tmux_pane import start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_rebound_keys_act_and_hotkeys_lists_them(pi_env: PiEnv) -> None:
    keys = {
        "tui.editor.cursorLineStart": "alt+a",  # Ctrl+A no longer goes to the line start
        "app.model.select": "f3",
        "tui.altScreen.lineUp": "alt+k",  # no key by default
    }
    (pi_env.agent_dir / "keybindings.json").write_text(json.dumps(keys))
    pane = start_pane(pi_env, tui="fullscreen")
    try:
        pane.wait_for("loop/fake-model  context")
        pane.wait_for_editor()
        pane.type("world")
        pane.keys("C-a")
        pane.type("!")
        pane.keys("M-a")
        pane.type("hello ")
        pane.wait_for("> hello world!")
        pane.keys("C-c")
        pane.wait_for_editor()
        pane.submit("/hotkeys")
        # The fullscreen transcript ends with the Transcript table; Ctrl+Home shows its top.
        assert "Alt+K Transcript a row up / down" in _rows(pane.wait_for("Transcript top / bottom"))
        pane.keys("C-Home")
        top = _rows(pane.wait_for("Keyboard Shortcuts"))
        assert "Alt+A Start of the line" in top and "Home/Ctrl+A Start of the line" not in top
        pane.keys("C-End")
        pane.wait_for(lambda screen: "Keyboard Shortcuts" not in screen)
        pane.keys("F3")
        pane.wait_for("Only showing models from configured providers")
        pane.keys("Escape")
        pane.wait_for_editor()
    finally:
        pane.kill()


def _rows(screen: str) -> set[str]:
    """The screen's rows with the table's borders and runs of spaces squeezed out."""
    return {" ".join(line.replace("│", " ").split()) for line in screen.splitlines()}
