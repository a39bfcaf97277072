"""The real ``pi`` in tmux: a plugin's overlay placed by pi's ``overlay_options`` — anchored to the
top-right corner, 30 columns wide, one row and column in from the edges — while an answer streams
under it (fullscreen); regular mode shows it in the editor's place and calls no ``on_handle``."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PLUGIN = """
from pi_core import hookimpl


class Corner:
    def __init__(self, keys, done):
        self.keys, self.done = keys, done

    def render(self, width):
        return ["PLACED-BOX".ljust(width, "."), "Esc closes".ljust(width, ".")]

    def handle_input(self, data):
        if self.keys.matches(data, "tui.select.cancel"):
            self.done("closed")


async def place(args, ctx):
    handles = []
    value = await ctx.ui.custom(
        lambda tui, theme, keys, done: Corner(keys, done),
        overlay=True,
        overlay_options={"anchor": "top-right", "width": 30, "margin": 1},
        on_handle=handles.append,
    )
    ctx.ui.notify(f"PLACED-GAVE {value} handles={len(handles)}")


@hookimpl
def register_commands(register):
    register("place", place, description="an overlay in the top-right corner")
"""

COLUMNS = 120


def _install(pi_env: PiEnv) -> None:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "corner.py").write_text(PLUGIN)


def _box_rows(screen: str) -> list[tuple[int, int]]:
    """(row, column) where each row of the box starts on the visible screen."""
    rows = screen.splitlines()[-40:]
    return [
        (number, row.index(marker))
        for number, row in enumerate(rows)
        for marker in ("PLACED-BOX", "Esc closes")
        if marker in row
    ]


@pytest.fixture
def fullscreen(pi_env: PiEnv) -> Pane:
    _install(pi_env)
    return start_pane(pi_env, tui="fullscreen")


def test_an_overlay_goes_where_its_options_put_it(fullscreen: Pane, pi_env: PiEnv) -> None:
    pane = fullscreen
    try:
        words = " ".join(f"word{n}" for n in range(400))
        pi_env.server.add(Turn(blocks=[Text(words, chunks=200)], delay=0.03))
        pane.wait_for_editor()
        pane.submit("stream something")
        pane.wait_for("word1 ")
        pane.submit("/place")
        screen = pane.wait_for(lambda s: len(_box_rows(s)) == 2)
        assert _box_rows(screen) == [(1, COLUMNS - 31), (2, COLUMNS - 31)]
        screen = pane.wait_for("word399", 30)  # the answer went on streaming under the box
        assert _box_rows(screen) == [(1, COLUMNS - 31), (2, COLUMNS - 31)]
        pane.keys("Escape")
        screen = pane.wait_for("PLACED-GAVE closed handles=1")
        assert not _box_rows(screen) and "Traceback" not in screen
    finally:
        pane.kill()


def test_regular_mode_shows_an_overlay_in_the_editor_place(pi_env: PiEnv) -> None:
    _install(pi_env)
    pane = start_pane(pi_env, tui="regular")
    try:
        pane.wait_for_editor()
        pane.submit("/place")
        pane.wait_for("PLACED-BOX")
        pane.keys("Escape")
        screen = pane.wait_for("PLACED-GAVE closed handles=0")
        assert "Traceback" not in screen
    finally:
        pane.kill()
