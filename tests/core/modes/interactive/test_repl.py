"""The REPL against the loopback server: prompts, tools, slash commands, abort, user bash."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.runtime.themes import Theme
from pi_core.testing import LoopbackLLMServer, Text, Thinking, ToolUse, Turn, text_turn, tool_turn

ESC = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"


def session_files(sessions: Path) -> list[Path]:
    return sorted(p for p in sessions.rglob("*.jsonl") if p.stat().st_size)


async def test_prompt_streams_answer_as_markdown_and_prints_footer(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Thinking("pondering the question"), Text("# Title\n\nHello **world**")]))
    repl = await repl_factory()
    await repl.submit("hi there")
    await repl.wait_for("loop/fake-model · context")
    out = repl.output
    assert "> hi there" in out
    assert "pondering the question" in out
    assert "Title" in out and "# Title" not in out  # rendered as markdown, not raw
    assert "Hello world" in out and "**" not in out
    assert "· ↑10 ↓5" in out  # the footer's token figures (the loopback turn's usage)
    assert await repl.quit() == 0
    [file] = session_files(repl.sessions)
    roles = [json.loads(line).get("message", {}).get("role") for line in file.read_text().splitlines()]
    assert roles.count("user") == 1 and roles.count("assistant") == 1


async def test_tool_call_rendered_through_tool_renderers(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(
        tool_turn(ToolUse("bash", {"command": "echo from-the-tool"})),
        text_turn("done"),
    )
    repl = await repl_factory()
    await repl.submit("run it")
    await repl.wait_for("done")
    await repl.idle()
    out = repl.output
    assert "$ echo from-the-tool" in out  # the bash tool's render_call
    assert "from-the-tool" in out.split("$ echo from-the-tool", 1)[1]  # its result
    await repl.quit()


async def test_builtin_slash_commands(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory()
    await repl.submit("/name my work")
    await repl.wait_for("Session name: my work")
    await repl.submit("/model other")  # not an exact reference: the selector, with it as the search
    await repl.in_dialog()
    repl.send("\r")
    await repl.wait_for("Model: loop/other-model")
    session = repl.mode.host.session
    assert session.model.id == "other-model"
    assert session.settings.settings.default_model != "other-model"  # Enter: this session only
    await repl.submit("/model other")
    await repl.in_dialog()
    repl.send("\x13")  # Ctrl+S: and the default of new sessions
    await repl.wait_for("Default model: loop/other-model")
    assert session.settings.settings.default_model == "other-model"
    await repl.submit("/thinking high")
    await repl.wait_for("Thinking level: high")
    await repl.submit("/thinking loud")
    await repl.wait_for('Unknown thinking level "loud". Available levels: off, minimal, low, medium, high.')
    await repl.submit("/session")
    await repl.wait_for("Messages")
    await repl.submit("/compact")
    await repl.wait_for("Nothing to compact")
    await repl.submit("/help")
    await repl.wait_for("/export [file]")
    first_id = repl.mode.host.session.session_id
    await repl.submit("/new")
    await repl.wait_for("New session started")
    assert repl.mode.host.session.session_id != first_id
    await repl.submit("/export")
    await repl.wait_for("Nothing to export yet")
    assert await repl.quit() == 0


async def test_export_writes_html(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(text_turn("exported answer"))
    repl = await repl_factory()
    await repl.submit("hello")
    await repl.wait_for("exported answer")
    await repl.idle()
    target = tmp_path / "out.html"
    assert repl.mode.ui.set_theme("light").success
    await repl.submit(f"/export {target}")
    await repl.wait_for("Session exported to:")
    page = target.read_text()
    assert "exported answer" in page
    # in the theme in use, with its export colours (light's pageBg is okhsl(17 3% 94%))
    assert f"--exportPageBg:{Theme('light').export['pageBg']};" in page
    assert Theme("light").export["pageBg"] == "#efeeee"
    assert await repl.quit() == 0


async def test_abort_mid_stream_keeps_session_valid_and_repl_usable(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    long_text = "word " * 200
    pi_llm_server.add(Turn(blocks=[Text(long_text, chunks=100)], delay=0.05), text_turn("second answer"))
    repl = await repl_factory()
    await repl.submit("talk a lot")
    await repl.until(lambda: repl.mode.host.session.is_streaming)
    await repl.until(lambda: len(pi_llm_server.requests) == 1)
    repl.send(ESC)
    await repl.wait_for("Operation aborted")
    await repl.idle()
    await repl.submit("again")
    await repl.wait_for("second answer")
    await repl.idle()
    assert await repl.quit() == 0
    [file] = session_files(repl.sessions)
    entries = [json.loads(line) for line in file.read_text().splitlines()]  # every line is JSON
    messages = [e["message"] for e in entries if e.get("type") == "message"]
    reasons = [m.get("stopReason") for m in messages if m["role"] == "assistant"]
    assert reasons == ["aborted", "stop"]


async def test_the_rest_of_an_aborted_answer_and_its_notice_go_out_in_one_write(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    """Above the regular editor writes are paced: the notice must not wait out the pause after
    the answer's last block."""
    pi_llm_server.add(Turn(blocks=[Text("partial words " * 100, chunks=100)], delay=0.05))
    repl = await repl_factory()
    writes: list[str] = []
    file = repl.mode.console.file
    real_write = file.write

    def write(text: str) -> int:
        writes.append(text)
        return real_write(text)

    file.write = write  # type: ignore[method-assign]
    await repl.submit("talk")
    await repl.until(lambda: "partial words" in repl.mode.renderer.pending_text())
    repl.send(ESC)
    await repl.wait_for("Operation aborted")
    [ending] = [text for text in writes if "Operation aborted" in text]
    assert "partial words" in ending
    await repl.idle()
    assert await repl.quit() == 0


