"""The real ``pi`` in tmux, both REPL modes: a plugin's own component, header and footer as a person
sees them, and the bad inputs of issue 14 — a 20-column terminal, a 1 MB paste, binary garbage in
tool output, a component that raises while drawn, a dialog nobody answers (pi killed meanwhile)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import ToolUse, text_turn, tool_turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

MODES = ["regular", "fullscreen"]

PLUGIN = """
from pi_core import hookimpl


class Counter:
    def __init__(self, theme, done):
        self.theme, self.done, self.count = theme, done, 0

    def render(self, width):
        return [self.theme.fg("accent", f"COUNT={self.count}"), "plus adds one, Enter ends"]

    def handle_input(self, data):
        if data == "+":
            self.count += 1
        elif data == "\\r":
            self.done(self.count)


class Broken:
    def render(self, width):
        raise RuntimeError("drawing went wrong")


class Rows:
    def __init__(self, rows):
        self.rows = rows

    def render(self, width):
        return self.rows


async def count(args, ctx):
    total = await ctx.ui.custom(lambda tui, theme, done: Counter(theme, done))
    ctx.ui.notify(f"COUNTED {total}")


async def broken(args, ctx):
    value = await ctx.ui.custom(lambda tui, theme, done: Broken())
    ctx.ui.notify(f"BROKEN-GAVE {value}")


async def ask(args, ctx):
    await ctx.ui.confirm("Nobody answers this?", "line one\\nline two")


@hookimpl
def session_start(event, ctx):
    ctx.ui.set_header(lambda tui, theme: Rows([theme.bold("PLUGIN-HEADER"), "under the header"]))
    ctx.ui.set_footer(lambda tui, theme, data: Rows(["PLUGIN-FOOTER"]))


@hookimpl
def register_commands(register):
    register("count", count, description="count plus keys")
    register("broken", broken, description="a component that raises")
    register("ask", ask, description="a question")
"""


def _install(pi_env: PiEnv) -> None:
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "components.py").write_text(PLUGIN)


def _ready(pane: Pane) -> str:
    """The plugin's footer is drawn and the editor shows the idle prompt."""
    return pane.wait_for(
        lambda s: "PLUGIN-FOOTER" in s and any(line.rstrip() == ">" for line in s.splitlines())
    )


