"""Keys typed while an answer streams, in the real ``pi`` in tmux (both TUI modes): each shows in
the editor as it is typed (characters are drawn by redrawing the editor alone, the rest follows),
the line wraps and takes a Backspace, and neither the answer nor the editor is left garbled."""

from __future__ import annotations

import shutil
import time
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Turn

from tests.e2e.tmux_pane import start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TYPED = "typed while it streams, " * 6 + "end!"  # 148 characters: past the 120 columns, it wraps


def _editor_rows(screen: str) -> str:
    """The editor's text as shown: from its prompt (busy or idle) on, the wrapped rows joined."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("… typed", "> typed")))
    rows = [lines[start][2:]]
    for line in lines[start + 1 :]:
        if not line.startswith(("  ", ". ")) or not line[2:].strip():
            break
        rows.append(line[2:])
    return "".join(rows).rstrip()


@pytest.mark.parametrize("tui", ["regular", "fullscreen"])
def test_keys_typed_while_an_answer_streams_show_as_typed(pi_env: PiEnv, tui: str) -> None:
    pi_env.server.add(Turn(blocks=[Text("alpha " + "tok " * 900 + "\n\nomega", chunks=900)], delay=0.01))
    pane = start_pane(pi_env, tui=tui)
    try:
        pane.wait_for_editor()
        pane.type("go")
        pane.keys("Enter")
        pane.wait_for("tok tok tok")
        for index, letter in enumerate(TYPED):
            pane.type(letter)
            if index % 24 == 23:  # now and then, until it shows
                so_far = TYPED[: index + 1].rstrip()
                pane.wait_for(lambda s, upto=so_far: upto in _joined(s), timeout=5, poll=0.01)
            time.sleep(0.005)
        screen = pane.wait_for(lambda s: "working" in s and _joined(s) == TYPED, timeout=5)
        assert "omega" not in screen  # still streaming when the last key showed
        pane.keys("BSpace")
        pane.wait_for(lambda s: _joined(s) == TYPED[:-1], timeout=5)
        final = pane.wait_for("omega", timeout=30)
        assert "tok tok" in final and _joined(final) == TYPED[:-1]
    finally:
        pane.kill()


def _joined(screen: str) -> str:
    try:
        return _editor_rows(screen)
    except StopIteration:
        return ""
