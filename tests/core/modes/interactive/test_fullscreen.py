"""The fullscreen application through a prompt-toolkit pipe: the same commands and renderer as the
inline REPL, the transcript as blocks laid out on demand, scrolling, search, Ctrl+O in place."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from pi_core.modes.interactive.fullscreen import FullscreenMode
from pi_core.modes.interactive.transcript import Transcript
from pi_core.testing import LoopbackLLMServer, Text, ToolUse, Turn, text_turn, tool_turn
from rich.markdown import Markdown

ESC = "\x1b"
CTRL_F = "\x06"
CTRL_O = "\x0f"
WHEEL_UP = "\x1b[<64;10;5M"
WHEEL_DOWN = "\x1b[<65;10;5M"


def _screen(mode: FullscreenMode) -> str:
    width, height = mode._view_size
    rows, _ = mode.transcript.window(width, height, mode.live_lines(width))
    return "\n".join(mode.transcript.plain_rows(rows))


async def test_prompt_answer_and_commands_in_the_fullscreen_app(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("# Title\n\nHello **world**"))
    repl = await repl_factory(fullscreen=True)
    assert isinstance(repl.mode, FullscreenMode)
    await repl.submit("hi there")
    await repl.wait_for("Hello world")
    await repl.idle()
    out = repl.output
    assert "> hi there" in out and "**" not in out and "# Title" not in out
    await repl.submit("/session")
    await repl.wait_for("1 user, 1 assistant")
    footer = "".join(text for _, text, *_ in repl.mode._footer())
    assert "loop/fake-model" in footer and "context" in footer and "↑10 ↓5" in footer
    assert await repl.quit() == 0
    assert "loop/fake-model · context" not in repl.output  # no footer copies in the transcript


async def test_footer_figures_are_worked_out_again_only_when_their_sources_change(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    """The footer is drawn on every redraw: its figures (statistics, context usage, session
    name) are read again only after an entry, a message, the model or the thinking level changed."""
    pi_llm_server.add(text_turn("first answer"))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.submit("hi")
    await repl.wait_for("first answer")
    await repl.idle()
    session = mode.host.session
    reads: list[int] = []
    real_stats = session.get_session_stats

    def counted() -> Any:
        reads.append(1)
        return real_stats()

    session.get_session_stats = counted  # type: ignore[method-assign]

    def footer_twice() -> str:
        """The footer, drawn twice: the second time reads nothing."""
        text = "".join(part[1] for part in mode._footer())
        reads.clear()
        assert "".join(part[1] for part in mode._footer()) == text and not reads
        return text

    assert "↑10 ↓5" in footer_twice()
    session.set_session_name("named-here")  # an entry appended
    assert "named-here" in footer_twice()
    other = mode.host.services.model_registry.find("loop", "other-model")
    assert other is not None
    await session.set_model(other)
    assert "loop/other-model" in footer_twice()
    session.set_thinking_level("high")
    assert "thinking high" in footer_twice()
    pi_llm_server.add(text_turn("second answer"))
    await repl.submit("again")
    await repl.wait_for("second answer")
    await repl.idle()
    assert "↑20 ↓10" in footer_twice()
    await repl.quit()


async def test_streaming_answer_grows_on_screen_as_markdown(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    words = " ".join(f"**w{i:03d}**" for i in range(300))
    pi_llm_server.add(Turn(blocks=[Text(words, chunks=150)], delay=0.02))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.submit("stream")
    await repl.until(lambda: "w040" in _screen(mode), 10)
    early = _screen(mode)
    assert "w000" in early and "w299" not in early and "**" not in early  # markdown while it grows
    await repl.until(lambda: "w299" in repl.output, 15)
    await repl.idle()
    await repl.quit()


async def test_ctrl_o_expands_and_collapses_results_in_place(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": "seq 1 40"})), text_turn("counted"))
    repl = await repl_factory(fullscreen=True)
    await repl.submit("count")
    await repl.wait_for("counted", 15)
    await repl.idle()
    assert "\n10\n" not in repl.output and "\n40\n" in repl.output  # the bash preview: last lines
    blocks = len(repl.mode.transcript.blocks)
    repl.send(CTRL_O)
    await repl.until(lambda: "\n10\n" in repl.output)
    assert len(repl.mode.transcript.blocks) == blocks  # redrawn in place, nothing appended
    repl.send(CTRL_O)
    await repl.until(lambda: "\n10\n" not in repl.output)
    await repl.quit()


async def test_ctrl_o_scrolled_up_keeps_the_top_of_the_screen_in_place(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(
        text_turn("\n\n".join(f"first line {i}" for i in range(40))),
        tool_turn(ToolUse("bash", {"command": "seq 1 40"})),
        text_turn("\n\n".join(f"last line {i}" for i in range(10))),
    )
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    await repl.submit("first")
    await repl.wait_for("first line 39")
    await repl.idle()
    await repl.submit("count")
    await repl.wait_for("last line 9", 15)
    await repl.idle()
    await repl.wait_idle_editor()

    def top() -> list[str]:
        return [row.rstrip() for row in _screen(mode).split("\n")[:3]]

    repl.send("\x1b[5~")  # PageUp: the first answer at the top, the bash result under the screen
    await repl.until(lambda: mode.transcript.scroll > 0)
    before = top()
    assert any(row.startswith("first line") for row in before)
    repl.send(CTRL_O)
    await repl.until(lambda: "\n10\n" in repl.output)
    assert top() == before and mode.transcript.scroll > 0
    repl.send(CTRL_O)
    await repl.until(lambda: "\n10\n" not in repl.output)
    assert top() == before
    await repl.quit()


async def test_wheel_and_page_keys_scroll_and_search_finds_older_text(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    fillers = [text_turn(f"filler {i}\n\n" * 30) for i in range(3)]
    pi_llm_server.add(text_turn("NEEDLE-ANSWER early"), *fillers)
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    for question in ("first", "second", "third", "fourth"):
        await repl.submit(question)
        await repl.until(lambda q=question: f"> {q}" in repl.output)
        await repl.idle()
    await repl.wait_idle_editor()
    assert "NEEDLE-ANSWER" not in _screen(mode)
    repl.send(WHEEL_UP)
    await repl.until(lambda: mode.transcript.scroll == 3)
    repl.send(WHEEL_DOWN)
    await repl.until(lambda: mode.transcript.scroll == 0)
    repl.send("\x1b[5~")  # PageUp
    await repl.until(lambda: mode.transcript.scroll > 10)
    repl.send("\x1b[6~")  # PageDown
    await repl.until(lambda: mode.transcript.scroll == 0)
    repl.send("\x1b[5~\x1b[5~")
    await repl.until(lambda: mode.transcript.scroll > 20)
    repl.send("\x1b[1;5F")  # Ctrl+End: at the bottom at once
    await repl.until(lambda: mode.transcript.scroll == 0)
    repl.send(CTRL_F)
    await repl.until(lambda: mode._searching)
    repl.send("needle-answer\r")
    await repl.until(lambda: "NEEDLE-ANSWER" in _screen(mode))
    assert mode.transcript.highlight is not None
    repl.send(ESC)
    await repl.until(lambda: not mode._searching and mode.transcript.scroll == 0)
    await repl.quit()


async def test_tree_replaces_the_transcript_with_the_branch(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("answer one"), text_turn("answer two"))
    repl = await repl_factory(fullscreen=True)
    for question, answer in (("question one", "answer one"), ("question two", "answer two")):
        await repl.submit(question)
        await repl.wait_for(answer)
        await repl.idle()
    await repl.submit("/tree")
    await repl.in_dialog()
    mode: Any = repl.mode
    tree = mode._in_place[-1]
    repl.send("\x1b[A\x1b[A\r")
    # Keys typed ahead would go to the editor between the two: wait for the summary question.
    await repl.until(lambda: mode._in_place[-1:] != [tree] and mode._dialog_has_keys())
    repl.send("\r")
    await repl.wait_for("Moved to a new position in the tree")
    out = repl.output
    assert out.count("> question one") == 1 and "answer two" not in out
    await repl.quit()


def test_transcript_lays_out_only_what_is_on_screen_with_flat_memory() -> None:
    transcript = Transcript()
    for index in range(300):
        transcript.append([Markdown(f"message {index} " + "word " * 60)], {}, width=100)
    rows, _ = transcript.window(100, 40, [])
    assert "message 299" in "\n".join(transcript.plain_rows(rows))
    assert len(transcript._cache) < 40  # the blocks above the screen were not laid out
    tracemalloc.start()
    after: list[int] = []
    for _ in range(3):  # scroll through everything, top to bottom, three times
        transcript.scroll = 10**6
        transcript.window(100, 40, [])
        for _ in range(100):
            transcript.scroll = max(0, transcript.scroll - 200)
            transcript.window(100, 40, [])
        after.append(tracemalloc.get_traced_memory()[0])
    tracemalloc.stop()
    assert after[2] < after[0] * 1.2 + 500_000  # the second and third passes hold no more


def test_a_growing_block_reuses_the_rows_that_did_not_change() -> None:
    """The streaming block is laid out again as it grows: rows already parsed keep their fragments."""
    transcript = Transcript()
    words = " ".join(f"word{i} **b{i}**" for i in range(200))
    first = transcript.render([Markdown(words)], {}, 60)
    grown = transcript.render([Markdown(words + " and **more** words at the end")], {}, 60)
    assert len(grown) >= len(first) > 10
    assert all(new is old for new, old in zip(grown[:-2], first[:-2], strict=False))
    assert grown[-1] is not first[-1]
    fresh = Transcript().render([Markdown(words + " and **more** words at the end")], {}, 60)
    assert grown == fresh  # the same fragments as laid out from scratch


async def test_plugin_widgets_go_above_or_below_the_editor(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory(fullscreen=True)
    ui = repl.mode.ui
    ui.set_widget("top", ["ABOVE-1", "ABOVE-2"])
    ui.set_widget("bottom", ["BELOW"], placement="belowEditor")
    ui.set_status("plugin", "STATUS-TEXT")

    def text(fragments: Any) -> str:
        return "".join(fragment[1] for fragment in fragments)

    assert text(repl.mode._above_editor()) == "ABOVE-1\nABOVE-2"
    assert text(repl.mode._below_editor()) == "BELOW"
    assert "STATUS-TEXT" in text(repl.mode._footer())
    await repl.quit()


async def test_a_mouse_drag_selects_characters_and_copies_them(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("first row of the answer\n\nsecond row ends here"))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    assert isinstance(mode, FullscreenMode)
    await repl.submit("select me")
    await repl.wait_for("second row ends here")
    await repl.idle()

    def shown() -> list[str]:
        return [row.rstrip() for row in mode.transcript.plain_rows(mode._shown_rows)]

    await repl.until(lambda: "second row ends here" in shown())
    rows = shown()
    top = rows.index("first row of the answer")
    bottom = rows.index("second row ends here")
    expected = "\n".join(["row of the answer", *rows[top + 1 : bottom], "second row"])
    assert mode.selection_text((top, 6), (bottom, 9)) == expected
    assert mode.selection_text((bottom, 9), (top, 6)) == expected
    # the same drag with the mouse (SGR reports are 1-based): the cells between are reversed
    repl.send(f"\x1b[<0;7;{top + 1}M\x1b[<32;10;{bottom + 1}M")
    await repl.until(lambda: mode._select_to == (bottom, 9))
    assert mode.selected_span(top) == (6, None) and mode.selected_span(bottom) == (0, 10)
    assert mode.selected_span(bottom + 1) is None
    repl.send(f"\x1b[<0;10;{bottom + 1}m")
    await repl.until(lambda: mode._flash is not None)
    assert mode._select_from is None
    assert mode._flash is not None and (
        f"{len(expected)} character(s)" in mode._flash[1] or "No clipboard" in mode._flash[1]
    )
    assert await repl.quit() == 0


async def test_what_an_abort_prints_is_drawn_at_once(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    """Output is drawn at most every REDRAW_INTERVAL; the answer to Esc is not kept waiting."""
    pi_llm_server.add(Turn(blocks=[Text("streaming " * 600, chunks=300)], delay=0.03))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    assert isinstance(mode, FullscreenMode)
    await repl.submit("a long story")
    await repl.until(lambda: "streaming" in mode.renderer.pending_text(), 10)
    app = mode._app
    assert app is not None
    redraws: list[str] = []
    real_invalidate = app.invalidate

    def invalidate() -> None:
        redraws.append("now")
        real_invalidate()

    app.invalidate = invalidate  # type: ignore[method-assign]
    appended: list[tuple[str, bool]] = []
    real_change = mode.transcript.on_change

    def on_change() -> None:
        before = len(redraws)
        real_change()
        last = mode.transcript.blocks[-1].source_text() if mode.transcript.blocks else ""
        appended.append((last or "", len(redraws) > before))

    mode.transcript.on_change = on_change
    repl.send(ESC)
    await repl.wait_for("Operation aborted", 5)
    await repl.idle()
    assert ("Operation aborted", True) in appended
    await repl.until(lambda: not mode._aborting_now)  # the run ends before the abort call returns
    appended.clear()
    mode.console.print("later output")
    assert appended == [("later output", False)]  # paced again once the abort is over
    await repl.quit()


@pytest.mark.parametrize("fullscreen", [True, False])
async def test_a_redraw_is_not_held_back_behind_a_busy_loop(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    """While an answer streams the loop always has work ready; a key's redraw runs at the next
    turn of the loop, not after prompt-toolkit's 10 ms grace for busy loops."""
    repl = await repl_factory(fullscreen=fullscreen)
    mode = repl.mode
    await repl.until(lambda: mode._editor_app() is not None and mode._editor_app().is_running)
    app = mode._editor_app()
    await asyncio.sleep(0.2)  # start-up redraws are over
    loop = asyncio.get_running_loop()
    turns = [0]
    rendered: list[int] = []
    app.after_render += lambda _: rendered.append(turns[0])
    done = loop.create_future()

    def busy() -> None:  # one ready callback after another, as a stream's chunks keep coming
        turns[0] += 1
        if turns[0] < 3000 and not rendered:
            loop.call_soon(busy)
        elif not done.done():
            done.set_result(None)

    loop.call_soon(busy)
    app.invalidate()
    await done
    assert rendered and rendered[0] <= 5, rendered
    await repl.quit()


