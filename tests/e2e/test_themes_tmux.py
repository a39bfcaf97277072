"""The real ``pi`` in tmux: /settings → Theme previews the theme under the highlight, saves the
choice, and the REPL's own colours follow it — read from the screen with its colour escapes
(``capture-pane -e``), in both REPL modes. tmux offers no 24-bit colour here, so the colours are
the 256-colour entries pi picks."""

from __future__ import annotations

import json
import re
import shutil
import time
from typing import TYPE_CHECKING

import pytest
from pi_core.runtime.themes import Theme

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _index(theme: str, role: str) -> str:
    """The SGR parameters of a role's foreground on a 256-colour terminal (``38;5;N``)."""
    return Theme(theme, mode="256color").fg(role, "")[2:-1].split("m")[0]


def coloured(pane: Pane) -> str:
    return pane.tmux("capture-pane", "-p", "-e", "-t", "pi")


_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def foreground_at(screen: str, text: str) -> str | None:
    """The foreground (``38;5;N``, ``None`` for the default) where ``text`` starts on the screen.
    tmux writes a colour only where it changes, also from one line to the next, so the escapes
    are followed from the top."""
    colour: str | None = None
    position = 0
    plain = ""
    for match in _SGR.finditer(screen):
        plain += screen[position : match.start()]
        if text in plain:
            return colour
        position = match.end()
        parameters = match[1].split(";") if match[1] else ["0"]
        index = 0
        while index < len(parameters):
            if parameters[index] in ("0", "39"):
                colour = None
            elif parameters[index] == "38" and parameters[index + 1 : index + 2] == ["5"]:
                colour = f"38;5;{parameters[index + 2]}"
                index += 2
            elif parameters[index] in ("48", "58") and parameters[index + 1 : index + 2] == ["5"]:
                index += 2
            index += 1
    return colour if text in plain + screen[position:] else None


def wait_colour(pane: Pane, text: str, sgr: str, timeout: float = 20) -> None:
    """Wait until ``text`` is on the screen in the colour ``sgr`` (``38;5;N``)."""
    deadline = time.monotonic() + timeout
    while (found := foreground_at(coloured(pane), text)) != sgr:
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} is drawn in {found}, not {sgr}:\n{pane.screen()}")
        time.sleep(0.1)


@pytest.fixture(params=["regular", "fullscreen"])
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    (pi_env.agent_dir / "settings.json").write_text(json.dumps({"theme": "dark"}))
    started = start_pane(pi_env, tui=request.param)
    request.addfinalizer(started.kill)
    return started


def test_the_theme_picker_previews_saves_and_recolours_the_repl(pane: Pane, pi_env: PiEnv) -> None:
    assert _index("dark", "accent") != _index("light", "accent")
    pane.wait_for_editor()
    pane.submit("/settings")
    pane.wait_for("Type to search")  # the Theme row may be out of the ten in view
    pane.type("Theme")
    pane.wait_for(lambda s: re.search(r"→ Theme +dark", s) is not None)  # /settings searches
    pane.keys("Enter")
    pane.wait_for("automatic")
    # The highlighted row is drawn in the theme's accent colour: dark's while dark is saved …
    wait_colour(pane, "→ ✓ dark", _index("dark", "accent"))
    pane.keys("Down")  # the theme list moves, it does not filter
    # … and light's as soon as the highlight is on light: the preview.
    wait_colour(pane, "→   light", _index("light", "accent"))
    pane.keys("Enter")
    # Saved, and the settings list is back in light's colours, on the Theme row.
    pane.wait_for(lambda s: re.search(r"→ Theme +light", s) is not None)
    wait_colour(pane, "→ Theme", _index("light", "accent"))
    assert json.loads((pi_env.agent_dir / "settings.json").read_text())["theme"] == "light"
    pane.keys("Escape")
    pane.wait_for_editor()
    # The REPL's own lines take light's colours too: a note in its dim colour.
    pane.keys("C-c")
    wait_colour(pane, "Press Ctrl+C again to exit", _index("light", "dim"))
