"""The real ``pi`` REPL in a tmux pane: trust question, a prompt and its answer, a slash command, quit."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Text, ToolUse, Turn, text_turn, tool_turn

from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

EXTENSION = """
from pi_core import hookimpl


async def shout(args, ctx):
    ctx.ui.notify("PROJECT-PLUGIN-RAN " + args.upper())


@hookimpl
def register_commands(register):
    register("shout", shout, description="shout the arguments")
"""


@pytest.fixture
def pane(pi_env: PiEnv) -> Iterator[Pane]:
    started = start_pane(pi_env)
    yield started
    started.kill()


@pytest.fixture
def trusting_project(pi_env: PiEnv) -> PiEnv:
    extensions = pi_env.project / ".pi" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "shout.py").write_text(EXTENSION)
    return pi_env


def test_repl_in_tmux(trusting_project: PiEnv, pane: Pane) -> None:
    trusting_project.server.add(text_turn("The loopback answer is **42**."))
    screen = pane.wait_for("Do not trust (this session only)")  # pi's trust selector
    assert "Trust project folder?" in screen and "shout.py" in screen and "→ Trust\n" in screen
    pane.keys("Enter")
    pane.wait_for("its plugins are loaded")
    pane.wait_for("/help for commands")
    pane.wait_for_editor()
    pane.type("what is the answer?")
    pane.keys("Enter")
    screen = pane.wait_for("loop/fake-model · context")
    assert "> what is the answer?" in screen
    assert "The loopback answer is 42." in screen  # markdown rendered: no asterisks
    pane.type("/shout hi")
    pane.keys("Enter")
    pane.wait_for("PROJECT-PLUGIN-RAN HI")
    pane.type("/session")
    pane.keys("Enter")
    pane.wait_for("1 user, 1 assistant")
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0")
    assert "Traceback" not in pane.screen()
    assert "trusted-projects.json" in {p.name for p in trusting_project.agent_dir.iterdir()}


def test_escape_aborts_a_streaming_answer_in_tmux(pi_env: PiEnv, pane: Pane) -> None:
    pi_env.server.add(
        Turn(blocks=[Text("streaming " * 400, chunks=200)], delay=0.03),
        text_turn("fresh answer after abort"),
    )
    pane.wait_for("/help for commands")
    pane.wait_for_editor()
    pane.type("tell me a long story")
    pane.keys("Enter")
    pane.wait_for("streaming streaming")
    pane.keys("Escape")
    pane.wait_for("Operation aborted")
    pane.type("again")
    pane.keys("Enter")
    pane.wait_for("fresh answer after abort")
    # The footer closes each run; once the second one is there the REPL is idle again, and a
    # double Ctrl+C (sent in one go, so a loaded machine cannot stretch the gap) quits.
    pane.wait_for(lambda screen: screen.count("loop/fake-model · context") >= 2)
    pane.keys("C-c", "C-c")
    pane.wait_for("PI-EXITED=0")
    [session] = pi_env.session_files()
    lines = session.read_text().splitlines()
    assert all(line.startswith("{") for line in lines)
    assert '"stopReason":"aborted"' in session.read_text().replace(" ", "")


def test_tree_selector_in_tmux(pi_env: PiEnv, pane: Pane) -> None:
    """/tree draws pi's session tree in the editor's place; the choice moves the leaf, and a
    branch point's segments fold with Ctrl+Left."""
    pi_env.server.add(text_turn("answer one"), text_turn("answer two"), text_turn("answer three"))
    pane.wait_for_editor()
    for number, question in enumerate(("question one", "question two"), 1):
        pane.type(question)
        pane.keys("Enter")
        pane.wait_for(lambda screen, n=number: screen.count("loop/fake-model · context") >= n)
    pane.type("/tree")
    pane.keys("Enter")
    screen = pane.wait_for("  (5/5)")  # the session's system message is the first row
    assert "   Session Tree" in screen and "  Type to search:" in screen
    assert "› • assistant: answer two" in screen
    pane.keys("Up", "Up")
    pane.wait_for("› • assistant: answer one")
    pane.keys("Enter")
    pane.wait_for("Summarize branch?")
    pane.keys("Enter")
    pane.wait_for("Moved to a new position in the tree")
    assert "Session Tree" not in pane.visible()  # the tree erased itself
    pane.wait_for_editor()
    pane.type("question three")
    pane.keys("Enter")
    pane.wait_for(lambda screen: "loop/fake-model · context" in screen.split("answer three")[-1])
    pane.type("/tree")
    pane.keys("Enter")
    screen = pane.wait_for("  (5/7)")
    assert "├⊟ • user: question three" in screen and "└⊟ user: question two" in screen
    pane.keys("C-Left")  # from "answer three" up to the start of its segment
    pane.wait_for("› ├⊟ • user: question three")
    pane.keys("C-Left")  # and fold it
    screen = pane.wait_for("› ├⊞ • user: question three")
    assert "answer three" not in screen.split("Session Tree")[-1] and "  (4/6)" in screen
    pane.keys("C-u")  # the user-only filter
    pane.wait_for("(2/3) [user]")
    pane.keys("Escape")
    pane.wait_for(lambda screen: "Session Tree" not in screen)
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0")
    [session] = pi_env.session_files()
    messages = session.read_text().count('"type":"message"')
    assert messages == 7, messages  # system, 3 x (user, assistant): moving the leaf writes no entry


