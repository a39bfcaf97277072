"""The colour question to the terminal: its answers read as pi reads them, taken out of the keys
however the reads cut them, and typed keys kept."""

from __future__ import annotations

import asyncio
import io
import json
import os
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive import terminal_colors
from pi_core.modes.interactive.terminal_colors import AnswerFilter, TerminalInput
from pi_core.runtime import system_theme

FIXTURE: dict[str, Any] = json.loads(
    (Path(__file__).parents[3] / "fixtures" / "pi16_colors" / "system_theme.json").read_text(encoding="utf-8")
)
PALETTE = [(index * 10, 255 - index * 10, 100) for index in range(16)]


def _x11(rgb: tuple[int, int, int]) -> str:
    return "rgb:" + "/".join(f"{channel:02x}{channel:02x}" for channel in rgb)


ANSWER = (
    f"\x1b]10;{_x11((200, 210, 220))}\x1b\\"
    f"\x1b]11;{_x11((30, 30, 46))}\x1b\\"
    + "".join(f"\x1b]4;{index};{_x11(rgb)}\x07" for index, rgb in enumerate(PALETTE))
    + "\x1b[?62;22c"
)


@pytest.fixture(autouse=True)
def _forget_the_terminal() -> Iterator[None]:
    system_theme.reset()
    yield
    system_theme.reset()


@pytest.mark.parametrize(("data", "want"), FIXTURE["oscReplies"])
def test_an_answer_reads_as_pi_reads_it(data: str, want: dict[str, Any] | None) -> None:
    answer = terminal_colors.parse_answer(data)
    if want is None:
        assert answer is None
        return
    assert answer is not None
    target, colour = answer
    assert target == want["target"]
    assert colour == (None if "rgb" not in want else (want["rgb"]["r"], want["rgb"]["g"], want["rgb"]["b"]))


@pytest.mark.parametrize(("data", "want"), FIXTURE["schemeReports"])
def test_a_light_dark_notification_reads_as_pi_reads_it(data: str, want: str | None) -> None:
    assert terminal_colors.parse_scheme(data) == want


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, len(ANSWER)])
def test_the_answer_leaves_the_keys_however_the_reads_cut_it(size: int) -> None:
    reported: list[system_theme.Reported] = []
    answers = AnswerFilter(reported.append, lambda scheme: None)
    question = answers.ask()
    data = "ab" + ANSWER + "cd\x1b[Ae"  # keys before and after, an arrow key among them
    kept = "".join(answers.feed(data[start : start + size]) for start in range(0, len(data), size))
    kept += answers.flush()
    assert kept == "abcd\x1b[Ae"
    assert question.closed.is_set() and not answers.open
    assert reported == [system_theme.Reported((200, 210, 220), (30, 30, 46), tuple(PALETTE))]


def test_a_key_that_looks_like_the_start_of_an_answer_is_handed_on() -> None:
    answers = AnswerFilter(lambda reported: None, lambda scheme: None)
    assert answers.feed("\x1b") == "" and answers.flush() == "\x1b"  # Esc: the parser's wait decides
    assert answers.feed("\x1b]") == "" and answers.flush() == "\x1b]"  # Alt+]
    assert answers.feed("x\x1b[?62;22cy") == "x\x1b[?62;22cy"  # nobody asked: not ours
    assert answers.feed("\x1b[?997;2n") == ""  # a light/dark notification is always taken out


def test_a_cut_answer_is_held_longer_than_a_key_but_not_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = AnswerFilter(lambda reported: None, lambda scheme: None)
    answers.ask()
    assert answers.feed("\x1b]11;rgb:1e1e/1e") == ""
    assert answers.flush() == "" and answers.holding  # the key parser's wait is not enough
    assert answers.feed("1e/2e2e\x07z") == "z" and not answers.holding
    assert answers.feed("\x1b]11;rgb:1e") == ""
    monkeypatch.setattr(terminal_colors, "HOLD", 0.0)
    monkeypatch.setattr(terminal_colors, "EXPECT", 0.0)
    assert answers.flush() == "\x1b]11;rgb:1e"


async def test_after_the_wait_the_answers_so_far_count_and_late_ones_still_do() -> None:
    reported: list[system_theme.Reported] = []
    changed: list[bool] = []
    answers = AnswerFilter(
        lambda got: (reported.append(got), changed.append(system_theme.report(got))), print
    )
    question = answers.ask()
    answers.feed(f"\x1b]11;{_x11((250, 250, 250))}\x07")
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(question.closed.wait(), terminal_colors.WAIT)
    assert time.monotonic() - started < 1
    question.closed.set()
    answers._answered(question.result())  # what the wait hands on when it runs out
    assert system_theme.reported().background == (250, 250, 250)
    answers.feed(f"\x1b]10;{_x11((5, 5, 5))}\x07")  # late, alone
    assert system_theme.reported().foreground == (5, 5, 5) and changed[-1]
    assert answers.feed("\x1b[?62;22c") == "" and not answers.open  # its DA1 closes it
    assert system_theme.appearance_now() == "light"


