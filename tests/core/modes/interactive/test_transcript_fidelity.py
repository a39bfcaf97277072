"""What the transcript shows: tool calls each with its own result, failed output cut like
successful output, terminal control sequences removed, sessions redrawn as they looked live,
and the small listings (/model, /session, /fork)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_core.modes.interactive.app import (
    OUTPUT_PAUSE,
    SEQUENCE_WAIT,
    _git_branch,
    escape_wait,
    output_above_editor,
)
from pi_core.modes.interactive.sanitize import sanitize
from pi_core.testing import LoopbackLLMServer, Text, Thinking, ToolUse, Turn, text_turn, tool_turn

UP = "\x1b[A"


def test_sanitize_removes_every_kind_of_control_sequence() -> None:
    assert sanitize("\x1b]0;PWNED title\x07visible") == "visible"
    assert sanitize("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") == "link"
    assert sanitize("\x1b]52;c;Zm9v\x07") == ""  # a clipboard write
    assert sanitize("\x1b[2J\x1b[H\x1b[31mred\x1b[0m") == "red"
    assert sanitize("\x1bPq#0;2;0;0;0\x1b\\after") == "after"  # DCS (sixel)
    assert sanitize("\x9b31mC1 CSI") == "C1 CSI"
    assert sanitize("bell\x07 nul\x00 bs\x08 tab\tstays\nnewline") == "bell nul bs tab\tstays\nnewline"
    assert sanitize("10%\r55%\r100%\r\ndone\r\n") == "100%\ndone\n"
    assert sanitize("unterminated \x1b]0;title to the end") == "unterminated "
    assert sanitize("ünïcode ✓ 字") == "ünïcode ✓ 字"


def test_escape_waits_as_pi_does(monkeypatch: Any) -> None:
    """10 ms for the rest of an escape sequence, 100 ms over SSH, PI_TUI_ESC_TIMEOUT (ms) first;
    the key processor adds no wait of its own after Esc."""
    for name in ("PI_TUI_ESC_TIMEOUT", "SSH_CONNECTION", "SSH_TTY"):
        monkeypatch.delenv(name, raising=False)
    assert escape_wait() == 0.01
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22")
    assert escape_wait() == 0.1
    monkeypatch.setenv("PI_TUI_ESC_TIMEOUT", "250")
    assert escape_wait() == 0.25
    for bad in ("soon", "0", "-5", "inf"):
        monkeypatch.setenv("PI_TUI_ESC_TIMEOUT", bad)
        assert escape_wait() == 0.1
    assert SEQUENCE_WAIT == 0


def test_output_above_the_editor_is_written_without_a_long_pause() -> None:
    import sys

    before = sys.stdout, sys.stderr
    with output_above_editor() as proxy:
        assert sys.stdout is proxy and sys.stderr is proxy
        assert proxy.sleep_between_writes == OUTPUT_PAUSE <= 0.05
    assert (sys.stdout, sys.stderr) == before


def test_git_branch_read_from_head(tmp_path: Any) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "sub").mkdir()
    assert _git_branch(str(tmp_path / "sub")) == "feature/x"
    (tmp_path / ".git" / "HEAD").write_text("0123456789abcdef\n")
    assert _git_branch(str(tmp_path)) == "01234567"


async def test_parallel_tool_calls_each_show_their_result_beneath(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(
        tool_turn(
            ToolUse("bash", {"command": "sleep 0.6; echo SLOW-FIRST-RESULT"}),
            ToolUse("bash", {"command": "echo FAST-SECOND-RESULT"}),
        ),
        text_turn("both done"),
    )
    repl = await repl_factory()
    await repl.submit("run both")
    await repl.wait_for("both done", 15)
    await repl.idle()
    out = repl.output
    first_call = out.index("$ sleep 0.6; echo SLOW-FIRST-RESULT") + 35
    first_result = out.index("SLOW-FIRST-RESULT", first_call)
    second_call = out.index("$ echo FAST-SECOND-RESULT") + 25
    second_result = out.index("FAST-SECOND-RESULT", second_call)
    assert first_call < first_result < second_call < second_result
    await repl.quit()


async def test_failed_output_is_cut_like_successful_output(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    command = "for i in $(seq 1 100); do echo line-$i; done; exit 3"
    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": command})), text_turn("it failed"))
    repl = await repl_factory()
    await repl.submit("fail loudly")
    await repl.wait_for("it failed", 15)
    await repl.idle()
    out = repl.output
    assert "line-100" in out and "line-50\n" not in out and "earlier lines" in out
    repl.send("\x0f")  # Ctrl+O: the last result again, in full
    await repl.wait_for("line-50\n")
    await repl.quit()


async def test_tool_output_escape_sequences_never_reach_the_terminal(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    command = r"printf 'before\033]0;PWNED-TITLE\007after\033[2J\n'"
    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": command})), text_turn("printed"))
    repl = await repl_factory()
    await repl.submit("print escapes")
    await repl.wait_for("printed", 15)
    await repl.idle()
    out = repl.output
    assert "beforeafter" in out
    assert "\x1b" not in out and "\x07" not in out and "PWNED-TITLE" not in out.split("beforeafter")[1]
    await repl.quit()


async def test_resume_redraws_edit_diffs_and_results_under_their_calls(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory()
    (repl.project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    pi_llm_server.add(
        tool_turn(ToolUse("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]})),
        text_turn("edited"),
    )
    await repl.submit("edit it")
    await repl.wait_for("edited", 15)
    await repl.idle()
    await repl.submit("/new")
    await repl.wait_for("New session started")
    mark = len(repl.output)
    await repl.submit("/resume")
    await repl.in_dialog()
    repl.send("\r")
    await repl.wait_for("Resumed")
    replayed = repl.output[mark:]
    assert "-2 beta" in replayed and "+2 BETA" in replayed  # the diff, not "Successfully replaced"
    assert replayed.index("edit notes.txt") < replayed.index("+2 BETA") < replayed.index("edited")
    await repl.quit()


async def test_fork_lists_each_message_once_from_every_branch(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("answer one"), text_turn("answer two"), text_turn("answer three"))
    repl = await repl_factory()
    for question, answer in (("question one", "answer one"), ("question two", "answer two")):
        await repl.submit(question)
        await repl.wait_for(answer)
        await repl.idle()
    await repl.submit("/tree")
    await repl.in_dialog()
    repl.send(UP + UP + "\r")  # back to "answer one"
    await repl.in_dialog()
    repl.send("\r")  # no summary
    await repl.wait_for("Moved to a new position in the tree")
    await repl.idle()
    await repl.submit("question three")  # a second branch
    await repl.wait_for("answer three")
    await repl.idle()
    rows = [text for _, text in repl.mode.host.session.get_user_messages_for_forking()]
    assert rows == ["question one", "question two", "question three"]
    mark = len(repl.output)
    await repl.submit("/fork")
    await repl.in_dialog()
    repl.send(UP + "\r")  # from the newest message up to the one before it
    await repl.wait_for("Forked into a new session")
    assert "Fork from" not in repl.output[mark:]  # the selector echoes nothing, as pi's
    await repl.until(lambda: repl.mode.get_editor_text() == "question two")
    repl.send("\x15")
    await repl.quit()


async def test_model_picker_marks_the_current_model_and_session_shows_the_full_path(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("an answer"))
    repl = await repl_factory()
    await repl.submit("hello")
    await repl.wait_for("an answer")
    await repl.idle()
    await repl.submit("/model")
    await repl.in_dialog()
    repl.send("\r")  # Enter on the highlighted row: the current model
    await repl.wait_for("Model: loop/fake-model")
    await repl.idle()
    await repl.submit("/session")
    await repl.wait_for("Messages")
    path = repl.mode.host.session.session_file
    assert path is not None
    assert path in repl.output.replace("\n", "").replace(" ", "")
    await repl.quit()


MODEL_TEXT = (
    "intro \x1b]0;PWNED-BY-MODEL\x07mid \x1b[2J\x1b[31mred\x1b[0m \x1bPq#0;2;0;0;0\x1b\\dcs "
    "\x9b1;2Hc1 \x9d0;C1-TITLE\x9cend"
)


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_escape_sequences_in_model_text_are_removed_whole_even_split_across_deltas(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    """One character per delta: a sequence cut in pieces is removed whole, its payload (a title)
    does not show as text, live or once printed — the same as when the session is replayed."""
    thinking = "think\x1b]0;THINK-TITLE\x07ing"
    pi_llm_server.add(
        Turn(blocks=[Thinking(thinking, chunks=len(thinking)), Text(MODEL_TEXT, chunks=len(MODEL_TEXT))])
    )
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.submit("say something odd")
    await repl.wait_for("c1 end", 15)
    await repl.idle()
    out = repl.output
    assert "intro mid red dcs c1 end" in out and "thinking" in out
    for leaked in ("PWNED", "TITLE", "1;2H", "\x1b", "\x9b", "\x9d", "\x9c", "\x07"):
        assert leaked not in out, leaked
    await repl.quit()


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_a_call_drawn_as_several_parts_starts_on_the_bullet_row(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    """The write tool draws its title above the content: the title goes on the bullet's row."""
    pi_llm_server.add(
        tool_turn(ToolUse("write", {"path": "new.txt", "content": "hello\n"})), text_turn("written")
    )
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.submit("write it")
    await repl.wait_for("written", 15)
    await repl.idle()
    lines = [line.rstrip() for line in repl.output.splitlines()]
    assert "● write new.txt" in lines and "●" not in lines
    assert lines[lines.index("● write new.txt") + 1] == "hello"
    await repl.quit()
