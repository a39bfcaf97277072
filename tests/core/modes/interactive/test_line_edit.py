"""The selectors' one-line fields: pi's line editing, its word moves, the kill ring, scrolling."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from pi_core.modes.interactive.line_edit import LineEdit, bind_line_edit, word_left, word_right
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import FormattedTextControl, Layout, Window
from prompt_toolkit.output import DummyOutput


def text_and_cursor(edit: LineEdit) -> str:
    return edit.text[: edit.cursor] + "|" + edit.text[edit.cursor :]


def test_word_moves_stop_at_punctuation_and_skip_spaces() -> None:
    text = "git commit --amend foo.bar_baz"
    stops, at = [], len(text)
    while at:
        at = word_left(text, at)
        stops.append(at)
    assert [text[stop:] for stop in stops] == [
        "bar_baz", ".bar_baz", "foo.bar_baz", "amend foo.bar_baz", "--amend foo.bar_baz",
        "commit --amend foo.bar_baz", text,
    ]  # fmt: skip
    assert word_right(text, 0) == 3 and word_right(text, 3) == 10 and word_right(text, 10) == 13
    assert word_left("a  ", 3) == 0 and word_right("  ", 0) == 2


def test_moves_and_deletes() -> None:
    edit = LineEdit("hello brave world")
    assert edit.cursor == 0  # a fresh field: the cursor at the start, as pi's input
    edit.end()
    edit.word_left()
    edit.insert("new ")
    assert text_and_cursor(edit) == "hello brave new |world"
    edit.home()
    edit.delete()
    edit.right()
    edit.backspace()
    assert text_and_cursor(edit) == "|llo brave new world"
    edit.word_right()
    edit.delete_to_end()
    assert text_and_cursor(edit) == "llo|"
    edit.delete_to_start()
    assert text_and_cursor(edit) == "|"
    edit.backspace()  # nothing to erase: nothing happens
    edit.delete()
    assert text_and_cursor(edit) == "|"


def test_kills_accumulate_and_yank_back() -> None:
    edit = LineEdit("one two three")
    edit.end()
    edit.delete_word_backward()
    edit.delete_word_backward()  # consecutive kills make one entry
    assert text_and_cursor(edit) == "one |"
    edit.yank()
    assert text_and_cursor(edit) == "one two three|"
    edit.home()
    edit.delete_word_forward()
    assert text_and_cursor(edit) == "| two three"
    edit.end()
    edit.yank()
    edit.yank_pop()  # the entry before the last one instead
    assert text_and_cursor(edit) == " two threetwo three|"
    edit.undo()
    assert text_and_cursor(edit) == " two threeone|"
    edit.undo()
    edit.undo()
    assert edit.text == "one two three"


def test_a_character_with_its_marks_moves_as_one() -> None:
    edit = LineEdit("ae\u0301👍🏻x")
    edit.right()
    edit.right()
    assert edit.cursor == 3  # past e and its accent
    edit.right()
    assert edit.text[edit.cursor :] == "x"
    edit.backspace()
    assert edit.text == "ae\u0301x"


def test_a_paste_is_one_line() -> None:
    edit = LineEdit()
    edit.paste("a\r\nb\tc\x07")
    assert text_and_cursor(edit) == "ab    c|"


def test_set_text_keeps_the_cursor_within_the_text() -> None:
    edit = LineEdit("a long name")
    edit.end()
    edit.set_text("short")
    assert edit.cursor == 5
    edit.home()
    edit.set_text("another")
    assert edit.cursor == 0


def test_a_long_text_scrolls_to_keep_the_cursor_in_view() -> None:
    edit = LineEdit("".join(str(n % 10) for n in range(40)))

    def shown() -> tuple[str, str]:
        parts = edit.fragments(10)
        return "".join(text for _, text, *_ in parts), next(t for s, t, *_ in parts if "reverse" in s)

    assert shown() == ("0123456789", "0")
    edit.end()
    assert shown() == ("123456789 ", " ")  # room for the cursor after the last character
    for _ in range(20):
        edit.left()
    assert shown() == ("5678901234", "0")  # the cursor in the middle
    assert edit.fragments(0) == []


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


async def test_keys_through_a_terminal_and_a_rebound_key(pipe: PipeInput) -> None:
    edit = LineEdit("world")
    changes: list[str] = []
    bindings = KeyBindings()
    bind_line_edit(
        bindings,
        lambda: edit,
        keymap={"tui.editor.cursorLineEnd": ["ctrl+o"]},
        on_change=lambda: changes.append(edit.text),
    )
    control = FormattedTextControl(lambda: edit.fragments(40), focusable=True, key_bindings=bindings)
    app: Application[None] = Application(layout=Layout(Window(control)), input=pipe, output=DummyOutput())
    task = asyncio.create_task(app.run_async())
    for key in (
        "hello ",
        "\x0f",
        "!",
        "\x01",
        "\x1bf",
        "\x1b[3~",
        "\x1b[C",
        "\x05",
        "\x1f",
        "\x1b[200~x\ny\x1b[201~",
    ):
        pipe.send_text(key)
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    app.exit()
    await task
    # Ctrl+O (rebound) went to the end, Ctrl+A home, Alt+F past "hello", Delete took the space;
    # Ctrl+E is no longer End, and Ctrl+_ undid the Delete (the cursor back before the space).
    assert edit.text == "helloxy world!"
    assert len(changes) == 10  # six letters typed, "!", Delete, undo, the paste: moves are no change
    assert changes[-3:] == ["helloworld!", "hello world!", "helloxy world!"]