def test_model_selector_in_tmux(pi_env: PiEnv, pane: Pane) -> None:
    """/model draws pi's model selector in the editor's place: the model in use first with its
    check mark; typing searches, Enter switches."""
    pane.wait_for_editor()
    pane.type("/model")
    pane.keys("Enter")
    screen = pane.wait_for("  Model Name: fake-model")
    assert "Only showing models from configured providers. Use /login to add providers." in screen
    assert "→ ✓ fake-model [loop]" in screen and "    fake-claude [loopa]" in screen
    pane.type("claude")
    pane.wait_for("→   fake-claude [loopa]")
    pane.keys("Enter")
    pane.wait_for("Model: loopa/fake-claude")
    assert "Model Name" not in pane.visible()  # the selector erased itself
    pane.wait_for_editor()
    pane.keys("C-l")  # app.model.select opens it too, now on the new model
    pane.wait_for("→ ✓ fake-claude [loopa]")
    pane.keys("Escape")
    pane.wait_for(lambda screen: "Model Name" not in screen)
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0")


def test_resume_selector_in_tmux(pi_env: PiEnv, pane: Pane) -> None:
    """/resume draws pi's session selector: scope, name filter and order in its title line,
    each session with its message count and age; Enter switches to the highlighted one."""
    pi_env.server.add(text_turn("the earlier answer"))
    pane.wait_for_editor()
    pane.type("an earlier question")
    pane.keys("Enter")
    pane.wait_for(lambda screen: "loop/fake-model · context" in screen.split("the earlier answer")[-1])
    pane.type("/new")
    pane.keys("Enter")
    pane.wait_for("New session started")
    pane.wait_for_editor()
    pane.type("/resume")
    pane.keys("Enter")
    screen = pane.wait_for("Resume Session (Current Folder)")
    assert "◉ Current Folder | ○ All  Name: All  Sort: Threaded" in screen
    assert "ctrl+s sort · ctrl+n named · ctrl+d delete · ctrl+p path (off) · ctrl+r rename" in screen
    row = next(line for line in screen.splitlines() if line.startswith("› an earlier question"))
    assert row.rstrip().endswith("3 now")  # the system message, the question, the answer
    pane.keys("C-s")
    pane.wait_for("Sort: Recent")
    pane.keys("C-r")  # the rename field edits as pi's input: Home goes to the start
    pane.wait_for("Rename Session")
    pane.type("topic")
    pane.keys("Home")
    pane.type("my ")
    pane.keys("Enter")
    pane.wait_for("› my topic")
    pane.type("earlier answer")  # words of the answer, not of the name or the first message
    pane.wait_for(lambda screen: "> earlier answer" in screen and "› my topic" in screen)
    pane.keys("Enter")
    pane.wait_for("the earlier answer")
    pane.wait_for("Resumed")
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0")


SLOW_RELOAD_EXTENSION = """
import asyncio
from pi_core import hookimpl


@hookimpl
async def session_start(event, ctx):
    if event.reason == "reload":
        await asyncio.sleep(2)  # /reload keeps the editor away meanwhile
"""