def test_the_terminal_input_gives_the_key_parser_only_keys() -> None:
    primary, secondary = os.openpty()
    tty.setraw(secondary)  # as the REPL holds its terminal
    try:
        with os.fdopen(secondary, "r", closefd=False) as stdin:
            answers = AnswerFilter(lambda reported: None, lambda scheme: None)
            answers.ask()
            terminal = TerminalInput(stdin, answers)
            os.write(primary, ("h" + ANSWER[:40]).encode())
            first = [press.data for press in terminal.read_keys()]
            os.write(primary, (ANSWER[40:] + "i").encode())
            second = [press.data for press in terminal.read_keys()]
            assert first + second == ["h", "i"]
            assert not answers.open
    finally:
        os.close(primary)
        os.close(secondary)


def test_a_slow_stream_of_answers_each_cut_in_two_never_leaks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each read ends one answer and starts the next: the whole stream takes longer than the
    hold, but no single answer waits that long for its rest, so none is handed on as keys."""
    clock = [0.0]
    monkeypatch.setattr(terminal_colors.time, "monotonic", lambda: clock[0])
    answers = AnswerFilter(lambda reported: None, lambda scheme: None)
    answers.ask()
    cuts = [ANSWER[start : start + 30] for start in range(0, len(ANSWER), 30)]
    kept = ""
    for piece in cuts:
        clock[0] += 0.6  # over all of them, far beyond HOLD
        kept += answers.feed(piece)
        kept += answers.flush()  # the key parser's wait ran out between two reads
    assert kept == "" and not answers.open


async def test_reading_at_start_up_stops_once_answered_and_keeps_the_keys_for_the_editor() -> None:
    from prompt_toolkit.input.typeahead import get_typeahead

    primary, secondary = os.openpty()
    tty.setraw(secondary)
    try:
        with os.fdopen(secondary, "r", closefd=False) as stdin, io.StringIO() as stdout:
            changed: list[bool] = []
            colours = terminal_colors.TerminalColours(lambda: changed.append(True), stdin, stdout)
            question = colours.ask(read=True)
            os.write(primary, ("ok" + ANSWER).encode())
            await colours.wait(question, 2)
            await asyncio.sleep(0.05)
            assert question.closed.is_set() and changed and colours._reading is None
            assert [press.data for press in get_typeahead(colours.input)] == ["o", "k"]
            assert system_theme.reported().background == (30, 30, 46)
            assert stdout.getvalue() == terminal_colors.QUERY  # the question, once
    finally:
        os.close(primary)
        os.close(secondary)


@pytest.mark.parametrize("size", [1, 2, 5, 9, 1000])
def test_what_is_pasted_is_passed_on_as_it_is_however_the_reads_cut_it(size: int) -> None:
    """A paste may hold anything, answers' look-alikes too; the answer after it is still taken."""
    answers = AnswerFilter(lambda reported: None, lambda scheme: None)
    answers.ask()
    pasted = "\x1b[200~log \x1b]11;rgb:00/00/00\x07 and \x1b[?1;2c\x1b[201~"
    data = "a" + pasted + "b" + ANSWER + "c"
    kept = "".join(
        answers.feed(data[start : start + size]) + answers.flush() for start in range(0, len(data), size)
    )
    assert kept + answers.flush(force=True) == "a" + pasted + "bc"
    assert not answers.open


async def test_an_esc_pressed_just_after_a_question_comes_a_moment_later_not_never() -> None:
    from prompt_toolkit.input.typeahead import get_typeahead
    from prompt_toolkit.keys import Keys

    primary, secondary = os.openpty()
    tty.setraw(secondary)
    try:
        with os.fdopen(secondary, "r", closefd=False) as stdin:
            answers = AnswerFilter(lambda reported: None, lambda scheme: None)
            terminal = TerminalInput(stdin, answers)
            answers.ask()
            os.write(primary, b"\x1b")
            assert terminal.read_keys() == []
            assert terminal.flush_keys() == [] and answers.holding  # it may start the answer
            await asyncio.sleep(terminal_colors.EXPECT + 0.2)
            assert [press.key for press in get_typeahead(terminal)] == [Keys.Escape]
    finally:
        os.close(primary)
        os.close(secondary)


async def test_grey_until_the_answer_or_the_end_of_the_wait() -> None:
    """As pi: the ``system`` theme is grey (the terminal's own colours, no hues) while the
    question is out; after the wait a terminal that said nothing gets ANSI colours."""
    primary, secondary = os.openpty()
    tty.setraw(secondary)
    try:
        with os.fdopen(secondary, "r", closefd=False) as stdin, io.StringIO() as stdout:
            changed: list[bool] = []
            colours = terminal_colors.TerminalColours(lambda: changed.append(True), stdin, stdout)
            colours.expect_answer()
            assert stdout.getvalue() == ""  # nothing asked yet
            grey = system_theme.current().colors
            assert system_theme.pending() and grey["error"] == grey["accent"] == ""
            question = colours.ask()
            await colours.wait(question, 0.05)  # no answer at all
            assert not system_theme.pending() and changed
            ansi = system_theme.current().colors
            assert ansi["error"] == 1 and ansi["accent"] != ""
            system_theme.report(system_theme.Reported(background=(30, 30, 46)))
            colours.expect_answer()  # a terminal that reported its background stays in colour
            assert not system_theme.pending()
    finally:
        os.close(primary)
        os.close(secondary)
