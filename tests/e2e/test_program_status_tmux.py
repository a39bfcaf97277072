"""The real ``pi`` in tmux under a terminal that takes OSC 7501 program status
(``answering_terminal.py --program-status``, which answers the support query and logs each
report): pi reports idle at start, working while an answer streams, blocked on a plugin's
question while it is asked, and done once the run is over; nothing of it reaches the screen."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Turn

from tests.e2e.tmux_pane import start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ANSWERING = str(Path(__file__).with_name("answering_terminal.py"))

PLUGIN = """
from pi_core import hookimpl


async def colour(ctx):
    picked = await ctx.ui.select("Pick a colour", ["red", "green"])
    ctx.ui.notify(f"COLOUR-PICKED {picked}")


@hookimpl
def register_shortcuts(register):
    register("ctrl+t", colour, description="pick a colour")
"""


def _statuses(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [line[len("STATUS ") :] for line in log.read_text().splitlines() if line.startswith("STATUS ")]


@pytest.mark.parametrize("tui", ["regular", "fullscreen"])
def test_program_status_follows_a_run_and_a_plugin_question(
    tui: str, pi_env: PiEnv, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "colour.py").write_text(PLUGIN)
    log = tmp_path / "terminal.log"
    pi_env.extra_env.pop("PI_PROGRAM_STATUS", None)
    wrapper = [sys.executable, ANSWERING, "--program-status", "--log", str(log), "--"]
    pane = start_pane(pi_env, tui=tui, prefix=wrapper)
    request.addfinalizer(pane.kill)
    pi_env.server.add(Turn(blocks=[Text("streaming along " * 80, chunks=80)], delay=0.05))
    pane.wait_for_editor()
    pane.wait_for(lambda _: "state=idle app=pi" in _statuses(log), timeout=10)
    pane.submit("go slowly")
    pane.wait_for(lambda _: any(s.startswith("state=working") for s in _statuses(log)), timeout=10)
    pane.keys("C-t")
    pane.wait_for("Pick a colour")
    blocked = "state=blocked app=pi kind=question msg=Pick a colour"
    pane.wait_for(lambda _: blocked in _statuses(log), timeout=10)
    pane.keys("Enter")
    pane.wait_for("COLOUR-PICKED red", timeout=30)
    pane.wait_for(lambda _: _statuses(log)[-1:] == ["state=done app=pi"], timeout=40)
    states = [status.split()[0] for status in _statuses(log)]
    assert states[:2] == ["state=idle", "state=working"]
    assert states.index("state=blocked") < len(states) - 1
    screen = pane.screen()
    assert "7501" not in screen and "state=" not in screen
