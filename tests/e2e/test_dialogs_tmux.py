"""The real ``pi`` in tmux, in both TUI modes: plugin dialogs while a run goes and the external
editor (Ctrl+G), looked at on the screen as pi 1.6.0 draws them.

* the working row is hidden while a dialog is in the editor's place, and back once it closes;
* Ctrl+G hands the terminal to the external editor (a script here) and takes back what it saved,
  in the editor and in a plugin's editor dialog;
* a paste of several lines into a one-line input dialog stays on one row under its title.
"""

from __future__ import annotations

import shutil
import stat
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PLUGIN = """
import json

from pi_core import hookimpl


async def colour(ctx):
    picked = await ctx.ui.select("Pick a colour", ["red", "green", "blue"])
    ctx.ui.notify(f"PICKED {picked}")


async def name(ctx):
    typed = await ctx.ui.input("Your name", "someone")
    ctx.ui.notify(f"TYPED {json.dumps(typed)}")


async def plan(ctx):
    edited = await ctx.ui.editor("Edit the plan", "step one")
    ctx.ui.notify(f"EDITED {json.dumps(edited)}")


@hookimpl
def register_commands(register):
    register("askname", lambda args, ctx: name(ctx), description="ask a name")
    register("plan", lambda args, ctx: plan(ctx), description="edit a plan")


@hookimpl
def register_shortcuts(register):
    register("alt+s", colour, description="pick a colour")
"""

#: Stands in for an editor: reads a line from the terminal (so it must have it), then saves the
#: old text and that line into the file it was given.
EDITOR = """#!/bin/sh
for last; do :; done
old=$(cat "$last")
printf 'EDITOR-ASKS: '
read -r line
printf '%s + %s\\n' "$old" "$line" > "$last"
"""


@pytest.fixture(params=["regular", "fullscreen"])
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "asking.py").write_text(PLUGIN)
    editor = pi_env.root / "fake-editor"
    editor.write_text(EDITOR)
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    pi_env.extra_env.update(VISUAL=f"{editor} --wait", EDITOR="false")
    started = start_pane(pi_env, tui=request.param)
    request.addfinalizer(started.kill)
    return started


def test_a_dialog_hides_the_working_row_until_it_closes(pane: Pane, pi_env: PiEnv) -> None:
    words = " ".join(f"word{i:03d}" for i in range(600))
    pi_env.server.add(Turn(blocks=[Text(words, chunks=600)], delay=0.03))
    pane.wait_for_editor()
    pane.submit("talk slowly")
    pane.wait_for(lambda s: "working…" in s and "word005" in s)
    pane.keys("M-s")
    pane.wait_for(lambda s: "Pick a colour" in s and "   green" in s)
    assert "working…" not in pane.visible()
    pane.keys("Down", "Enter")
    pane.wait_for(lambda s: "PICKED green" in s and "working…" in pane.visible())
    pane.keys("Escape")  # the editor has the keys again: Esc aborts the run
    pane.wait_for("Operation aborted")


def test_ctrl_g_edits_the_prompt_in_the_external_editor(pane: Pane) -> None:
    pane.wait_for_editor()
    pane.type("my draft")
    pane.wait_for("> my draft")
    pane.keys("C-g")
    pane.wait_for("EDITOR-ASKS:")  # the editor has the terminal: what is typed is its
    pane.type("typed in the editor")
    pane.keys("Enter")
    pane.wait_for("> my draft + typed in the editor")
    pane.keys("C-u")
    pane.type("still here")
    pane.wait_for("> still here")  # the REPL has the keys back


def test_ctrl_g_in_a_plugins_editor_dialog(pane: Pane) -> None:
    pane.wait_for_editor()
    pane.submit("/plan")
    pane.wait_for(lambda s: "Edit the plan" in s and "Ctrl+G external editor" in s)
    pane.keys("C-g")
    pane.wait_for("EDITOR-ASKS:")
    pane.type("step two")
    pane.keys("Enter")
    pane.wait_for("step one + step two")  # back in the dialog, which is still open
    assert "Edit the plan" in pane.visible()
    pane.keys("Enter")
    pane.wait_for('EDITED "step one + step two"')


def test_a_pasted_paragraph_stays_on_the_input_dialogs_row(pane: Pane) -> None:
    pane.wait_for_editor()
    pane.submit("/askname")
    # The placeholder is drawn by the question itself, which has asked for bracketed pastes by then.
    pane.wait_for(lambda s: "Your name" in s and "someone" in s)
    lines = "\n".join(f"line {i} of the paste\t|" for i in range(30))
    pane.tmux("set-buffer", "--", lines)
    pane.tmux("paste-buffer", "-p", "-t", "pi")
    pane.wait_for(lambda s: "line 29 of the paste" in s)
    visible = pane.visible()
    assert "Your name" in visible and "line 28 of the paste" in visible
    assert sum("of the paste" in row for row in visible.splitlines()) == 1, visible
    pane.keys("Enter")
    screen = pane.wait_for("TYPED ")
    # One answer with the lines run together (the transcript wraps it at its own width).
    joined = "".join(f"line {i} of the paste    |" for i in range(30))
    assert "".join(f'TYPED "{joined}"'.split()) in "".join(screen.split()), screen
