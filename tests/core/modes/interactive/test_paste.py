"""Big pastes collapse into a marker in the editor and go out whole, in both REPL modes; the
paste cleaning and the marker bookkeeping (Backspace, numbering) on a bare buffer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_core.modes.interactive.paste import Pastes, clean
from pi_core.testing import LoopbackLLMServer, Text, Turn
from prompt_toolkit.buffer import Buffer

MODES = [pytest.param(False, id="regular"), pytest.param(True, id="fullscreen")]
START, END = "\x1b[200~", "\x1b[201~"


def _sent(server: LoopbackLLMServer) -> str:
    content = server.requests[-1].body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _editor_text(mode: Any) -> str:
    buffer = mode.editor_buffer()
    assert buffer is not None
    return str(buffer.text)


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_big_paste_shows_as_a_marker_and_is_sent_whole(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    pi_llm_server.add(Turn(blocks=[Text("got it")]))
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    mode = repl.mode
    lines = "\r\n".join(f"row {n}\tend" for n in range(20))
    repl.send("look: " + START + lines + END)
    await repl.until(lambda: _editor_text(mode) == "look: [paste #1 +20 lines]")
    wide = "x" * 1500
    repl.send(" and " + START + wide + END)
    await repl.until(lambda: _editor_text(mode).endswith(" and [paste #2 1500 chars]"))
    expected = "look: " + "\n".join(f"row {n}    end" for n in range(20)) + " and " + wide
    assert mode.get_editor_text() == expected  # plugins read the text as it will be sent
    repl.send("\r")
    await repl.wait_for("got it")
    assert _sent(pi_llm_server) == expected
    assert len(mode.pastes) == 0
    await repl.idle()
    await repl.wait_idle_editor()
    buffer = mode.editor_buffer()
    assert buffer is not None and list(buffer.history.get_strings())[-1] == expected
    await repl.quit()


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_small_paste_is_typed_in_and_backspace_takes_a_marker_whole(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    mode = repl.mode
    repl.send(START + "one\r\ntwo\x07\tthree" + END)
    await repl.until(lambda: _editor_text(mode) == "one\ntwo    three")
    mode.set_editor_text("")
    repl.send(START + "\n".join("z" * 11) + END)
    await repl.until(lambda: _editor_text(mode) == "[paste #1 +11 lines]")
    repl.send("\x7f")  # Backspace
    await repl.until(lambda: _editor_text(mode) == "")
    assert len(mode.pastes) == 0
    ui = mode.ui
    ui.paste_to_editor("\n".join("p" * 12))  # a plugin's paste is collapsed too
    await repl.until(lambda: _editor_text(mode) == "[paste #1 +12 lines]")
    ui.set_editor_text("replaced")
    assert len(mode.pastes) == 0 and mode.get_editor_text() == "replaced"
    mode.set_editor_text("")
    await repl.quit()


def test_clean_normalises_line_ends_tabs_and_control_bytes() -> None:
    assert clean("a\r\nb\rc\td\x00\x1b[106;5u\x7f") == "a\nb\nc    d\n\x7f"
    assert clean("a\x1b[74;5ub\x1b[99;9u") == "a\nb[99;9u"  # Ctrl+J stays a newline; ESC goes


def test_backspace_on_a_middle_marker_numbers_the_later_ones_down() -> None:
    pastes, buffer = Pastes(), Buffer(multiline=True)
    for n in range(3):
        pastes.paste(buffer, "\n".join(str(n) * 12))
        buffer.insert_text(" ")
    assert buffer.text == "[paste #1 +12 lines] [paste #2 +12 lines] [paste #3 +12 lines] "
    buffer.cursor_position = len("[paste #1 +12 lines] [paste #2 +12 lines]")
    assert pastes.delete_marker_before_cursor(buffer)
    assert buffer.text == "[paste #1 +12 lines]  [paste #2 +12 lines] "
    assert buffer.cursor_position == len("[paste #1 +12 lines] ")
    assert pastes.expand(buffer.text) == "\n".join("0" * 12) + "  " + "\n".join("2" * 12) + " "
    buffer.cursor_position = 3
    assert not pastes.delete_marker_before_cursor(buffer)  # not right after a marker


def test_a_path_pasted_after_a_word_gets_a_space_and_typed_markers_stay_text() -> None:
    pastes, buffer = Pastes(), Buffer()
    buffer.insert_text("see")
    pastes.paste(buffer, "/etc/hosts")
    assert buffer.text == "see /etc/hosts"
    assert pastes.expand("[paste #1 +20 lines]") == "[paste #1 +20 lines]"  # nothing held