def test_keys_typed_while_the_editor_is_away_still_submit(pi_env: PiEnv, pane: Pane) -> None:
    """Typed during a slow /reload, the text is neither echoed over the output nor split by Enter."""
    extensions = pi_env.agent_dir / "extensions"
    extensions.mkdir(exist_ok=True)
    (extensions / "slow.py").write_text(SLOW_RELOAD_EXTENSION)
    pi_env.server.add(text_turn("typed-ahead prompt answered"))
    pane.wait_for("/help for commands")
    pane.wait_for_editor()
    pane.type("/reload")
    pane.keys("Enter")
    pane.wait_for("> /reload")
    pane.type("typed ahead")
    pane.keys("Enter")
    screen = pane.wait_for("typed-ahead prompt answered")
    assert "> typed ahead" in screen
    lines = [line.rstrip() for line in screen.splitlines()]
    assert "typed ahead" not in lines  # no tty echo of the keys
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0")


def test_resume_flag_opens_the_picker_in_tmux(pi_env: PiEnv) -> None:
    """``pi -r`` on a terminal chooses the session in pi's session selector, then replays it."""
    pi_env.server.add(text_turn("older answer"), text_turn("newer answer"))
    for question in ("older question", "newer question"):
        assert pi_env.run("-p", question).returncode == 0
        time.sleep(0.05)  # distinct modification times
    pane = start_pane(pi_env, "-r")
    try:
        screen = pane.wait_for("Resume Session (Current Folder)")
        assert "› newer question" in screen and "  older question" in screen
        assert "ctrl+r rename" not in screen  # as pi's: no renaming before the REPL starts
        pane.keys("Down", "Enter")  # newest first: Down picks the older session
        screen = pane.wait_for("older answer")
        assert "> older question" in screen and "newer answer" not in screen
        pane.wait_for_editor()
        pane.keys("C-d")
        pane.wait_for("PI-EXITED=0")
    finally:
        pane.kill()


def _idle_count(screen: str) -> int:
    """Finished runs so far: each prints the footer line (the idle status line repeats it once)."""
    return screen.count("loop/fake-model · context")


def test_escape_aborts_within_a_fraction_of_a_second(pi_env: PiEnv, pane: Pane) -> None:
    """Esc is not held back as the start of an Alt sequence (it used to take over a second)."""
    pi_env.server.add(Turn(blocks=[Text("streaming " * 600, chunks=300)], delay=0.03))
    pane.wait_for_editor()
    pane.type("tell me a long story")
    pane.keys("Enter")
    pane.wait_for("streaming streaming")
    started = time.monotonic()
    pane.keys("Escape")
    pane.wait_for("Operation aborted", poll=0.005)
    elapsed = time.monotonic() - started
    # Measured ~0.03-0.06 s on an idle machine; the bound leaves room for a loaded CI box and
    # still catches the old 1.1 s hold-back.
    assert elapsed < 0.7, elapsed


def test_parallel_tool_calls_each_with_its_result_in_tmux(pi_env: PiEnv, pane: Pane) -> None:
    pi_env.server.add(
        tool_turn(
            ToolUse("bash", {"command": "sleep 1; echo SLOW-ONE-DONE"}),
            ToolUse("bash", {"command": "echo QUICK-TWO-DONE"}),
        ),
        text_turn("all tools finished"),
    )
    pane.wait_for_editor()
    pane.type("run two tools")
    pane.keys("Enter")
    screen = pane.wait_for("all tools finished")
    lines = [line.rstrip() for line in screen.splitlines()]
    first = lines.index("● $ sleep 1; echo SLOW-ONE-DONE")
    second = lines.index("● $ echo QUICK-TWO-DONE")
    assert lines[first + 1] == "SLOW-ONE-DONE" and second == first + 2
    assert lines[second + 1] == "QUICK-TWO-DONE"


def test_tool_output_cannot_retitle_the_pane(pi_env: PiEnv, pane: Pane) -> None:
    command = r"printf 'title:\033]0;PWNED-BY-TOOL\007:kept\033[31m red\n'"
    pi_env.server.add(tool_turn(ToolUse("bash", {"command": command})), text_turn("escapes printed"))
    pane.wait_for_editor()
    pane.type("print it")
    pane.keys("Enter")
    pane.wait_for("escapes printed")
    assert "title::kept red" in pane.screen()
    assert "PWNED" not in pane.tmux("display-message", "-p", "-t", "pi", "#{pane_title}")
    coloured = pane.tmux("capture-pane", "-p", "-e", "-t", "pi", "-S", "-200")
    line = next(line for line in coloured.splitlines() if "title::kept" in line)
    assert "\x1b[31m" not in line  # the tool's own colour did not get through either


