"""Plugin dialogs in the fullscreen application, through a prompt-toolkit pipe: each is drawn in
the editor's place inside the running application, so the answer being streamed goes on growing
above it, the keys are the dialog's, and the editor comes back with its text."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_core.ai.abort import AbortController
from pi_core.modes.interactive.fullscreen import FullscreenMode
from pi_core.testing import LoopbackLLMServer, Text, Turn, text_turn

DOWN, ESC = "\x1b[B", "\x1b"


def _screen(mode: FullscreenMode) -> str:
    """What the application drew last, row by row (the pipe's output is a dummy: 80x40)."""
    app = mode._app
    assert app is not None
    screen = app.renderer._last_screen
    assert screen is not None
    width = app.output.get_size().columns
    rows = []
    for y in range(screen.height):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(width)).rstrip())
    return "\n".join(rows)


async def _drawn(repl: Any, text: str, seconds: float = 10) -> str:
    await repl.until(lambda: text in _screen(repl.mode), seconds)
    return _screen(repl.mode)


def _slow_answer(words: int = 200, delay: float = 0.03) -> Turn:
    text = " ".join(f"word{i:03d}" for i in range(words))
    return Turn(blocks=[Text(text, chunks=words)], delay=delay)


async def test_select_while_an_answer_streams_draws_over_the_live_app(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(_slow_answer())
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    assert isinstance(mode, FullscreenMode)
    await repl.submit("talk slowly")
    await repl.until(lambda: "word005" in _screen(mode))
    app_task = mode._app_task
    picked = asyncio.ensure_future(mode.ui.select("Pick a colour", ["red", "green", "blue"]))
    await repl.in_dialog()
    shown = await _drawn(repl, "Pick a colour")
    assert "→ red" in shown and "   green" in shown  # pi's marker, no numbers
    assert "working…" not in shown  # pi draws its working row in the editor, which the list replaces
    before = max(int(word[4:7]) for word in shown.split() if word.startswith("word") and word[4:7].isdigit())
    # The answer goes on streaming above the open list.
    await repl.until(lambda: f"word{before + 20:03d}" in _screen(mode) and "Pick a colour" in _screen(mode))
    assert mode._app_task is app_task and mode._dialogs == 0  # the application never paused
    repl.send(DOWN + "\r")
    assert await asyncio.wait_for(picked, 5) == "green"
    await repl.until(lambda: "   green" not in _screen(mode))  # the list is gone
    assert "Pick a colour" not in _screen(mode)  # and leaves no line behind, as pi's
    assert mode.busy and "working…" in _screen(mode)  # and the working row is back
    await repl.idle(20)
    assert "word199" in repl.output
    await repl.quit()


class _Waiting:
    """A component that shows one row until Enter."""

    def __init__(self, done: Callable[[Any], None]) -> None:
        self.done = done

    def render(self, width: int) -> list[str]:
        return ["waiting for Enter"]

    def handle_input(self, data: str) -> None:
        if data == "\r":
            self.done("entered")


async def test_a_component_in_the_editors_place_hides_the_working_row_and_an_overlay_does_not(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(_slow_answer(300))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.submit("talk slowly")
    await repl.until(lambda: "working…" in _screen(mode) and "word003" in _screen(mode))
    shown = asyncio.ensure_future(mode.ui.custom(lambda tui, theme, done: _Waiting(done)))
    screen = await _drawn(repl, "waiting for Enter")
    assert "working…" not in screen
    repl.send("\r")
    assert await asyncio.wait_for(shown, 5) == "entered"
    await _drawn(repl, "working…")
    floating = asyncio.ensure_future(mode.ui.custom(lambda tui, theme, done: _Waiting(done), overlay=True))
    screen = await _drawn(repl, "waiting for Enter")
    assert "working…" in screen  # the editor stays under an overlay, and so does its row
    repl.send("\r")
    assert await asyncio.wait_for(floating, 5) == "entered"
    repl.send(ESC)  # the editor has the keys again: Esc aborts the run
    await repl.idle(10)
    await repl.quit()


async def test_escape_answers_the_dialog_and_leaves_the_run_alone(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(_slow_answer(120))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.submit("talk slowly")
    await repl.until(lambda: "word003" in _screen(mode))
    picked = asyncio.ensure_future(mode.ui.select("Which?", ["one", "two"]))
    await repl.in_dialog()
    repl.send(ESC)
    assert await asyncio.wait_for(picked, 5) is None
    await repl.idle(20)
    assert "word119" in repl.output and "Aborted" not in repl.output  # Esc did not abort the run
    await repl.quit()


async def test_confirm_keeps_the_editor_text_and_the_question_shows_in_its_place(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    mode.set_editor_text("half-typed")
    await repl.wait_idle_editor()
    await _drawn(repl, "half-typed")
    answer = asyncio.ensure_future(mode.ui.confirm("Run this?", "line one\nrm -rf build"))
    await repl.in_dialog()
    shown = await _drawn(repl, "Run this?")
    assert "rm -rf build" in shown and "→ Yes" in shown and "No" in shown and "half-typed" not in shown
    repl.send("\r")  # pi's Yes/No list starts on Yes
    assert await asyncio.wait_for(answer, 5) is True
    await _drawn(repl, "half-typed")
    assert mode.get_editor_text() == "half-typed" and "   No" not in _screen(mode)  # the list is gone
    repl.send("\x15")
    await repl.quit()


async def test_input_counts_down_and_times_out_and_a_signal_closes_it(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.wait_idle_editor()
    waiting = asyncio.ensure_future(mode.ui.input("Your name", "someone", timeout=2500))
    await repl.in_dialog()
    shown = await _drawn(repl, "Your name (3s)")
    assert "someone" in shown  # the placeholder
    await _drawn(repl, "Your name (2s)")
    assert await asyncio.wait_for(waiting, 5) is None
    controller = AbortController()
    waiting = asyncio.ensure_future(mode.ui.input("Token", signal=controller.signal, secret=True))
    await repl.in_dialog()
    repl.send("hunter2")
    shown = await _drawn(repl, "*******")
    assert "hunter2" not in shown
    controller.abort()
    assert await asyncio.wait_for(waiting, 5) is None
    typed = asyncio.ensure_future(mode.ui.input("Your name"))
    await repl.in_dialog()
    repl.send("Ada\r")
    assert await asyncio.wait_for(typed, 5) == "Ada"
    await repl.quit()


async def test_editor_takes_several_lines_and_enter_finishes(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory(fullscreen=True)
    await repl.wait_idle_editor()
    edited = asyncio.ensure_future(repl.mode.ui.editor("Edit the plan", "step one"))
    await repl.in_dialog()
    await _drawn(repl, "Ctrl+J new line")
    repl.send("\nstep two\r")  # Ctrl+J, then Enter
    assert await asyncio.wait_for(edited, 5) == "step one\nstep two"
    await repl.quit()


async def test_a_dialog_opened_from_a_dialog_shows_over_it_and_then_gives_it_back(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("ok"))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.wait_idle_editor()
    outer = asyncio.ensure_future(mode.ui.select("Outer list", ["a", "b"]))
    await _drawn(repl, "Outer list")
    inner = asyncio.ensure_future(mode.ui.input("Inner question"))
    shown = await _drawn(repl, "Inner question")
    assert "Outer list" not in shown  # the newest dialog is the one shown
    repl.send("fine\r")
    assert await asyncio.wait_for(inner, 5) == "fine"
    await _drawn(repl, "Outer list")
    repl.send(DOWN + "\r")
    assert await asyncio.wait_for(outer, 5) == "b"
    await repl.submit("hello")  # the editor has the keys again
    await repl.wait_for("ok")
    await repl.quit()


async def test_ctrl_o_in_a_plugin_select_expands_tool_output_and_the_list_stays(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.wait_idle_editor()
    expanded = mode.renderer.expand_tools
    picked = asyncio.ensure_future(mode.ui.select("Which?", ["one", "two"]))
    await repl.in_dialog()
    repl.send("\x0f")  # Ctrl+O, as in pi's list
    await repl.until(lambda: mode.renderer.expand_tools is not expanded)
    assert not picked.done() and "Which?" in _screen(mode)
    repl.send("\r")
    assert await asyncio.wait_for(picked, 5) == "one"
    await repl.quit()


async def test_confirm_is_pis_yes_no_list_with_yes_first(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.wait_idle_editor()
    for keys, expected in (("\r", True), (DOWN + "\r", False), ("j\r", False), ("jk\r", True), (ESC, False)):
        answer = asyncio.ensure_future(mode.ui.confirm("Go on?", "it is safe"))
        await repl.in_dialog()
        await _drawn(repl, "→ Yes")
        repl.send(keys)
        assert await asyncio.wait_for(answer, 5) is expected
        await repl.until(lambda: not mode._dialog_views)
    assert "Go on?" not in repl.output  # answered lists leave nothing in the transcript
    await repl.quit()


async def test_a_plugin_container_with_the_keys_leaves_the_repl_keys_at_rest(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import FormattedTextControl, HSplit, Window

    pi_llm_server.add(_slow_answer(120))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode

    def factory(tui: Any, theme: Any, done: Any) -> Any:
        keys = KeyBindings()
        keys.add("enter")(lambda event: done("ok"))
        box = Window(FormattedTextControl("A BOX OF ITS OWN", focusable=True), height=1)
        return HSplit([box], key_bindings=keys)

    await repl.submit("talk slowly")
    await repl.until(lambda: "word003" in _screen(mode))
    shown = asyncio.ensure_future(mode.ui.custom(factory))
    await _drawn(repl, "A BOX OF ITS OWN")
    repl.send(ESC)  # the component has the keys: not the REPL's abort (as pi gives it every key)
    repl.send("\x04")  # nor Ctrl+D's quit
    await asyncio.sleep(0.3)
    assert mode.busy and not shown.done()
    repl.send("\r")
    assert await asyncio.wait_for(shown, 5) == "ok"
    await repl.idle(20)
    assert "word119" in repl.output and "Aborted" not in repl.output
    await repl.quit()


async def test_a_pasted_paragraph_joins_on_the_one_row_of_an_input(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    """pi's input drops a paste's line breaks and turns tabs to four spaces; the row under the
    title scrolls sideways instead of growing (the dummy output is 80 columns wide)."""
    repl = await repl_factory(fullscreen=True)
    await repl.wait_idle_editor()
    typed = asyncio.ensure_future(repl.mode.ui.input("Your name"))
    await repl.in_dialog()
    lines = "\r\n".join(f"line {i} of the paste\t|" for i in range(30))
    repl.send(f"\x1b[200~{lines}\x1b[201~")
    shown = await _drawn(repl, "line 29 of the paste")
    rows = shown.splitlines()
    title = next(i for i, row in enumerate(rows) if row.startswith("Your name"))
    assert "line 29 of the paste" in rows[title + 1] and rows[title + 2].startswith("Enter submit")
    repl.send("\n")  # Ctrl+J answers a one-line question, as in pi
    assert await asyncio.wait_for(typed, 5) == "".join(f"line {i} of the paste    |" for i in range(30))
    await repl.quit()


ASKS_AT_START = """
from pi_core import hookimpl


@hookimpl
async def session_start(event, ctx):
    choice = await ctx.ui.select("Start in which mood?", ["calm", "brisk"])
    ctx.ui.notify("MOOD " + str(choice))
"""


async def test_the_application_runs_while_plugins_start_so_their_dialogs_open_inside_it(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    """As pi starts its UI before extensions: the editor and footer are drawn at once (in grey
    while the terminal's colours are awaited) and a ``session_start`` dialog is in-app."""
    path = tmp_path / "asks_at_start.py"
    path.write_text(ASKS_AT_START)
    repl = await repl_factory(extensions=(str(path),), fullscreen=True)
    mode = repl.mode
    assert isinstance(mode, FullscreenMode)
    drawn = lambda: mode._app is not None and mode._app.renderer._last_screen is not None  # noqa: E731
    await repl.until(lambda: drawn() and "Start in which mood?" in _screen(mode))
    shown = _screen(mode)
    assert mode._app is not None and mode._app.is_running and mode._dialog_views
    assert "/help for commands" in shown and "loop/fake-model" in shown  # header and footer
    app_task = mode._app_task
    repl.send(DOWN + "\r")
    await repl.wait_for("MOOD brisk")
    await repl.submit("/name calm start")
    await repl.wait_for("calm start")
    assert mode._app_task is app_task  # the one application, started before the plugins
    await repl.quit()