def _session_lines(pi_env: PiEnv) -> list[dict[str, object]]:
    """Every line of the one session file, parsed (a torn or invalid line fails the test)."""
    files = list((pi_env.agent_dir / "sessions").rglob("*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines()]


def _roles(pi_env: PiEnv) -> list[str]:
    """The roles of the conversation's messages in the session file (the recorded system prompt
    left out)."""
    messages = [e["message"] for e in _session_lines(pi_env) if e.get("type") == "message"]
    return [str(m["role"]) for m in messages if isinstance(m, dict) and m["role"] != "system"]


@pytest.fixture(params=MODES)
def pane(request: pytest.FixtureRequest, pi_env: PiEnv) -> Pane:
    _install(pi_env)
    started = start_pane(pi_env, tui=request.param)
    request.addfinalizer(started.kill)
    return started


def test_a_plugin_component_header_and_footer(pane: Pane) -> None:
    screen = _ready(pane)
    assert "PLUGIN-HEADER" in screen and "under the header" in screen
    assert "/help for commands" not in screen
    pane.submit("/count")
    pane.wait_for("COUNT=0")
    # The component's application asks the terminal where the cursor is (regular mode); the
    # answer is the renderer's, so prompt-toolkit never warns (it does after 2 s without one).
    time.sleep(2.5)
    assert "cursor position requests" not in pane.screen()
    pane.type("+")
    pane.wait_for("COUNT=1")
    pane.type("+")
    pane.wait_for("COUNT=2")
    pane.keys("Enter")
    screen = pane.wait_for("COUNTED 2")
    _ready(pane)
    pane.submit("/count")
    pane.wait_for("COUNT=0")
    pane.keys("Enter")
    pane.wait_for("COUNTED 0")
    assert "Traceback" not in pane.screen()


def test_a_component_that_raises_is_reported_and_the_ui_goes_on(pane: Pane, pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("still answering"))
    _ready(pane)
    pane.submit("/broken")
    screen = pane.wait_for("BROKEN-GAVE None")
    assert "drawing went wrong" in screen and "Extension error (components" in screen
    assert "Traceback" not in screen
    _ready(pane)
    pane.submit("a question")
    pane.wait_for("still answering")


def test_a_twenty_column_terminal(pane: Pane, pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("a narrow answer that has to wrap over several rows of twenty"))
    _ready(pane)
    pane.tmux("resize-window", "-t", "pi", "-x", "20", "-y", "12")
    pane.wait_for(lambda s: all(len(line.rstrip()) <= 20 for line in s.splitlines()[-12:]))
    pane.submit("hi")
    screen = pane.wait_for(lambda s: "rows of" in s.replace("\n", " ") and "twenty" in s)
    assert "Traceback" not in screen
    assert all(len(line.rstrip()) <= 20 for line in pane.visible().splitlines())
    pane.tmux("resize-window", "-t", "pi", "-x", "120", "-y", "40")
    _ready(pane)


def test_a_one_megabyte_paste_is_collapsed_and_sent_whole(pane: Pane, pi_env: PiEnv, tmp_path: Path) -> None:
    pi_env.server.add(text_turn("got the paste"))
    lines = [f"pasted line {i:05d} " + "x" * 60 for i in range(14_000)]
    text = "\n".join(lines)  # about 1 MB
    assert len(text) > 1_000_000
    paste = tmp_path / "paste.txt"
    paste.write_text(text)
    _ready(pane)
    pane.tmux("load-buffer", "-b", "big", str(paste))
    pane.tmux("paste-buffer", "-p", "-b", "big", "-t", "pi")  # bracketed, as a terminal pastes
    screen = pane.wait_for("[paste #1 +14000 lines]", timeout=60)  # collapsed in the editor, as pi
    assert "pasted line 13999" not in screen
    pane.keys("Enter")
    pane.wait_for("got the paste", timeout=60)
    sent = pi_env.server.requests[-1].body["messages"][-1]["content"]
    sent_text = sent if isinstance(sent, str) else "".join(part.get("text", "") for part in sent)
    assert sent_text == text
    recorded = [e["message"] for e in _session_lines(pi_env) if e.get("type") == "message"]
    outcomes = [
        (m.get("role"), m.get("stopReason"), m.get("errorMessage")) for m in recorded if isinstance(m, dict)
    ]
    assert _roles(pi_env) == ["user", "assistant"], outcomes


def test_binary_garbage_in_tool_output(pane: Pane, pi_env: PiEnv) -> None:
    garbage = bytes(random.Random(14).randrange(256) for _ in range(4000))
    (pi_env.project / "garbage.bin").write_bytes(garbage)
    pi_env.server.add(tool_turn(ToolUse("bash", {"command": "cat garbage.bin; echo; echo END-OF-GARBAGE"})))
    pi_env.server.add(text_turn("garbage shown"))
    _ready(pane)
    pane.submit("show it")
    screen = pane.wait_for("garbage shown", timeout=30)
    assert "END-OF-GARBAGE" in screen and "Traceback" not in screen
    title = pane.tmux("display-message", "-p", "-t", "pi", "#{pane_title}")
    assert "\ufffd" not in title
    _ready(pane)
    assert _roles(pi_env) == ["user", "assistant", "toolResult", "assistant"]


def test_a_dialog_nobody_answers_leaves_a_valid_session(pane: Pane, pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("first answer"))
    _ready(pane)
    pane.submit("before the question")
    pane.wait_for("first answer")
    _ready(pane)
    pane.submit("/ask")
    pane.wait_for("Nobody answers this?")
    pane.wait_for("line two")
    pid = pane.tmux("display-message", "-p", "-t", "pi", "#{pane_pid}").strip()
    # pi is the shell's child; end it as a closed terminal would (SIGHUP), the dialog still open
    children = subprocess.run(["pgrep", "-P", pid], capture_output=True, text=True).stdout.split()
    assert children
    subprocess.run(["kill", "-HUP", *children], check=False)
    pane.wait_for("PI-EXITED=")
    assert _roles(pi_env) == ["user", "assistant"]
