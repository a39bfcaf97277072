"""The real ``pi`` in tmux, fullscreen: a plugin's dialog opened by a command while an answer
streams is drawn in the editor's place over the live application, as pi 1.6.0 draws it — the
answer goes on growing above the open list, the seconds left count down, the keys are the
list's, and the editor comes back with its text once the choice is made."""

from __future__ import annotations

import re
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


async def colour(args, ctx):
    picked = await ctx.ui.select("Pick a colour", ["red", "green", "blue"], timeout=60000)
    ctx.ui.notify(f"COLOUR-PICKED {picked}")


async def name(args, ctx):
    typed = await ctx.ui.input("Your name", "someone")
    sure = await ctx.ui.confirm("Sure?", "really sure")
    ctx.ui.notify(f"ASKED {typed} {sure}")


@hookimpl
def register_commands(register):
    register("colour", colour, description="pick a colour")
    register("askname", name, description="ask a name")


@hookimpl
def register_shortcuts(register):
    register("ctrl+t", lambda ctx: colour("", ctx), description="pick a colour")
"""


@pytest.fixture
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "asking.py").write_text(PLUGIN)
    started = start_pane(pi_env, tui="fullscreen")
    request.addfinalizer(started.kill)
    return started


def _last_word(screen: str) -> int:
    numbers = [int(n) for n in re.findall(r"word(\d{3})", screen)]
    return max(numbers) if numbers else -1


def test_a_select_opened_while_an_answer_streams_lets_it_stream_on(pane: Pane, pi_env: PiEnv) -> None:
    words = " ".join(f"word{i:03d}" for i in range(900))
    pi_env.server.add(Turn(blocks=[Text(words, chunks=900)], delay=0.04))
    pane.wait_for_editor()
    pane.submit("talk slowly")
    pane.wait_for("word010")
    pane.type("half a thought")
    pane.wait_for("… half a thought")  # the editor's prompt while the agent works
    pane.keys("C-t")  # the plugin's shortcut asks, the editor's text waiting under the list
    screen = pane.wait_for(lambda s: "Pick a colour (" in s and "→ red" in s)
    assert "half a thought" not in pane.visible()
    assert re.search(r"Pick a colour \((59|60)s\)", screen), screen
    seen = _last_word(pane.visible())
    # The answer goes on streaming above the open list, and the countdown goes on.
    pane.wait_for(lambda s: _last_word(s) >= seen + 20 and "→ red" in s, timeout=20)
    pane.wait_for(lambda s: re.search(r"Pick a colour \(5[0-8]s\)", s) is not None, timeout=15)
    pane.keys("Down")
    pane.wait_for("→ green")
    pane.keys("Enter")
    screen = pane.wait_for(lambda s: "COLOUR-PICKED green" in s and "… half a thought" in s)
    assert "Pick a colour" not in screen and "Traceback" not in screen  # no line left, as pi's
    pane.wait_for("word899", timeout=60)


def test_input_then_confirm_from_a_command(pane: Pane, pi_env: PiEnv) -> None:
    pane.wait_for_editor()
    pane.submit("/askname")
    pane.wait_for(lambda s: "Your name" in s and "someone" in s)
    pane.type("Ada")
    pane.wait_for("> Ada")
    pane.keys("Enter")
    pane.wait_for(lambda s: "Sure?" in s and "really sure" in s and "→ Yes" in s)
    pane.keys("Down")
    pane.wait_for("→ No")
    pane.keys("Up")
    pane.wait_for("→ Yes")
    pane.keys("Enter")
    screen = pane.wait_for("ASKED Ada True")
    assert "Traceback" not in screen
    pane.type("still here")
    pane.wait_for("> still here")  # the editor has the keys again
