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


async def test_k_and_j_move_as_in_pis_select(pipe: PipeInput) -> None:
    assert await choose(pipe, "jjk" + ENTER) == 1
    assert await choose(pipe, "red" + BACKSPACE + ENTER) == 0  # other keys do nothing: no search


async def test_keybindings_rebind_the_list_keys_and_its_line_of_keys_names_them(pipe: PipeInput) -> None:
    keymap = {"tui.select.down": ["ctrl+n"], "tui.select.confirm": ["tab"], "tui.select.cancel": ["ctrl+g"]}
    assert await choose(pipe, DOWN + "\x0e\x0e" + "\t", keymap=keymap) == 2  # Down is unbound
    assert await choose(pipe, ENTER + "\x07", keymap=keymap) is None  # Enter is not confirm here
    assert await choose(pipe, "j\n") == 1  # k/j and a line feed as in pi, whatever the keymap
    assert " ↑↓ move  tab choose  ctrl+g cancel" in screen(Picker(ROWS), keymap=keymap)


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

    assert await choose(pipe, "\x0f" + ENTER, extra_keys={"c-o": only_red}) == 1  # "red cherry"


def test_new_rows_keep_the_highlight_on_the_row_asked_for() -> None:
    picker = Picker(list(ROWS))
    picker.move(3)
    assert picker.highlighted == 3
    picker.set_rows([*ROWS, "red grape"], keep=4)
    assert picker.highlighted == 4
    picker.set_rows([])
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


def screen(picker: Picker, title: str = "Pick", **options: Any) -> list[str]:
    """The lines the list draws (80 columns: no application is running)."""
    from pi_core.modes.interactive.picker import picker_view
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from prompt_toolkit.layout import FormattedTextControl, HSplit, Window

    view, _ = picker_view(title, picker, {}, **options)
    assert isinstance(view, HSplit)
    window = view.children[0]
    assert isinstance(window, Window) and isinstance(window.content, FormattedTextControl)
    text = window.content.text
    assert callable(text)
    return fragment_list_to_text(text()).split("\n")


def test_the_list_is_drawn_as_pis_select_between_two_rules() -> None:
    lines = screen(Picker(["red", "green", "blue"]), "Pick a colour")
    rule = "─" * 80
    assert lines == [
        rule,
        "",
        " Pick a colour",
        "",
        " → red",
        "   green",
        "   blue",
        "",
        " ↑↓ move  enter choose  escape/ctrl+c cancel",
        "",
        rule,
    ]
    # Under the fullscreen REPL's status row: no opening rule of its own.
    assert screen(Picker(["red"]), rule_above=False)[:3] == ["", " Pick", ""]


def test_every_title_line_and_a_long_row_wrap_with_a_margin() -> None:
    long = "a very long option " + "that goes on and on " * 6
    lines = screen(Picker(["short", long]), "Dangerous!\nAllow rm -rf?")
    assert lines[2:4] == [" Dangerous!", " Allow rm -rf?"]
    wrapped = [line for line in lines if "goes on" in line]
    assert len(wrapped) == 2 and wrapped[0].startswith("   a very long option that")
    assert wrapped[1].startswith(" on ") and all(len(line) <= 79 for line in wrapped)
    assert "".join(part.strip() + " " for part in wrapped).split() == long.split()


def test_ten_rows_show_and_the_position_only_while_some_are_out_of_view() -> None:
    rows = [f"option {n}" for n in range(1, 31)]
    picker = Picker(rows)
    lines = screen(picker)
    assert [line for line in lines if "option" in line] == [
        " → option 1",
        *(f"   option {n}" for n in range(2, 11)),
    ]
    assert "  (1/30)" in lines
    picker.move(8)  # the list centres on the highlight, as pi's
    lines = screen(picker)
    assert lines[4] == "   option 4" and " → option 9" in lines and lines[13] == "   option 13"
    assert lines[14] == "  (9/30)"
    assert not any(line.startswith("  (") for line in screen(Picker(rows[:10])))


def test_wrap_breaks_at_spaces_and_cuts_a_word_longer_than_a_line() -> None:
    from pi_core.modes.interactive.picker import wrap

    assert wrap("", 10) == [""]
    assert wrap("  one two three", 9) == ["  one two", "three"]
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert wrap("漢字漢字", 5) == ["漢字", "漢字"]  # two cells a character
