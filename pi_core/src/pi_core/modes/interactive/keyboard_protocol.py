"""Asking the terminal for extended key reports, as pi 1.6.0 asks, and reading them.

A plain terminal sends Enter for Shift+Enter and Ctrl+G for Ctrl+Shift+G. Two protocols report
such keys, each only once a program asks for it:

* the kitty keyboard protocol: :data:`ASK` pushes flags 7 onto the terminal's stack (1: escape
  codes told apart, 2: repeat and release events, 4: the shifted and base-layout keys), asks what
  is in force (``CSI ? u``, answered ``CSI ? flags u`` by a terminal that knows the protocol) and
  ends with a device-attributes request (DA1), which every terminal answers;
* xterm's modifyOtherKeys (mode 2, :data:`MODIFY_ON`), switched on when the terminal answered
  flags 0 or its DA1 came with no kitty answer before it (tmux with ``extended-keys`` on).

:class:`KeyboardProtocol` keeps that state and, when the terminal is handed back (an external
editor, the shell after Ctrl+Z, exit, a crash), undoes exactly what was switched on: the pushed
flags are popped (``CSI < u``) and modifyOtherKeys set back to 0; then it asks again when the
terminal comes back. The answers are taken out of the keys with the colour answers
(:class:`~pi_core.modes.interactive.terminal_colors.AnswerFilter`), which also hands every key
report to :func:`read_report`: a report of a key bound to an action stays as it is (prompt-toolkit's
parser knows it, :func:`~pi_core.modes.interactive.keys.extended_sequence`); any other becomes
the bytes a plain terminal sends for that key, and a key release (or a key no plain terminal
sends, Super+K unbound) becomes nothing.
"""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Callable

from prompt_toolkit.input import ansi_escape_sequences

#: Push kitty flags 7 (disambiguate, event types, alternate keys), ask what is in force, then DA1.
ASK = "\x1b[>7u\x1b[?u\x1b[c"
#: Pop the flags pushed.
POP = "\x1b[<u"
MODIFY_ON, MODIFY_OFF = "\x1b[>4;2m", "\x1b[>4;0m"

#: The terminal's answer to ``CSI ? u``.
FLAGS_ANSWER = re.compile(r"\x1b\[\?(\d+)u")

_SHIFT, _ALT, _CTRL = 1, 2, 4
#: Caps Lock and Num Lock, which say nothing about the key.
_LOCKS = 64 | 128
_CSI_U = re.compile(r"\x1b\[(\d+)(?::(\d*))?(?::\d*)?(?:;(\d*)(?::(\d+))?)?(?:;[\d:]*)?u")
_CSI_27 = re.compile(r"\x1b\[27;(\d+);(\d+)~")
_FUNCTIONAL = re.compile(r"\x1b\[(\d*)(?:;(\d+)(?::(\d+))?)?([~ABCDEFHPQS])")
#: A report cut off by the end of a read.
_PARTIAL = re.compile(r"\x1b\[[\d;:]*\Z")
#: kitty's keypad keys (Private Use Area codes) as the keys they stand for.
_KEYPAD = {57399 + index: ord(char) for index, char in enumerate("0123456789./*-+")}
_KEYPAD |= {57414: 13, 57415: ord("="), 57416: ord(",")}
_KEYPAD_MOVES = {
    57417: "D",  # left
    57418: "C",
    57419: "A",
    57420: "B",
    57421: "5~",  # page up
    57422: "6~",
    57423: "H",
    57424: "F",
    57425: "2~",  # insert
    57426: "3~",
}
_PRIVATE_USE = range(57344, 63744)
#: Ctrl with a symbol, as xterm sends it.
_CTRL_SYMBOLS = {
    "@": "\x00",
    " ": "\x00",
    "2": "\x00",
    "[": "\x1b",
    "3": "\x1b",
    "\\": "\x1c",
    "4": "\x1c",
    "]": "\x1d",
    "5": "\x1d",
    "^": "\x1e",
    "6": "\x1e",
    "_": "\x1f",
    "-": "\x1f",
    "/": "\x1f",
    "7": "\x1f",
    "?": "\x7f",
    "8": "\x7f",
}


def read_report(data: str, start: int, *, cut: bool) -> tuple[int, str] | None:
    """The key report at ``data[start:]`` as ``(end, what the key parser gets instead)``;
    ``(-1, "")`` for the start of one cut off by the end of the data (only while ``cut`` may
    still be continued by a later read); ``None`` when no report starts there or it needs no
    change (a legacy sequence prompt-toolkit reads as it is)."""
    for pattern in (_CSI_27, _CSI_U, _FUNCTIONAL):
        match = pattern.match(data, start)
        if match is None:
            continue
        if pattern is _FUNCTIONAL:
            text = _functional(match)
        elif pattern is _CSI_27:
            text = _character(int(match[2]), int(match[1]) - 1, None, None)
        else:
            shifted = int(match[2]) if match[2] else None
            modifiers = int(match[3]) - 1 if match[3] else 0
            text = _character(int(match[1]), modifiers, shifted, match[4])
        if text is None or text == match[0]:
            return None
        return match.end(), text
    if cut and _PARTIAL.match(data, start) and len(data) - start < 32:
        return -1, ""
    return None


