"""Extended key reports: the question pi 1.6.0 asks, what each scripted answer switches on, what
is undone when the terminal is handed back, and each report read as the key it stands for."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import TextIO

import pytest
from pi_core.modes.interactive import keyboard_protocol
from pi_core.modes.interactive.keyboard_protocol import ASK, MODIFY_OFF, MODIFY_ON, POP, read_report
from pi_core.modes.interactive.keys import extended_sequence
from pi_core.modes.interactive.terminal_colors import QUERY, TerminalColours
from pi_core.runtime import system_theme


class Terminal:
    """The REPL's questions on one side (what it wrote), the terminal's answers fed on the other."""

    def __init__(self, stdin: TextIO) -> None:
        self.written = io.StringIO()
        self.colours = TerminalColours(lambda: None, stdin, self.written)

    def answer(self, data: str) -> str:
        """What of ``data`` reaches the key parser."""
        return self.colours.answers.feed(data) + self.colours.answers.flush()

    def take_written(self) -> str:
        text = self.written.getvalue()
        self.written.seek(0)
        self.written.truncate()
        return text


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    system_theme.reset()
    read, write = os.pipe()
    with open(read, encoding="utf-8") as stdin:
        yield Terminal(stdin)
    os.close(write)


def test_the_question_is_pis(terminal: Terminal) -> None:
    terminal.colours.ask_for_key_reports()
    assert terminal.take_written() == "\x1b[>7u\x1b[?u\x1b[c"
    terminal.colours.ask_for_key_reports()  # asked once until the terminal is handed back
    assert terminal.take_written() == ""


def test_a_kitty_answer_keeps_modify_other_keys_off(terminal: Terminal) -> None:
    terminal.colours.ask_for_key_reports()
    terminal.take_written()
    assert terminal.answer("a\x1b[?7ub\x1b[?62;22cc") == "abc"
    assert terminal.colours.keyboard.kitty
    assert terminal.take_written() == ""
    assert terminal.colours.stop_key_reports() is True
    assert terminal.take_written() == POP


@pytest.mark.parametrize("answer", ["\x1b[?62;22c", "\x1b[?0u\x1b[?1;2c"], ids=["DA1 alone", "flags 0"])
def test_no_kitty_answer_switches_modify_other_keys_on_and_back_off(terminal: Terminal, answer: str) -> None:
    terminal.colours.ask_for_key_reports()
    terminal.take_written()
    assert terminal.answer(answer) == ""
    assert terminal.take_written() == MODIFY_ON
    assert terminal.colours.stop_key_reports() is False
    assert terminal.take_written() == POP + MODIFY_OFF
    assert terminal.colours.keyboard.undo() == ""


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_answers_cut_by_the_reads_are_still_read(terminal: Terminal, size: int) -> None:
    terminal.colours.ask_for_key_reports()
    question = terminal.colours.ask()
    terminal.take_written()
    data = "x\x1b[?7u\x1b[?62c" + "\x1b]11;rgb:1e1e/1e1e/2e2e\x07\x1b[?62cy"
    kept = "".join(terminal.colours.answers.feed(data[at : at + size]) for at in range(0, len(data), size))
    assert kept + terminal.colours.answers.flush() == "xy"
    assert terminal.colours.keyboard.kitty and question.closed.is_set()
    assert question.background == (0x1E, 0x1E, 0x2E)


def test_each_da1_answer_goes_to_its_question_in_order(terminal: Terminal) -> None:
    question = terminal.colours.ask()
    terminal.colours.ask_for_key_reports()
    assert terminal.take_written() == QUERY + ASK
    terminal.answer("\x1b[?62c")  # the colour question's: no key reports decided yet
    assert question.closed.is_set() and terminal.take_written() == ""
    terminal.answer("\x1b[?62c")  # the key reports' own, with no kitty answer before it
    assert terminal.take_written() == MODIFY_ON
    assert terminal.answer("\x1b[?62c") == "\x1b[?62c"  # owed to nobody: someone else's


def test_answers_after_the_terminal_was_handed_back_switch_nothing_on(terminal: Terminal) -> None:
    terminal.colours.ask_for_key_reports()
    terminal.colours.stop_key_reports()
    assert terminal.take_written() == ASK + POP
    assert terminal.answer("\x1b[?0u\x1b[?62c") == ""
    assert terminal.take_written() == ""
    terminal.colours.ask_for_key_reports()  # back: asked again
    assert terminal.take_written() == ASK


def test_a_kitty_answer_after_modify_other_keys_turns_it_off(terminal: Terminal) -> None:
    terminal.colours.ask_for_key_reports()
    terminal.answer("\x1b[?62c")
    terminal.colours.stop_key_reports()
    terminal.colours.ask_for_key_reports()  # a second question before the first's answers
    terminal.take_written()
    terminal.answer("\x1b[?62c")  # the first question's DA1, late
    assert terminal.take_written() == MODIFY_ON
    terminal.answer("\x1b[?5u\x1b[?62c")
    assert terminal.take_written() == MODIFY_OFF
    assert terminal.colours.keyboard.undo() == POP


def test_a_bound_keys_reports_pass_unchanged() -> None:
    assert extended_sequence("shift+enter") is not None
    for report in ("\x1b[13;2u", "\x1b[13;2:1u"):
        found = read_report(report, 0, cut=False)
        assert found is None or found[1] == "\x1b[13;2u"
    assert read_report("\x1b[27;2;13~", 0, cut=False) == (10, "\x1b[13;2u")
    assert read_report("\x1b[13;66u", 0, cut=False) == (8, "\x1b[13;2u")  # Caps Lock on


@pytest.mark.parametrize(
    ("report", "typed"),
    [
        ("\x1b[99;5u", "\x03"),  # Ctrl+C
        ("\x1b[27;5;99~", "\x03"),  # Ctrl+C, modifyOtherKeys
        ("\x1b[99;5:3u", ""),  # its release
        ("\x1b[99;5:2u", "\x03"),  # a repeat
        ("\x1b[27u", "\x1b"),  # Esc
        ("\x1b[120;3u", "\x1bx"),  # Alt+X
        ("\x1b[97:65;2u", "A"),  # Shift+A with the shifted key
        ("\x1b[49:33;2u", "!"),  # Shift+1
        ("\x1b[65;2u", "A"),  # tmux's Shift+A
        ("\x1b[100;5u", "\x04"),  # Ctrl+D
        ("\x1b[91;5u", "\x1b"),  # Ctrl+[
        ("\x1b[9;2u", "\x1b[Z"),  # Shift+Tab
        ("\x1b[127;5u", "\x08"),  # Ctrl+Backspace
        ("\x1b[32;5u", "\x00"),  # Ctrl+Space
        ("\x1b[13;5u", "\x1b[27;5;13~"),  # Ctrl+Enter, unbound: what prompt-toolkit reads as Enter
        ("\x1b[107;9u", ""),  # Super+K, unbound: a plain terminal sends nothing
        ("\x1b[57441;2u", ""),  # Shift alone
        ("\x1b[57414u", "\r"),  # the keypad's Enter
        ("\x1b[57399u", "0"),  # the keypad's 0
        ("\x1b[57419;5u", "\x1b[1;5A"),  # the keypad's Up with Ctrl
        ("\x1b[1;1:3A", ""),  # Up let go
        ("\x1b[1;1:2B", "\x1b[B"),  # Down repeated
        ("\x1b[1;65C", "\x1b[C"),  # Right with Caps Lock
        ("\x1b[3;1:3~", ""),  # Delete let go
        ("\x1b[5;5:1~", "\x1b[5;5~"),  # Ctrl+PageUp
        ("\x1b[1;1:1P", "\x1bOP"),  # F1
    ],
)
def test_an_unbound_report_reads_as_a_plain_terminal_sends_the_key(report: str, typed: str) -> None:
    assert read_report(report, 0, cut=False) == (len(report), typed)


@pytest.mark.parametrize(
    "sequence", ["\x1b[A", "\x1b[1;5A", "\x1b[200~", "\x1b[12;40R", "\x1b[3~", "\x1b[<0;3;4M"]
)
def test_legacy_sequences_are_left_to_the_parser(sequence: str) -> None:
    assert read_report(sequence, 0, cut=False) is None


def test_a_report_cut_off_is_held_for_its_rest(terminal: Terminal) -> None:
    answers = terminal.colours.answers
    assert answers.feed("a\x1b[99;") == "a"
    assert answers.feed("5ub") == "\x03b"
    assert answers.feed("\x1b[1;5") == ""
    assert answers.flush(force=True) == "\x1b[1;5"  # nothing more came: handed on as typed


def test_reports_in_a_paste_are_pasted_as_they_are(terminal: Terminal) -> None:
    paste = "\x1b[200~x\x1b[99;5uy\x1b[201~"
    assert terminal.answer(paste) == paste


def test_drain_drops_what_the_terminal_still_sends() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"\x1b[100;5:3u")
        keyboard_protocol.drain(read, longest=0.5, quiet=0.02)
        os.write(write, b"k")
        assert os.read(read, 10) == b"k"  # what was there before was read and dropped
    finally:
        os.close(read)
        os.close(write)