async def test_ctrl_c_aborts_then_twice_quits(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("x " * 300, chunks=100)], delay=0.05))
    repl = await repl_factory()
    await repl.submit("go")
    await repl.until(lambda: repl.mode.host.session.is_streaming)
    repl.send(CTRL_C)
    await repl.wait_for("Operation aborted")
    await repl.idle()
    await repl.wait_idle_editor()
    repl.send(CTRL_C + CTRL_C)
    assert await repl.task == 0


async def test_ctrl_d_quits_at_empty_prompt(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.wait_idle_editor()
    repl.send(CTRL_D)
    assert await repl.task == 0


async def test_enter_while_running_steers(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(
        Turn(blocks=[ToolUse("bash", {"command": "sleep 0.3; echo slept"})]),
        text_turn("steered reply"),
    )
    repl = await repl_factory()
    await repl.submit("start")
    await repl.until(lambda: repl.mode.host.session.is_streaming)
    await repl.submit("change of plan")
    await repl.wait_for("steered reply")
    await repl.idle()
    second = pi_llm_server.requests[1].body
    assert "change of plan" in json.dumps(second)
    await repl.quit()


async def test_user_bash(repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(text_turn("seen"))
    repl = await repl_factory()
    await repl.submit("!echo visible-output")
    await repl.wait_for("visible-output\n")
    await repl.idle()
    await repl.submit("!!echo hidden-output")
    await repl.wait_for("hidden-output\n")
    await repl.idle()
    await repl.submit("what did I run?")
    await repl.wait_for("seen")
    await repl.idle()
    body = json.dumps(pi_llm_server.requests[0].body)
    assert "visible-output" in body and "hidden-output" not in body
    await repl.quit()


async def test_alt_enter_queues_a_follow_up(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(
        Turn(blocks=[ToolUse("bash", {"command": "sleep 0.3"})]),
        text_turn("after the tool"),
        text_turn("follow-up answered"),
    )
    repl = await repl_factory()
    await repl.submit("start")
    await repl.until(lambda: repl.mode.host.session.is_streaming)
    await repl.wait_idle_editor()
    repl.send("and then this" + ESC + "\r")
    await repl.wait_for("follow-up answered")
    await repl.idle()
    assert len(pi_llm_server.requests) == 3
    assert "and then this" in json.dumps(pi_llm_server.requests[2].body)
    assert "and then this" not in json.dumps(pi_llm_server.requests[1].body)
    await repl.quit()


async def test_escape_brings_queued_messages_back_to_the_editor(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("y " * 300, chunks=100)], delay=0.05))
    repl = await repl_factory()
    await repl.submit("go")
    await repl.until(lambda: repl.mode.host.session.is_streaming)
    await repl.submit("queued one")
    await repl.wait_for("Queued: steer: queued one")
    repl.send(ESC)
    await repl.wait_for("Operation aborted")
    await repl.idle()
    await repl.until(lambda: repl.mode.get_editor_text() == "queued one")
    assert repl.mode.host.session.pending_message_count == 0
    repl.send("\x15")  # Ctrl+U: clear the line so /quit is typed alone
    assert await repl.quit() == 0


async def test_initial_message_and_further_messages_run_in_order(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("answer one"), text_turn("answer two"))
    repl = await repl_factory(initial="first question", messages=("second question",))
    await repl.wait_for("answer two")
    await repl.idle()
    out = repl.output
    assert out.index("> first question") < out.index("answer one") < out.index("> second question")
    assert await repl.quit() == 0


async def test_thinking_cycle_and_model_cycle_keys(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.wait_idle_editor()
    repl.send("\x1b[Z")  # Shift+Tab
    await repl.wait_for("The current model does not support thinking")
    repl.send("\x10")  # Ctrl+P
    await repl.wait_for("Model: loop/other-model (thinking")
    repl.send("\x1b[Z")
    await repl.wait_for("Thinking level:")
    assert await repl.quit() == 0


async def test_resume_switches_session_and_replays_it(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("answer in the old session"))
    repl = await repl_factory()
    await repl.submit("old question")
    await repl.wait_for("answer in the old session")
    await repl.idle()
    old_file = repl.mode.host.session.session_file
    await repl.submit("/new")
    await repl.wait_for("New session started")
    mark = len(repl.output)
    await repl.submit("/resume")
    await repl.in_dialog()
    repl.send("\r")  # the newest session first: the old one (the new one has nothing written yet)
    await repl.wait_for("Resumed")
    assert repl.mode.host.session.session_file == old_file
    replayed = repl.output[mark:]
    assert "> old question" in replayed and "answer in the old session" in replayed
    assert await repl.quit() == 0


async def test_fork_puts_the_message_back_in_the_editor(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    repl = await repl_factory()
    for question, answer in (("first q", "one"), ("second q", "two")):
        await repl.submit(question)
        await repl.wait_for(answer)
        await repl.idle()
    old_file = repl.mode.host.session.session_file
    await repl.submit("/fork")
    await repl.in_dialog()
    repl.send("2\r")
    await repl.wait_for("Forked into a new session")
    await repl.until(lambda: repl.mode.get_editor_text() == "second q")
    session = repl.mode.host.session
    assert session.session_file != old_file
    assert [m.role for m in session.messages if m.role != "system"] == ["user", "assistant"]
    repl.send("\x15")
    assert await repl.quit() == 0


async def test_continue_replays_the_transcript_at_start(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("remembered answer"))
    first = await repl_factory()
    await first.submit("remember me")
    await first.wait_for("remembered answer")
    assert await first.quit() == 0
    second = await repl_factory(continue_recent=True)
    await second.wait_for("remembered answer")
    assert "> remember me" in second.output
    assert await second.quit() == 0


async def test_alt_up_restores_queued_messages_without_aborting(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("z " * 100, chunks=50)], delay=0.03))
    repl = await repl_factory()
    await repl.submit("go")
    await repl.until(lambda: repl.mode.host.session.is_streaming)
    await repl.submit("later please")
    await repl.wait_for("Queued: steer: later please")
    repl.send("\x1b\x1b[A")  # Alt+Up
    await repl.wait_for("Restored 1 queued message(s) to editor")
    await repl.until(lambda: repl.mode.get_editor_text() == "later please")
    await repl.idle()
    assert "Operation aborted" not in repl.output
    assert len(pi_llm_server.requests) == 1
    repl.send("\x15")
    assert await repl.quit() == 0


async def test_running_tool_output_shows_live_under_the_editor(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(
        tool_turn(ToolUse("bash", {"command": "echo live-line-1; echo live-line-2; sleep 1.5; echo end"})),
        text_turn("finished"),
    )
    repl = await repl_factory()
    await repl.submit("run slowly")
    await repl.until(lambda: "live-line-2" in (repl.mode._toolbar() or ""))
    assert "bash running…" in (repl.mode._toolbar() or "")
    await repl.wait_for("finished")
    await repl.idle()
    assert "live-line" not in (repl.mode._toolbar() or "")
    await repl.quit()


async def test_clone_copies_the_conversation(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("cloned answer"))
    repl = await repl_factory()
    await repl.submit("/clone")
    await repl.wait_for("Nothing to clone yet")
    await repl.submit("question")
    await repl.wait_for("cloned answer")
    await repl.idle()
    old_file = repl.mode.host.session.session_file
    await repl.submit("/clone")
    await repl.wait_for("Cloned into")
    session = repl.mode.host.session
    assert session.session_file != old_file
    assert [m.role for m in session.messages if m.role != "system"] == ["user", "assistant"]
    assert await repl.quit() == 0


async def test_message_typed_during_a_command_job_is_sent_afterwards(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("after the shell command"))
    repl = await repl_factory()
    await repl.submit("!sleep 0.5; echo shell-done")
    await repl.until(lambda: repl.mode.busy)
    await repl.submit("held question")
    await repl.wait_for("Queued: held question")
    await repl.wait_for("after the shell command")
    await repl.idle()
    body = json.dumps(pi_llm_server.requests[0].body)
    assert "held question" in body and "shell-done" in body
    assert await repl.quit() == 0


async def test_block_being_streamed_shows_live_under_the_editor(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("one long paragraph " * 40, chunks=40)], delay=0.03))
    repl = await repl_factory()
    await repl.submit("go")
    await repl.until(lambda: "one long paragraph" in (repl.mode._toolbar() or ""))
    assert "one long paragraph" not in repl.output  # printed as markdown only once complete
    await repl.wait_for("one long paragraph")
    await repl.idle()
    assert "one long paragraph" not in (repl.mode._toolbar() or "")
    await repl.quit()


async def test_streaming_redraws_are_paced_and_plain_rows_are_not_parsed_as_ansi(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    """Tokens at ~200/s redraw the editor at most every LIVE_REFRESH, not once each (a key
    redraws at once anyway); the streamed rows reach the toolbar as one fragment per row, a
    plugin's coloured status as its styles."""
    from pi_core.modes.interactive.app import LIVE_REFRESH
    from pi_core.modes.interactive.ui import INDICATOR_INTERVAL

    pi_llm_server.add(Turn(blocks=[Text("tok " * 300, chunks=300)], delay=0.005))
    repl = await repl_factory()
    mode = repl.mode
    await repl.until(lambda: mode._editor is not None and mode._editor.app.is_running)
    app = mode._editor.app
    redraws: list[float] = []
    real_invalidate = app.invalidate

    def invalidate() -> None:
        redraws.append(time.monotonic())
        real_invalidate()

    app.invalidate = invalidate  # type: ignore[method-assign]
    mode.ui.set_status("mark", "\x1b[31mRED\x1b[0m")
    await repl.submit("stream")
    await repl.until(lambda: "tok " * 8 in (mode._toolbar() or ""), 10)
    toolbar = mode._styled_toolbar()
    assert toolbar is not None
    rows = [text for _, text, *_ in toolbar if "tok" in text]
    assert rows and all(row.startswith("tok") and len(row) > 20 for row in rows)
    assert "".join(text for style, text, *_ in toolbar if "red" in style) == "RED"
    assert "\x1b" not in str(toolbar)
    started = time.monotonic()
    await repl.until(lambda: not mode.renderer.pending_text(), 15)
    streamed = time.monotonic() - started
    await repl.idle()
    during = [t for t in redraws if started <= t <= started + streamed]
    # The working row's spinner redraws at each of its frames too; one redraw per token would
    # be ~300 here.
    expected = streamed / LIVE_REFRESH + streamed / INDICATOR_INTERVAL
    assert len(during) <= expected * 1.25 + 5, (len(during), streamed)
    assert await repl.quit() == 0


UP = "\x1b[A"
DOWN = "\x1b[B"


async def test_tree_moves_to_an_earlier_point_with_or_without_a_summary(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("answer one"), text_turn("answer two"))
    repl = await repl_factory()
    for question, answer in (("question one", "answer one"), ("question two", "answer two")):
        await repl.submit(question)
        await repl.wait_for(answer)
        await repl.idle()
    session_file = repl.mode.host.session.session_file

    await repl.submit("/tree")
    await repl.in_dialog()
    repl.send(UP + UP + "\r")  # from the active "answer two" up to "assistant: answer one"
    await repl.in_dialog()
    repl.send("\r")  # No summary
    await repl.wait_for("Moved to a new position in the tree")
    session = repl.mode.host.session
    assert session.session_file == session_file  # /tree stays in the same file
    assert [m.role for m in session.messages if m.role != "system"] == ["user", "assistant"]

    pi_llm_server.add(text_turn("answer three"), text_turn("## Goal\nthe branch that was left"))
    await repl.idle()
    await repl.submit("question three")  # a second branch from "answer one"
    await repl.wait_for("answer three")
    await repl.idle()
    await repl.submit("/tree all")
    await repl.in_dialog()
    repl.send("question two\r")  # type to filter, Enter: a user message goes back to the editor
    await repl.in_dialog()
    repl.send(DOWN + "\r")  # "Summarize"
    await repl.wait_for("with a summary of the branch left")
    await repl.until(lambda: repl.mode.get_editor_text() == "question two")
    messages = repl.mode.host.session.messages
    assert [m.role for m in messages if m.role != "system"] == ["user", "assistant", "branchSummary"]
    assert "the branch that was left" in messages[-1].summary
    summary_request = pi_llm_server.requests[-1].body["messages"][-1]["content"]
    assert "question three" in str(summary_request)  # the branch left is what got summarized
    repl.send("\x15")  # clear the editor
    assert await repl.quit() == 0


async def test_tree_shift_l_labels_an_entry(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("answer one"))
    repl = await repl_factory()
    await repl.submit("question one")
    await repl.wait_for("answer one")
    await repl.idle()
    await repl.submit("/tree")
    await repl.in_dialog()
    repl.send(UP + "Lcheckpoint\r")  # label "user: question one", in a field in the tree's place
    manager = repl.mode.host.session.session_manager
    await repl.until(lambda: manager.get_label(first_user_id(repl)) == "checkpoint")
    repl.send("\x1b")  # leave the tree (still open, on the labelled row)
    await repl.wait_idle_editor()
    assert "Go to which entry?" not in repl.output  # the tree echoes nothing when it closes
    assert await repl.quit() == 0


def first_user_id(repl: Any) -> str:
    branch = repl.mode.host.session.session_manager.get_branch()
    return next(e.id for e in branch if e.type == "message" and e.message.role == "user")


async def test_header_and_status_line_show_the_directory_under_home_with_a_tilde(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    repl = await repl_factory()
    await repl.wait_for("pi · loop/fake-model")
    header = repl.output.splitlines()[0]
    assert header == "pi · loop/fake-model · ~/project"
    assert repl.mode.place() == "~/project"
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    assert repl.mode.header_parts(100)[0].plain == f"pi · loop/fake-model · {tmp_path / 'project'}"
    await repl.quit()


async def test_tree_summary_question_custom_prompt_and_skip_setting(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(text_turn("answer one"), text_turn("answer two"))
    repl = await repl_factory()
    for question, answer in (("question one", "answer one"), ("question two", "answer two")):
        await repl.submit(question)
        await repl.wait_for(answer)
        await repl.idle()
    asked: list[str] = []  # the lists' titles, as they open
    show_picker = repl.mode.show_picker

    async def spy(title: str, rows: list[str], **options: Any) -> int | None:
        asked.append(title)
        return await show_picker(title, rows, **options)

    repl.mode.show_picker = spy  # type: ignore[method-assign]
    await repl.submit("/tree")
    await repl.in_dialog()
    repl.send(UP + UP + "\r")  # "answer one": the branch left holds question and answer two
    await repl.until(lambda: asked == ["Summarize branch?"])
    await repl.in_dialog()
    repl.send("\x1b[B\x1b[B\r")  # "Summarize with custom prompt"
    await repl.wait_for("Custom summarization instructions")
    await repl.in_dialog()
    repl.send("\x1b")  # Esc in the instructions: the question again
    await repl.until(lambda: asked == ["Summarize branch?"] * 2)
    await repl.in_dialog()
    repl.send("\r")  # No summary
    await repl.wait_for("Moved to a new position in the tree")
    # branchSummary.skipPrompt: no question, no summary.
    settings = tmp_path / "agent" / "settings.json"
    settings.write_text(json.dumps({"branchSummary": {"skipPrompt": True}}))
    await repl.submit("/reload")
    await repl.wait_for("Reloaded settings")
    await repl.submit("/tree")
    await repl.in_dialog()
    repl.send(UP + "\r")  # "question one": back into the editor, the answer left behind
    await repl.until(lambda: repl.output.count("Moved to a new position in the tree") == 2)
    assert asked == ["Summarize branch?"] * 2
    assert "Summarize branch?" not in repl.output  # an answered list leaves no line, as pi's
    await repl.until(lambda: repl.mode.get_editor_text() == "question one")
    repl.send("\x15")
    assert await repl.quit() == 0
