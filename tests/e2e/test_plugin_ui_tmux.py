"""The real ``pi`` in tmux, both REPL modes: what a plugin's ``ctx.ui`` decorations look like to
a person — a widget drawn by a factory, the plugin's working indicator while an answer streams,
a component floating over the transcript (fullscreen) and a big paste collapsed to a marker."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Turn, text_turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PLUGIN = """
from pi_core import hookimpl


class Gauge:
    def __init__(self, tui, theme):
        self.tui, self.theme = tui, theme

    def render(self, width):
        return [self.theme.fg("accent", f"GAUGE-WIDGET cols={self.tui.columns}")]


class Floating:
    def __init__(self, keybindings, done):
        self.keys, self.done = keybindings, done

    def render(self, width):
        return ["FLOATING-BOX Esc closes"]

    def handle_input(self, data):
        if self.keys.matches(data, "tui.select.cancel"):
            self.done("closed")


async def float_box(args, ctx):
    value = await ctx.ui.custom(lambda tui, theme, keys, done: Floating(keys, done), overlay=True)
    ctx.ui.notify(f"FLOAT-GAVE {value}")


@hookimpl
def session_start(event, ctx):
    ctx.ui.set_widget("gauge", lambda tui, theme: Gauge(tui, theme), placement="belowEditor")
    ctx.ui.set_working_indicator(["SPIN-A", "SPIN-B"], interval_ms=150)


@hookimpl
def register_commands(register):
    register("float", float_box, description="a floating component")
"""


@pytest.fixture(params=["regular", "fullscreen"])
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "ui_tour.py").write_text(PLUGIN)
    started = start_pane(pi_env, tui=request.param)
    request.addfinalizer(started.kill)
    return started


def _ready(pane: Pane) -> str:
    return pane.wait_for(
        lambda s: "GAUGE-WIDGET cols=120" in s and any(line.rstrip() == ">" for line in s.splitlines())
    )


def test_widget_factory_working_indicator_and_overlay(
    pane: Pane, pi_env: PiEnv, request: pytest.FixtureRequest
) -> None:
    fullscreen = request.node.callspec.params["pane"] == "fullscreen"
    pi_env.server.add(Turn(blocks=[Text("streaming along " * 60, chunks=60)], delay=0.08))
    _ready(pane)
    pane.submit("go slowly")
    pane.wait_for(lambda s: "SPIN-A working…" in s or "SPIN-B working…" in s)
    first = "SPIN-A" if "SPIN-A working…" in pane.visible() else "SPIN-B"
    other = "SPIN-B" if first == "SPIN-A" else "SPIN-A"
    pane.wait_for(f"{other} working…", timeout=5)  # the frames turn
    if fullscreen:  # float a component while the answer streams under it
        pane.submit("/float")
        pane.wait_for("FLOATING-BOX Esc closes")
        before = pane.visible().count("streaming along")
        pane.wait_for(lambda s: s.count("streaming along") > before or "SPIN-" not in s, timeout=10)
        pane.keys("Escape")
        screen = pane.wait_for("FLOAT-GAVE closed")
        assert "Traceback" not in screen
    pane.wait_for(lambda s: "SPIN-" not in pane.visible(), timeout=30)
    _ready(pane)


def test_a_big_paste_shows_as_a_marker(pane: Pane, pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("pasted fine"))
    _ready(pane)
    pane.tmux("set-buffer", "-b", "p", "\n".join(f"pasted row {n}" for n in range(30)))
    pane.tmux("paste-buffer", "-p", "-b", "p", "-t", "pi")
    screen = pane.wait_for("[paste #1 +30 lines]")
    assert "pasted row 29" not in screen
    pane.keys("Enter")
    pane.wait_for("pasted fine")
    content = pi_env.server.requests[-1].body["messages"][-1]["content"]
    sent = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    assert sent == "\n".join(f"pasted row {n}" for n in range(30))
