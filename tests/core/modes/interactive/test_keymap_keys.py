"""``keybindings.json`` at work: a rebound key acts, a freed or disabled one does nothing, in the
inline REPL and the fullscreen transcript (prompt-toolkit pipe input, the loopback server)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn


def _bind(tmp_path: Path, keys: dict[str, Any]) -> None:
    (tmp_path / "agent" / "keybindings.json").write_text(json.dumps(keys))


async def test_a_moved_editing_key_takes_its_action_along(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    _bind(
        tmp_path,
        {
            "tui.editor.cursorLineStart": "alt+a",  # Ctrl+A is nobody's now: it does nothing
            "app.thinking.toggle": [],  # Ctrl+T neither (not prompt-toolkit's transpose)
            "tui.editor.jumpForward": "f7",
        },
    )
    repl = await repl_factory()
    await repl.wait_idle_editor()

    def text() -> str:
        return str(repl.mode.get_editor_text())

    repl.send("a-b-c\x01Z")  # Ctrl+A, Z
    await repl.until(lambda: text() == "a-b-cZ")
    repl.send("\x1baX")  # Alt+A: the line start
    await repl.until(lambda: text() == "Xa-b-cZ")
    repl.send("\x14\x1b[18~")  # Ctrl+T; F7: the jump waits for its character, however long
    await asyncio.sleep(0.1)
    repl.send("cY")  # to the next "c"
    await repl.until(lambda: text() == "Xa-b-YcZ")
    repl.send("\x1f")  # Ctrl+-: undo
    await repl.until(lambda: text() == "Xa-b-cZ")
    repl.send("\x05\x1b[13;2u!")  # Ctrl+E; Shift+Enter, as the kitty protocol reports it: a new line
    await repl.until(lambda: text() == "Xa-b-cZ\n!")
    assert "Thinking blocks" not in repl.output
    repl.send("\x03")  # Ctrl+C clears the editor
    await repl.until(lambda: text() == "")
    await repl.submit("/hotkeys")
    await repl.wait_for("Alt+A")
    shown = repl.output.split("Keyboard Shortcuts")[1]
    rows = {" ".join(line.replace("│", " ").split()) for line in shown.splitlines()}
    for row in (
        "Navigation",
        "Editing",
        "Other",
        "Alt+A Start of the line",
        "F7 Jump to the next occurrence",
        "Ctrl+- Undo",
    ):
        assert any(line.startswith(row) for line in rows), (row, shown)
    assert "Ctrl+T" not in shown  # disabled: not listed
    assert await repl.quit() == 0


async def test_exit_copy_and_the_previous_model_on_their_keys(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    _bind(tmp_path, {"app.exit": "ctrl+q", "app.model.cycleBackward": "f4", "app.message.copy": "alt+c"})
    repl = await repl_factory()
    await repl.wait_idle_editor()
    assert "/help for commands · Esc aborts · Ctrl+Q quits" in repl.output  # the header's hint
    repl.send("\x04")  # Ctrl+D does not quit any more (it erases forwards)
    repl.send("\x1bc")  # Alt+C copies the last answer: there is none yet
    await repl.wait_for("No agent messages to copy yet.")
    repl.send("\x1bOS")  # F4: the previous model
    await repl.wait_for("Model: loop/other-model")
    assert not repl.task.done()
    repl.send("\x11")  # Ctrl+Q on the empty editor quits
    await repl.until(repl.task.done)
    assert repl.task.result() == 0


async def test_the_transcript_keys_of_the_fullscreen_repl(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    _bind(
        tmp_path,
        {
            "tui.altScreen.lineUp": "alt+k",
            "tui.altScreen.lineDown": "alt+j",
            "tui.altScreen.halfPageUp": "f5",
            "tui.altScreen.searchPrevious": ["f8", "shift+enter"],
            "tui.altScreen.pageUp": [],
        },
    )
    pi_llm_server.add(*(text_turn(f"needle {i}\n\n" + "filler\n\n" * 30) for i in range(3)))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    for question in ("first", "second", "third"):
        await repl.submit(question)
        await repl.until(lambda q=question: f"> {q}" in repl.output)
        await repl.idle()
    await repl.wait_idle_editor()
    repl.send("\x1bk\x1bk")  # Alt+K twice: two rows up
    await repl.until(lambda: mode.transcript.scroll == 2)
    repl.send("\x1bj")
    await repl.until(lambda: mode.transcript.scroll == 1)
    repl.send("\x1b[15~")  # F5: half a page up
    await repl.until(lambda: mode.transcript.scroll == 1 + (mode._view_size[1] - 2) // 2)
    half = mode.transcript.scroll
    repl.send("\x1b[5~\x1bj")  # PageUp has no transcript action now: only Alt+J's row moves
    await repl.until(lambda: mode.transcript.scroll == half - 1)
    repl.send("\x1b[1;5H")  # Ctrl+Home: the very top
    await repl.until(lambda: mode.transcript.scroll > 60)
    top = mode.transcript.scroll
    repl.send("\x1bk")  # no further up than the top's row count... the position only grows
    repl.send("\x1b[1;5F")  # Ctrl+End: the bottom again
    await repl.until(lambda: mode.transcript.scroll == 0)
    assert top > half
    repl.send("\x06")  # Ctrl+Shift+F arrives as Ctrl+F: the search
    await repl.until(lambda: mode._searching)
    assert mode._search_prompt() == "search (Enter: older, F8: newer, Escape closes): "
    repl.send("needle\r")
    await repl.until(lambda: mode.transcript.highlight is not None)
    lowest = mode.transcript.highlight
    repl.send("\r")  # the next one up
    await repl.until(lambda: mode.transcript.highlight != lowest)
    repl.send("\x1b[19~")  # F8: back down to the one below
    await repl.until(lambda: mode.transcript.highlight == lowest)
    repl.send("\r")
    await repl.until(lambda: mode.transcript.highlight != lowest)
    repl.send("\x1b[27;2;13~")  # Shift+Enter, as xterm's modifyOtherKeys reports it
    await repl.until(lambda: mode.transcript.highlight == lowest)
    repl.send("\x1b")
    await repl.until(lambda: not mode._searching)
    await repl.quit()


async def test_the_list_keys_move_in_the_completion_menu(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    _bind(tmp_path, {"tui.select.down": ["down", "alt+n"]})
    repl = await repl_factory()
    await repl.wait_idle_editor()

    def state() -> Any:
        buffer = repl.mode.editor_buffer()
        return buffer.complete_state if buffer is not None else None

    repl.send("/hot")
    await repl.until(lambda: state() is not None and bool(state().completions))
    repl.send("\x1bn")  # Alt+N: the first completion
    await repl.until(lambda: repl.mode.get_editor_text() == "/hotkeys")
    repl.send("\x1b")  # Esc closes the list, back to the text as typed
    await repl.until(lambda: state() is None and repl.mode.get_editor_text() == "/hot")
    assert not repl.mode.busy
    repl.send("\x03")
    assert await repl.quit() == 0


async def test_reload_rebinds_the_transcript_keys(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(text_turn("filler\n\n" * 60))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.submit("go")
    await repl.wait_for("filler")
    await repl.idle()
    _bind(tmp_path, {"tui.altScreen.lineUp": "alt+k", "tui.altScreen.pageUp": []})
    await repl.submit("/reload")
    await repl.wait_for("Reloaded settings")
    await repl.wait_idle_editor()
    repl.send("\x1b[5~\x1bk")  # PageUp has no transcript action now; Alt+K is a row up
    await repl.until(lambda: mode.transcript.scroll == 1)
    await repl.quit()


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_the_working_row_names_the_run_keys_as_bound(
    repl_factory: Callable[..., Any], tmp_path: Path, pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    from pi_core.testing import Text, Turn

    _bind(tmp_path, {"app.interrupt": "f6", "app.message.followUp": []})
    pi_llm_server.add(Turn(blocks=[Text("slow " * 200, chunks=200)], delay=0.02))
    repl = await repl_factory(fullscreen=fullscreen)
    mode = repl.mode

    def row() -> str:
        if fullscreen:
            return "".join(text for _, text, *_ in mode._status_row())
        return str(mode._toolbar() or "")

    await repl.submit("go")
    await repl.until(lambda: "working…" in row())
    assert "F6 aborts" in row() and "Enter steers" in row()
    assert "Esc aborts" not in row() and "queues" not in row()
    repl.send("\x1b[17~")  # F6 aborts
    await repl.wait_for("Operation aborted")
    assert await repl.quit() == 0
