"""The fullscreen application of the real ``pi`` in a tmux pane, used as a person would."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, Thinking, ToolUse, Turn, text_turn, tool_turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

CONFIRM_PLUGIN = """
from pi_core import hookimpl


async def gate(args, ctx):
    ok = await ctx.ui.confirm("Allow this command?", "cd build\\nrm -rf output\\nmake all")
    ctx.ui.notify("GATE-ANSWER " + ("yes" if ok else "no"))


@hookimpl
def register_commands(register):
    register("gate", gate, description="ask before running")
"""


@pytest.fixture
def full(pi_env: PiEnv) -> Iterator[Pane]:
    pane = start_pane(pi_env, tui="fullscreen")
    yield pane
    pane.kill()


def _editor_ready(pane: Pane) -> str:
    """The footer is drawn (the model line) and the editor line shows the idle prompt."""
    return pane.wait_for(
        lambda s: "loop/fake-model  context" in s and any(line.rstrip() == ">" for line in s.splitlines())
    )


def test_streaming_is_visible_as_it_grows_as_markdown(pi_env: PiEnv, full: Pane) -> None:
    words = " ".join(f"**w{i:03d}**" for i in range(400))
    pi_env.server.add(Turn(blocks=[Text(words, chunks=200)], delay=0.03))
    _editor_ready(full)
    full.type("one long paragraph")
    full.keys("Enter")
    early = full.wait_for("w060")
    assert "w000" in early and "w399" not in early and "**" not in early
    assert "working…" in early
    full.wait_for("w399")


def test_escape_aborts_quickly(pi_env: PiEnv, full: Pane) -> None:
    long_turn = Turn(blocks=[Text("streaming " * 600, chunks=300)], delay=0.03)
    pi_env.server.add(long_turn, text_turn("after abort"))
    _editor_ready(full)
    full.type("long story")
    full.keys("Enter")
    full.wait_for("streaming streaming")
    started = time.monotonic()
    full.keys("Escape")
    full.wait_for("Operation aborted", poll=0.005)
    assert time.monotonic() - started < 0.7
    _editor_ready(full)
    full.type("again")
    full.keys("Enter")
    full.wait_for("after abort")


def test_parallel_calls_each_with_its_result_and_ctrl_o_in_place(pi_env: PiEnv, full: Pane) -> None:
    pi_env.server.add(
        tool_turn(
            ToolUse("bash", {"command": "sleep 1; seq 1 12; echo SLOW-DONE"}),
            ToolUse("bash", {"command": "echo QUICK-DONE"}),
        ),
        text_turn("tools finished"),
    )
    _editor_ready(full)
    full.type("run two")
    full.keys("Enter")
    screen = full.wait_for("tools finished")
    lines = [line.rstrip() for line in screen.splitlines()]
    first = lines.index("● $ sleep 1; seq 1 12; echo SLOW-DONE")
    second = lines.index("● $ echo QUICK-DONE")
    assert first < lines.index("SLOW-DONE") < second < lines.index("QUICK-DONE")
    assert "3" not in lines[first:second]  # collapsed: the preview shows the last lines only
    full.keys("C-o")
    screen = full.wait_for(lambda s: "3" in [line.rstrip() for line in s.splitlines()])
    assert screen.count("● $ echo QUICK-DONE") == 1  # redrawn in place, not printed again


def test_tree_redraws_in_place_with_the_diff(pi_env: PiEnv, full: Pane) -> None:
    (pi_env.project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    pi_env.server.add(
        tool_turn(ToolUse("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]})),
        text_turn("edit made"),
        text_turn("second answer"),
    )
    _editor_ready(full)
    full.type("change beta")
    full.keys("Enter")
    full.wait_for("edit made")
    _editor_ready(full)
    full.type("another question")
    full.keys("Enter")
    full.wait_for("second answer")
    _editor_ready(full)
    full.type("/tree")
    full.keys("Enter")
    full.wait_for("Session Tree")
    full.keys("Up", "Up")
    full.wait_for("› • assistant: edit made")
    full.keys("Enter")
    full.wait_for("Summarize branch?")
    full.keys("Enter")
    full.wait_for("Moved to a new position in the tree")
    _editor_ready(full)
    screen = full.visible()
    assert screen.count("> change beta") == 1
    assert "-2 beta" in screen and "+2 BETA" in screen and "Successfully replaced" not in screen
    assert "second answer" not in screen


def test_multi_line_confirm_shows_every_line(pi_env: PiEnv) -> None:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "gate.py").write_text(CONFIRM_PLUGIN)
    pane = start_pane(pi_env, tui="fullscreen")
    try:
        _editor_ready(pane)
        pane.type("draft text")
        pane.type("")
        pane.keys("C-a")
        pane.keys("C-k")
        pane.type("/gate")
        pane.keys("Enter")
        screen = pane.wait_for(lambda s: "→ Yes" in s and "   No" in s)  # pi's Yes/No list
        for line in ("Allow this command?", "cd build", "rm -rf output", "make all"):
            assert line in screen
        pane.keys("Enter")
        pane.wait_for("GATE-ANSWER yes")
        _editor_ready(pane)
        # the dialog's screen is not left behind in tmux's scrollback
        assert pane.tmux("display-message", "-p", "-t", "pi", "#{history_size}").strip() == "0"
    finally:
        pane.kill()


def test_tool_output_escapes_are_removed(pi_env: PiEnv, full: Pane) -> None:
    command = r"printf 'title:\033]0;PWNED-BY-TOOL\007:kept\033[2J\n'"
    pi_env.server.add(tool_turn(ToolUse("bash", {"command": command})), text_turn("escapes printed"))
    _editor_ready(full)
    full.type("print it")
    full.keys("Enter")
    screen = full.wait_for("escapes printed")
    assert "title::kept" in screen
    assert "PWNED" not in full.tmux("display-message", "-p", "-t", "pi", "#{pane_title}")


def test_resize_to_sixty_columns_and_back_reflows(pi_env: PiEnv, full: Pane) -> None:
    pi_env.server.add(text_turn(" ".join(f"word{i:02d}" for i in range(60))))
    _editor_ready(full)
    full.type("a long line")
    full.keys("Enter")
    wide = full.wait_for("word59")
    rows_wide = [line for line in wide.splitlines() if "word" in line]

    def answer_rows(screen: str) -> int:
        return len([line for line in screen.splitlines() if "word" in line])

    full.tmux("resize-window", "-t", "pi", "-x", "60", "-y", "30")
    narrow = full.wait_for(lambda s: answer_rows(s) > len(rows_wide))
    assert all(len(line.rstrip()) <= 60 for line in narrow.splitlines())
    assert "loop/fake-model" in narrow  # the footer is still there
    full.tmux("resize-window", "-t", "pi", "-x", "120", "-y", "40")
    full.wait_for(lambda s: answer_rows(s) == len(rows_wide))
    full.keys("C-d")
    screen = full.wait_for("PI-EXITED=0")
    assert "word59" in screen  # the transcript is left on the normal screen
    assert "Traceback" not in screen


def test_model_selector_in_the_editors_place(pi_env: PiEnv, full: Pane) -> None:
    """/model in fullscreen: the selector takes the editor's place inside the running
    application, the transcript above and the footer below stay on the screen."""
    pi_env.server.add(text_turn("first answer"))
    _editor_ready(full)
    full.type("hello")
    full.keys("Enter")
    full.wait_for("first answer")
    _editor_ready(full)
    full.type("/model")
    full.keys("Enter")
    screen = full.wait_for("  Model Name: fake-model")
    assert "→ ✓ fake-model [loop]" in screen and "first answer" in screen
    below = screen.split("Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel")[-1]
    assert "loop/fake-model  context" in below  # the footer, under the selector
    full.keys("Down", "Enter")
    full.wait_for(lambda s: "Model: loopa/fake-claude" in s and "Model Name" not in s)


def test_ctrl_t_hides_and_shows_thinking_in_place_keeping_the_top_row(pi_env: PiEnv, full: Pane) -> None:
    """Scrolled up with an earlier answer at the top of the screen and the thinking under it."""
    pondering = "\n\n".join(f"pondering {i} " + "deep " * 30 for i in range(4))
    answer = "\n\n".join(f"answer line {i}" for i in range(20))
    pi_env.server.add(
        text_turn("\n\n".join(f"first line {i}" for i in range(40))),
        Turn(blocks=[Thinking(pondering, chunks=12), Text(answer)]),
    )
    _editor_ready(full)
    full.type("first")
    full.keys("Enter")
    full.wait_for("first line 39")
    _editor_ready(full)
    full.type("think hard")
    full.keys("Enter")
    full.wait_for("answer line 19")
    _editor_ready(full)
    full.keys("PageUp")
    full.wait_for(lambda s: "pondering 0" in full.visible())
    top = [row.rstrip() for row in full.visible().splitlines()[:3]]
    assert any(row.startswith("first line") for row in top)  # above the thinking: it moves unless kept
    full.keys("C-t")
    full.wait_for(lambda s: "pondering 0" not in full.visible() and "Thinking..." in full.visible())
    assert [row.rstrip() for row in full.visible().splitlines()[:3]] == top
    assert '"hideThinkingBlock": true' in (pi_env.agent_dir / "settings.json").read_text()
    full.keys("C-t")
    full.wait_for(lambda s: "pondering 3" in full.visible() and "Thinking..." not in full.visible())
    assert [row.rstrip() for row in full.visible().splitlines()[:3]] == top
    assert '"hideThinkingBlock": false' in (pi_env.agent_dir / "settings.json").read_text()