def test_tree_redraws_in_place_with_the_diff_intact(pi_env: PiEnv, pane: Pane) -> None:
    (pi_env.project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    pi_env.server.add(
        tool_turn(ToolUse("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]})),
        text_turn("edit made"),
        text_turn("second answer"),
    )
    pane.wait_for_editor()
    pane.type("change beta")
    pane.keys("Enter")
    pane.wait_for(lambda screen: "edit made" in screen and _idle_count(screen) >= 1)
    pane.type("another question")
    pane.keys("Enter")
    pane.wait_for(lambda screen: "second answer" in screen and _idle_count(screen) >= 2)
    pane.type("/tree")
    pane.keys("Enter")
    pane.wait_for("Session Tree")
    pane.keys("Up", "Up")
    pane.wait_for("› • assistant: edit made")
    pane.keys("Enter")
    pane.wait_for("Summarize branch?")
    pane.keys("Enter")
    screen = pane.wait_for("Moved to a new position in the tree")
    assert screen.count("> change beta") == 1  # drawn once, not a copy under the old output
    assert "-2 beta" in screen and "+2 BETA" in screen
    assert "Successfully replaced" not in screen
    assert "second answer" not in screen  # the branch left is gone from the transcript


def test_resize_to_sixty_columns_and_back(pi_env: PiEnv, pane: Pane) -> None:
    pi_env.server.add(text_turn("narrow " * 30), text_turn("wide again"))
    pane.wait_for_editor()
    pane.tmux("resize-window", "-t", "pi", "-x", "60", "-y", "30")
    pane.type("answer narrowly")
    pane.keys("Enter")
    screen = pane.wait_for(lambda s: "narrow narrow" in s and _idle_count(s) >= 1)
    # -J joins rows the terminal wrapped: an answer laid out for 120 columns would show as long lines.
    answer = [line.rstrip() for line in screen.splitlines() if "narrow narrow" in line]
    assert answer and max(len(line) for line in answer) <= 60
    pane.tmux("resize-window", "-t", "pi", "-x", "120", "-y", "40")
    pane.type("and wide")
    pane.keys("Enter")
    pane.wait_for("wide again")
    pane.wait_for_editor()
    pane.keys("C-d")
    pane.wait_for("PI-EXITED=0")
    assert "Traceback" not in pane.screen()


def test_streaming_answer_is_visible_while_it_grows(pi_env: PiEnv, pane: Pane) -> None:
    """A long paragraph shows as it streams, not only its last rows and not only once it ends."""
    words = " ".join(f"w{i:03d}" for i in range(400))
    pi_env.server.add(Turn(blocks=[Text(words, chunks=200)], delay=0.03))
    pane.wait_for_editor()
    pane.type("one long paragraph")
    pane.keys("Enter")
    early = pane.wait_for("w050")
    assert "w001" in early and "w399" not in early  # its start is on screen while it is unfinished
    later = pane.wait_for("w200")
    assert "w001" in later
    pane.wait_for("w399")


def test_repl_asks_what_to_do_with_a_session_whose_folder_is_gone(pi_env: PiEnv) -> None:
    # pi 1.6.0: continue in this cwd, fork into it, or cancel. Here: fork, then go on in the fork.
    from tests.e2e.test_sessions_cli import _records, _session_of_a_deleted_folder, _user_texts

    path = _session_of_a_deleted_folder(pi_env)
    before = path.read_bytes()
    pi_env.server.add(text_turn("answer in the fork"))
    pane = start_pane(pi_env, "--session", str(path))
    try:
        pane.wait_for(f"Session cwd does not exist: {pi_env.root / 'deleted-project'}")
        # The row is cut at the pane's width when the temporary folder's path is long (CI's is).
        pane.wait_for(f"Fork into {pi_env.project}")
        pane.keys("Down")
        pane.keys("Enter")
        pane.wait_for_editor()
        pane.submit("next prompt")
        pane.wait_for("answer in the fork")
        pane.keys("C-d")
        pane.wait_for("PI-EXITED=0")
    finally:
        pane.kill()
    forked = [file for file in pi_env.session_files() if file != path]
    assert len(forked) == 1
    assert (_records(forked[0])[0]["cwd"], _records(forked[0])[0]["parentSession"]) == (
        str(pi_env.project),
        str(path),
    )
    assert _user_texts(forked[0]) == ["old prompt", "next prompt"]
    assert path.read_bytes() == before
