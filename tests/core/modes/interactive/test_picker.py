"""The arrow-key list picker, driven through a prompt-toolkit pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pi_core.ai.abort import AbortController
from pi_core.modes.interactive.picker import Picker, pick
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, BACKSPACE = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x7f"
ROWS = ["red apple", "green pear", "blue berry", "red cherry"]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


async def choose(pipe: PipeInput, keys: str, rows: list[str] = ROWS, **options: Any) -> int | None:
    task = asyncio.create_task(pick("Pick", rows, input=pipe, output=DummyOutput(), **options))
    await asyncio.sleep(0.05)
    pipe.send_text(keys)
    return await asyncio.wait_for(task, 5)


async def test_arrows_move_and_enter_picks(pipe: PipeInput) -> None:
    assert await choose(pipe, DOWN + DOWN + UP + ENTER) == 1
    assert await choose(pipe, UP + ENTER) == 0  # stops at the top
    assert await choose(pipe, ENTER, initial=3) == 3


async def test_typing_filters_and_backspace_widens_again(pipe: PipeInput) -> None:
    assert await choose(pipe, "red" + DOWN + ENTER) == 3
    assert await choose(pipe, "red ch" + ENTER) == 3
    assert await choose(pipe, "berry" + BACKSPACE * 5 + "pear" + ENTER) == 1


async def test_a_number_picks_that_row_first(pipe: PipeInput) -> None:
    assert await choose(pipe, "3" + ENTER) == 2
    assert await choose(pipe, "3" + ENTER, numbered=False) is None  # no row contains "3"


async def test_escape_and_a_timeout_and_an_abort_cancel(pipe: PipeInput) -> None:
    assert await choose(pipe, ESC) is None
    assert await choose(pipe, "", timeout_ms=50) is None
    controller = AbortController()
    task = asyncio.create_task(pick("Pick", ROWS, input=pipe, output=DummyOutput(), signal=controller.signal))
    await asyncio.sleep(0.05)
    controller.abort()
    assert await asyncio.wait_for(task, 5) is None


async def test_extra_keys_can_replace_the_rows(pipe: PipeInput) -> None:
    def only_red(picker: Picker) -> None:
        picker.set_rows([row for row in ROWS if row.startswith("red")], keep=1)
        picker.note = "red only"

    assert await choose(pipe, "\x0f" + ENTER, extra_keys={"c-o": only_red}) == 1  # "red cherry"


def test_filter_keeps_the_highlight_when_it_still_shows() -> None:
    picker = Picker(list(ROWS), numbered=False)
    picker.move(3)
    assert picker.highlighted == 3
    picker.set_rows([*ROWS, "red grape"], keep=3)
    assert picker.highlighted == 3
    picker.query = "zzz"
    picker.refilter()
    assert picker.highlighted is None and picker.shown == []


async def test_every_line_of_a_title_is_drawn(pipe: PipeInput) -> None:
    """A permission question names the command in its title's later lines: none is cut off."""
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output.vt100 import Vt100_Output

    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")
    title = "Dangerous command:\n\n  rm -rf build\n\nRun it?"
    task = asyncio.create_task(pick(title, ["Yes", "No"], input=pipe, output=output))
    await asyncio.sleep(0.1)
    pipe.send_text(DOWN + ENTER)
    assert await asyncio.wait_for(task, 5) == 1
    drawn = screen.getvalue()
    for line in ("Dangerous command:", "rm -rf build", "Run it?", "Yes", "No"):
        assert line in drawn, line


async def test_a_question_with_a_timeout_counts_the_seconds_down(pipe: PipeInput) -> None:
    import io

    from pi_core.modes.interactive.dialogs import ask
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output.vt100 import Vt100_Output

    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")
    assert await ask("> ", timeout_ms=1500, input=pipe, output=output) is None
    drawn = screen.getvalue()
    assert "(2s) >" in drawn and "(0s) >" in drawn  # redrawn each second, then answered empty


def test_the_list_keeps_its_height_while_a_filter_shows_fewer_rows() -> None:
    from pi_core.modes.interactive.picker import picker_view

    picker = Picker(list(ROWS))

    def height() -> int:  # a view of its own each time: a control caches its text per redraw
        view, _ = picker_view("Pick", picker, {})
        return int(view.preferred_height(80, 40).preferred)

    before = height()
    picker.query = "berry"
    picker.refilter()
    assert len(picker.shown) == 1 and height() == before
    picker.query = "nothing like it"
    picker.refilter()
    assert not picker.shown and height() == before
