"""The real ``pi`` in tmux, both REPL modes: a plugin that swaps the editor for a vim-like modal one
(``ctx.ui.set_editor_component``, the example of docs/extensions.md) as a person uses it — its
mode label drawn on the editor's row, Esc and h/x/i editing in normal mode, Enter submitting what
was typed, and the built-in editor back on ``/plain``."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import text_turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PLUGIN = """
from pi_core import hookimpl
from pi_core.plugins.editor import CustomEditor

MOVES = {"h": "\\x1b[D", "l": "\\x1b[C", "x": "\\x1b[3~"}


class Modal(CustomEditor):
    inserting = True

    def handle_input(self, data):
        if self.inserting and data == "\\x1b":
            self.inserting = False
        elif self.inserting or data not in MOVES and not data.isprintable():
            super().handle_input(data)
        elif data == "i":
            self.inserting = True
        elif data in MOVES:
            super().handle_input(MOVES[data])

    def render(self, width):
        rows = super().render(width)
        rows[-1] += "  -- INSERT --" if self.inserting else "  -- NORMAL --"
        return rows


@hookimpl
def session_start(event, ctx):
    ctx.ui.set_editor_component(lambda tui, theme, keybindings: Modal(tui, theme, keybindings))


def plain(args, ctx):
    ctx.ui.set_editor_component(None)


@hookimpl
def register_commands(register):
    register("plain", plain, description="the built-in editor again")
"""


@pytest.fixture(params=["regular", "fullscreen"])
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "modal.py").write_text(PLUGIN)
    started = start_pane(pi_env, tui=request.param)
    request.addfinalizer(started.kill)
    return started


def _editor_row(screen: str, label: str) -> str:
    """The last row showing ``label`` ("" when there is none yet)."""
    rows = [row for row in screen.splitlines() if label in row]
    return rows[-1] if rows else ""


def test_a_modal_editor_replaces_the_builtin_one(pane: Pane, pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("ANSWER-TO-MODAL"))
    pane.wait_for("-- INSERT --")
    pane.type("hello")
    pane.wait_for(lambda s: "> hello" in _editor_row(s, "-- INSERT --"))
    pane.keys("Escape")
    pane.wait_for("-- NORMAL --")
    pane.type("hhx")  # left twice, then delete the character under the cursor
    pane.wait_for(lambda s: "> helo" in _editor_row(s, "-- NORMAL --"))
    pane.type("qz")  # printable keys type nothing in normal mode
    pane.type("i!")
    pane.wait_for(lambda s: "> hel!o" in _editor_row(s, "-- INSERT --"))
    pane.keys("Enter")
    screen = pane.wait_for("ANSWER-TO-MODAL", 20)
    assert "hel!o" in screen and "Traceback" not in screen
    assert "hel!o" in str(pi_env.server.requests[0].body)
    pane.wait_for(lambda s: _editor_row(s, "-- INSERT --").strip().startswith(">"))
    pane.submit("/plain")
    pane.wait_for(lambda s: not any("-- INSERT --" in row for row in s.splitlines()[-8:]))
    pane.type("plain text")
    screen = pane.wait_for("> plain text")
    assert "-- INSERT --" not in _editor_row(screen, "> plain text")
