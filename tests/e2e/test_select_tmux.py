"""The real ``pi`` in tmux, in both TUI modes: a plugin's ``select`` and ``confirm`` drawn as pi
1.6.0 draws its list — between two rules (in fullscreen the status row is the upper one), the
title and rows with a one-column margin, ``→`` on the highlighted row, ten rows with the position
while some are out of view, long options wrapped, and the line of keys."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PLUGIN = """
from pi_core import hookimpl

MANY = [f"option number {n}" for n in range(1, 31)]
LONG = ["short", "a very long option " + "that goes on and on " * 10, "third"]


async def many(args, ctx):
    ctx.ui.notify(f"MANY-GOT {await ctx.ui.select('Pick among many', MANY)}")


async def long(args, ctx):
    ctx.ui.notify(f"LONG-GOT {await ctx.ui.select('Pick a long one', LONG)}")


async def sure(args, ctx):
    ctx.ui.notify(f"SURE-GOT {await ctx.ui.confirm('Dangerous!', 'Allow rm -rf?')}")


@hookimpl
def register_commands(register):
    register("many", many, description="a long list")
    register("long", long, description="a long option")
    register("sure", sure, description="a confirm")
"""

RULE = "─" * 120


@pytest.fixture(params=["regular", "fullscreen"])
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "lists.py").write_text(PLUGIN)
    started = start_pane(pi_env, tui=request.param)
    request.addfinalizer(started.kill)
    return started


def _block(screen: str, title: str) -> list[str]:
    """The list's lines, from the rule above its title to the rule under its keys."""
    lines = [line.rstrip() for line in screen.splitlines()]
    top = lines.index(f" {title}") - 2
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i] == RULE)
    return lines[top : bottom + 1]


def test_many_options_scroll_with_the_position_under_them(pane: Pane) -> None:
    pane.wait_for_editor()
    pane.submit("/many")
    screen = pane.wait_for("  (1/30)")
    block = _block(screen, "Pick among many")
    assert block[0] == RULE and block[1] == "" and block[3] == ""
    assert block[4:15] == [" → option number 1", *(f"   option number {n}" for n in range(2, 11)), "  (1/30)"]
    assert block[15:] == ["", " ↑↓ move  enter choose  escape/ctrl+c cancel", "", RULE]
    pane.keys(*["j"] * 8)  # k/j move as in pi's list, which stays centred on the highlight
    screen = pane.wait_for("  (9/30)")
    block = _block(screen, "Pick among many")
    assert block[4] == "   option number 4" and block[9] == " → option number 9"
    assert block[13] == "   option number 13"
    pane.keys("Enter")
    pane.wait_for("MANY-GOT option number 9")
    assert "Pick among many" not in pane.visible()  # nothing is left of the list


def test_a_long_option_wraps_and_a_confirm_shows_the_message_under_its_title(pane: Pane) -> None:
    pane.wait_for_editor()
    pane.submit("/long")
    screen = pane.wait_for("Pick a long one")
    block = _block(screen, "Pick a long one")
    wrapped = [line for line in block if "goes on" in line]
    assert len(wrapped) == 2 and wrapped[0].startswith("   a very long option")
    assert wrapped[1].startswith(" on")  # the margin, not the rows' indent
    assert block[block.index(wrapped[1]) + 1] == "   third"
    pane.keys("Escape")
    pane.wait_for("LONG-GOT None")
    pane.submit("/sure")
    screen = pane.wait_for("Allow rm -rf?")
    assert _block(screen, "Dangerous!")[2:7] == [" Dangerous!", " Allow rm -rf?", "", " → Yes", "   No"]
    pane.keys("j", "Enter")
    pane.wait_for("SURE-GOT False")