def test_a_soft_wrapped_line_is_wrapped_in_the_transcript() -> None:
    """Printed with ``soft_wrap`` (the terminal wraps it in regular mode), a line longer than the
    screen — a session file's problem, led by its long path — is wrapped, not cut at the edge."""
    from rich.text import Text as RichText

    transcript = Transcript()
    line = "/tmp/" + "deep/" * 30 + "file.jsonl:7: line is not valid JSON"
    block = transcript.append([RichText(line)], {"soft_wrap": True}, width=60)
    rows = transcript.plain_rows(transcript.lines(block, 60))
    assert all(len(row.rstrip()) <= 60 for row in rows)
    assert "".join(row.strip() for row in rows).replace(" ", "") == line.replace(" ", "")


@pytest.mark.parametrize("fullscreen", [True, False])
async def test_a_key_is_drawn_before_the_loop_runs_anything_else(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    """The redraw a key asks for happens as its keys are handled, not queued behind what the
    loop has ready (an answer's tokens): the key is on screen when its callback returns."""
    from prompt_toolkit.application.current import set_app
    from prompt_toolkit.key_binding import KeyPress
    from prompt_toolkit.keys import Keys

    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    mode: Any = repl.mode
    app = mode._app if fullscreen else mode._editor.app
    await asyncio.sleep(0.2)  # start-up redraws done
    with set_app(app):
        for typed in ("Q", "QW"):
            app.key_processor.feed(KeyPress(typed[-1], typed[-1]))
            app.key_processor.process_keys()
            # (drawn by redrawing the editor alone: see test_editor_echo)
            row = app.renderer._last_screen.data_buffer[_editor_row(app)]
            assert typed in "".join(cell.char for cell in row.values())
        before = app.render_counter
        app.key_processor.feed(KeyPress(Keys.ControlH, "\x7f"))  # not a character: drawn in full
        app.key_processor.process_keys()
        assert app.render_counter == before + 1
        row = app.renderer._last_screen.data_buffer[_editor_row(app)]
        assert "QW" not in "".join(cell.char for cell in row.values())
    mode.set_editor_text("")
    await repl.quit()


def _editor_row(app: Any) -> int:
    """The screen row the cursor is on (the editor's)."""
    screen = app.renderer._last_screen
    return int(screen.get_cursor_position(app.layout.current_window).y)


async def test_ctrl_shift_up_and_down_jump_from_prompt_to_prompt(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(*(text_turn(f"answer {i}\n\n" + "filler line\n\n" * 20) for i in range(3)))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    for question in ("first", "second", "third"):
        await repl.submit(question)
        await repl.until(lambda q=question: f"> {q}" in repl.output)
        await repl.idle()
    await repl.wait_idle_editor()

    def top_row() -> str:
        return _screen(mode).split("\n")[0].rstrip()

    repl.send("\x1b[1;6A")  # Ctrl+Shift+Up
    await repl.until(lambda: top_row() == "> third")
    repl.send("\x1b[1;6A")
    await repl.until(lambda: top_row() == "> second")
    repl.send("\x1b[1;6B")  # Ctrl+Shift+Down
    await repl.until(lambda: top_row() == "> third")
    repl.send("\x1b[1;6B")  # below the last one: the bottom, following new output
    await repl.until(lambda: mode.transcript.scroll == 0)
    await repl.quit()


CTRL_T = "\x14"


async def test_ctrl_t_hides_and_shows_thinking_in_place_and_saves_the_choice(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    from pi_core.testing import Thinking

    pondering = "secret pondering\n\nmore of the same thought"
    pi_llm_server.add(Turn(blocks=[Thinking(pondering, chunks=6), Text("the answer")]))
    repl = await repl_factory(fullscreen=True)
    mode = repl.mode
    settings = repl.agent / "settings.json"
    await repl.submit("think")
    await repl.wait_for("the answer")
    await repl.idle()
    assert "secret pondering" in repl.output and "more of the same" in repl.output
    assert "Thinking..." not in repl.output
    blocks = len(mode.transcript.blocks)
    repl.send(CTRL_T)
    await repl.until(lambda: "secret pondering" not in repl.output)
    # One label for the run (two paragraphs streamed as two blocks), drawn where it was.
    assert repl.output.count("Thinking...") == 1 and "more of the same" not in repl.output
    assert repl.output.index("> think") < repl.output.index("Thinking...") < repl.output.index("the answer")
    assert len(mode.transcript.blocks) == blocks + 1  # only the status line was added
    assert "Thinking blocks: hidden" in repl.output
    assert json.loads(settings.read_text())["hideThinkingBlock"] is True
    mode.ui.set_hidden_thinking_label("Mulling it over")  # a plugin's label: on screen at once
    await repl.until(lambda: "Mulling it over" in repl.output and "Thinking..." not in repl.output)
    mode.ui.set_hidden_thinking_label("")  # an empty label: a hidden run draws nothing
    await repl.until(lambda: "Mulling it over" not in repl.output)
    assert "the answer" in repl.output
    mode.ui.set_hidden_thinking_label(None)
    repl.send(CTRL_T)
    await repl.until(lambda: "secret pondering" in repl.output and "more of the same" in repl.output)
    assert "Thinking..." not in repl.output and "Thinking blocks: visible" in repl.output
    assert json.loads(settings.read_text())["hideThinkingBlock"] is False
    await repl.quit()


def test_a_block_that_changes_size_keeps_the_top_of_the_screen_in_place() -> None:
    """Scrolled up, the row at the top of the screen stays there when a block above or at it is
    laid out again at another size; at the bottom the view follows the end."""

    class Folding:
        folded = False

        def __rich__(self) -> str:
            return "folded" if self.folded else "\n".join(f"open {i}" for i in range(10))

    transcript = Transcript()
    fold = Folding()
    for index in range(20):
        transcript.append([f"before {index}"], {}, width=40)
    transcript.append([fold], {}, width=40)
    for index in range(30):
        transcript.append([f"after {index}"], {}, width=40)

    def top() -> str:
        rows, scroll = transcript.window(40, 10, [])
        transcript.scroll = scroll
        return transcript.plain_rows(rows)[0].rstrip()

    def fold_to(folded: bool) -> None:
        with transcript.kept_in_place(40, 10, 0):
            fold.folded = folded

    transcript.scroll = 35  # the block on screen under the top row
    assert top() == "before 15"
    fold_to(True)
    assert top() == "before 15"
    fold_to(False)
    assert top() == "before 15"
    transcript.scroll = 20  # the block above the screen
    assert top() == "after 0"
    fold_to(True)
    assert top() == "after 0"
    fold_to(False)
    transcript.scroll = 26  # the top row inside the block: the block's top row stays there
    assert top() == "open 4"
    fold_to(True)
    assert top() == "folded"
    transcript.scroll = 0
    fold_to(False)
    assert transcript.scroll == 0 and top() == "after 20"


def test_a_block_that_draws_nothing_takes_no_row() -> None:
    from rich.console import Group

    transcript = Transcript()
    block = transcript.append([Group()], {}, width=40)
    assert transcript.lines(block, 40) == []
    assert len(transcript.lines(transcript.append([""], {}, width=40), 40)) == 1  # an empty row