def _character(code: int, modifiers: int, shifted: int | None, event: str | None) -> str:
    """A CSI u or CSI 27 report of a key (``code``) pressed with ``modifiers``."""
    if event == "3":
        return ""  # a key let go
    modifiers &= ~_LOCKS
    code = _KEYPAD.get(code, code)
    if code in _KEYPAD_MOVES:
        move = _KEYPAD_MOVES[code]
        if not modifiers:
            return "\x1b[" + move
        number, final = (move[:-1], "~") if move.endswith("~") else ("1", move)
        return f"\x1b[{number};{modifiers + 1}{final}"
    if code in _PRIVATE_USE:
        return ""  # F13 and up, media keys, a modifier alone: nothing a plain terminal sends
    flags = modifiers + 1
    table = ansi_escape_sequences.ANSI_SEQUENCES
    for form in (f"\x1b[{code};{flags}u", f"\x1b[27;{flags};{code}~") if modifiers else (f"\x1b[{code}u",):
        if form in table:
            return form  # a key bound to an action (or one prompt-toolkit knows)
    return _legacy(code, modifiers, shifted)


def _legacy(code: int, modifiers: int, shifted: int | None) -> str:
    """What a plain terminal sends for the key: Ctrl and Alt kept as it keeps them, Shift folded
    into the character, nothing for Super or Hyper."""
    if modifiers & ~(_SHIFT | _ALT | _CTRL):
        return ""
    alt = "\x1b" if modifiers & _ALT else ""
    ctrl, shift = modifiers & _CTRL, modifiers & _SHIFT
    if code == 27:
        return "\x1b"
    if code == 13:
        return alt + "\r"
    if code == 9:
        return alt + ("\x1b[Z" if shift else "\t")
    if code in (127, 8):
        return alt + ("\x08" if ctrl else "\x7f")
    if code < 32 or code >= 0x110000:
        return ""
    char = chr(code)
    if ctrl:
        lower = char.lower()
        if "a" <= lower <= "z":
            return alt + chr(ord(lower) - 96)
        return alt + _CTRL_SYMBOLS.get(char, char)
    if shift:
        char = chr(shifted) if shifted and shifted < 0x110000 else char.upper()
    return alt + char


def _functional(match: re.Match[str]) -> str | None:
    """An arrow, Home/End, F1-F4 or ``CSI n ~`` key, with kitty's event type and lock bits."""
    number, modifiers_text, event, final = match[1], match[2], match[3], match[4]
    if modifiers_text is None:
        return None  # legacy as it is
    if event == "3":
        return ""
    modifiers = (int(modifiers_text) - 1) & ~_LOCKS
    if final == "~":
        if not number:
            return None
        return f"\x1b[{number};{modifiers + 1}~" if modifiers else f"\x1b[{number}~"
    if number not in ("", "1"):
        return None
    if modifiers:
        return f"\x1b[1;{modifiers + 1}{final}"
    return f"\x1bO{final}" if final in "PQS" else f"\x1b[{final}"


class KeyboardProtocol:
    """What the REPL switched on in the terminal, so that exactly that is undone."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        #: Flags were pushed (the question sent) and not popped yet.
        self.pushed = False
        #: The terminal answered with flags in force: kitty's reports come.
        self.kitty = False
        #: modifyOtherKeys mode 2 is on.
        self.modify_other_keys = False

    def start(self) -> bool:
        """Push the flags and ask (once until :meth:`stop`); whether the question went out."""
        if self.pushed:
            return False
        self.pushed = True
        self._write(ASK)
        return True

    def flags_answered(self, flags: int) -> None:
        """The terminal's ``CSI ? flags u``: kitty's protocol is in force, or (0) it is not and
        modifyOtherKeys stands in."""
        if not self.pushed:
            return  # answered after the terminal was handed back
        if flags:
            self._modify(False)
            self.kitty = True
        else:
            self._modify(True)

    def attributes_answered(self) -> None:
        """The DA1 answer owed to the question came: with no kitty answer before it,
        modifyOtherKeys is switched on."""
        if self.pushed and not self.kitty:
            self._modify(True)

    def undo(self) -> str:
        """What puts the terminal back as it was (nothing when nothing is on)."""
        return (POP if self.pushed else "") + (MODIFY_OFF if self.modify_other_keys else "")

    def stop(self) -> bool:
        """Undo what is on; whether kitty's reports were coming (late releases may follow)."""
        undo, was_kitty = self.undo(), self.kitty
        self.pushed = self.kitty = self.modify_other_keys = False
        if undo:
            self._write(undo)
        return was_kitty

    def _modify(self, on: bool) -> None:
        if on == self.modify_other_keys or (on and self.kitty):
            return
        self.modify_other_keys = on
        self._write(MODIFY_ON if on else MODIFY_OFF)


def drain(fd: int, longest: float = 1.0, quiet: float = 0.05) -> None:
    """Read and drop what the terminal still sends (kitty's release events of the keys that
    ended the program) until it has been quiet for ``quiet`` seconds, ``longest`` at most, so
    that none of it reaches the shell. Blocking: run it in a thread."""
    end = time.monotonic() + longest
    while (left := end - time.monotonic()) > 0:
        try:
            ready, _, _ = select.select([fd], [], [], min(quiet, left))
            if not ready or not os.read(fd, 4096):
                return
        except (OSError, ValueError):
            return
