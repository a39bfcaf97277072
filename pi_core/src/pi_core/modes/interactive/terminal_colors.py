"""Asking the terminal for its colours, for the ``system`` theme, and keeping its answers out of
the editor.

One question (:data:`QUERY`) asks for the default foreground (OSC 10), background (OSC 11) and
the 16 palette colours (OSC 4), and ends with a device-attributes request (DA1): every terminal
answers DA1, and answers come in order, so its answer closes the colour answers — also on a
terminal that ignores the colour questions. The question is sent when the REPL starts (and again
when the session is replaced, on ``/reload``, and when the terminal says it turned light or dark,
DEC mode 2031); the ``system`` theme is grey until the answer, which is waited for at most
:data:`WAIT` seconds (regular mode's header waits; fullscreen's waits on its own), answers
arriving later still count.

Answers come in on the keyboard's stream. :class:`AnswerFilter` takes them out of what is read
before the key parser sees it: colour answers always (no key sends one), DA1 answers while a
question is open, light/dark notifications (``CSI ? 997 ; 1|2 n``) always, and every other OSC
answer (the program status query's is passed on, :mod:`.program_status`), the kitty keyboard
protocol's flags and the DA1 answers owed to its question (:mod:`.keyboard_protocol`, which also
reads the extended key reports among the keys); what is pasted
(between the bracketed-paste markers) is left as it is. A sequence cut in two by the read is
held until the rest arrives, or handed on as typed when nothing follows: at once for what a key
may send, after :data:`HOLD` for what only an answer sends, and — just after a question, when
any escape byte may start its answer — after :data:`EXPECT` for a lone Esc.
:class:`TerminalInput` is prompt-toolkit's terminal input with that filter in front of its parser.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from prompt_toolkit.input.typeahead import store_typeahead
from prompt_toolkit.input.vt100 import Vt100Input
from prompt_toolkit.key_binding import KeyPress

from pi_core.modes.interactive import keyboard_protocol
from pi_core.modes.interactive.keyboard_protocol import KeyboardProtocol
from pi_core.runtime import system_theme
from pi_core.runtime.colors import RGB

PALETTE_SIZE = 16
QUERY = (
    "\x1b]10;?\x07\x1b]11;?\x07"
    + "".join(f"\x1b]4;{index};?\x07" for index in range(PALETTE_SIZE))
    + "\x1b[c"
)
#: Seconds the header waits for the answer (pi's 100 ms): a terminal answers in a few.
WAIT = 0.1
#: Seconds the start of an answer is held for its rest (a key's bytes are held only until the
#: key parser's own wait for the rest of an escape sequence is over).
HOLD = 1.0
#: Seconds after a question when any escape byte may be the start of its answer.
EXPECT = 0.25
#: Turn the terminal's light/dark notifications on and off (DEC private mode 2031).
NOTIFY_ON, NOTIFY_OFF = "\x1b[?2031h", "\x1b[?2031l"

_OSC = re.compile(r"\x1b\](?:(1[01])|4;(\d{1,3}));([^\x07\x1b]*)(?:\x07|\x1b\\)")
_OTHER_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_DA1 = re.compile(r"\x1b\[\?[\d;]*c")
_SCHEME = re.compile(r"\x1b\[\?997;([12])n")
#: The start of something that may still become one of the answers above (or a paste marker).
_PARTIAL = re.compile(r"\x1b(?:\](?:[^\x07\x1b]*\x1b?)?|\[(?:\?[\d;]*|2(?:00?)?)?)?\Z")
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def _cut_marker(data: str, marker: str) -> int:
    """How many of the last characters of ``data`` are the start of ``marker``."""
    for size in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-size:]):
            return size
    return 0


Target = str | int


def parse_answer(data: str) -> tuple[Target, RGB | None] | None:
    """``("foreground" | "background" | index, colour)`` for one OSC 10/11/4 answer (the colour
    ``None`` when it does not read); ``None`` when ``data`` is not such an answer."""
    match = _OSC.fullmatch(data)
    if match is None:
        return None
    target: Target = "foreground" if match[1] == "10" else "background" if match[1] == "11" else int(match[2])
    return target, system_theme.parse_colour(match[3])


def parse_scheme(data: str) -> system_theme.Appearance | None:
    """The appearance a light/dark notification reports (the last one of several)."""
    found = _SCHEME.findall(data)
    if not found or _SCHEME.sub("", data):
        return None
    return "light" if found[-1] == "2" else "dark"


@dataclass
class Question:
    """One question sent: the answers so far, and whether it is closed (DA1 came, or all)."""

    foreground: RGB | None = None
    background: RGB | None = None
    palette: list[RGB | None] = field(default_factory=lambda: [None] * PALETTE_SIZE)
    answered: set[Target] = field(default_factory=set)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    #: When it was sent (``time.monotonic``).
    asked: float = field(default_factory=lambda: time.monotonic())

    def result(self) -> system_theme.Reported:
        palette = self.palette
        full = tuple(colour for colour in palette if colour is not None)
        return system_theme.Reported(
            self.foreground, self.background, full if len(full) == PALETTE_SIZE else None
        )


class AnswerFilter:
    """Takes the terminal's answers out of the bytes read from it (see the module's text).
    ``answered`` gets each question's answers when it closes, and again for every answer that
    comes after the wait ran out; ``scheme`` gets each light/dark notification."""

    def __init__(
        self,
        answered: Callable[[system_theme.Reported], None],
        scheme: Callable[[system_theme.Appearance], None],
    ) -> None:
        self._answered = answered
        self._scheme = scheme
        self.open: list[Question] = []
        #: Called when the terminal says it takes program status reports (OSC 7501's answer).
        self.on_program_status: Callable[[], None] | None = None
        #: The extended key reports asked for (:mod:`.keyboard_protocol`), told their answers.
        self.keyboard: KeyboardProtocol | None = None
        #: Whose each DA1 answer still to come is, in the order asked: a colour question, or
        #: ``None`` for the key reports' question.
        self._owed: list[Question | None] = []
        self._held = ""
        self._held_since = 0.0
        self._pasting = False

    def ask(self) -> Question:
        question = Question()
        self.open.append(question)
        self._owed.append(question)
        return question

    def owe_keyboard(self) -> None:
        """The key reports' question went out; its DA1 answer is :attr:`keyboard`'s."""
        self._owed.append(None)

    def feed(self, data: str) -> str:
        """``data`` without the answers in it (a cut-off one is held for the next read). What
        is pasted (between the bracketed-paste markers) is passed on as it is."""
        now = time.monotonic()
        previous = len(self._held)  # what was held continues at the start of ``data``
        data, self._held = self._held + data, ""
        kept: list[str] = []
        position = 0
        while position < len(data):
            if self._pasting:
                end = data.find(PASTE_END, position)
                if end == -1:  # the paste goes on; its end marker may be cut off
                    cut = _cut_marker(data, PASTE_END)
                    kept.append(data[position : len(data) - cut])
                    self._held = data[len(data) - cut :]
                    return "".join(kept)
                kept.append(data[position : end + len(PASTE_END)])
                position, self._pasting = end + len(PASTE_END), False
                continue
            start = data.find("\x1b", position)
            if start == -1:
                break
            kept.append(data[position:start])
            if data.startswith(PASTE_START, start):
                kept.append(PASTE_START)
                position, self._pasting = start + len(PASTE_START), True
                continue
            # A sequence that starts in this read is new; one held before keeps its age.
            young = start >= previous or now - self._held_since < HOLD
            taken = self._take(data, start, young)
            if taken is None:
                report = keyboard_protocol.read_report(data, start, cut=young)
                if report is not None and report[0] < 0:  # a key report cut off: its rest
                    if start >= previous:
                        self._held_since = now
                    self._held = data[start:]
                    return "".join(kept)
                if report is not None:  # a key report, as the key parser reads that key
                    kept.append(report[1])
                    position = report[0]
                    continue
                kept.append("\x1b")  # not an answer: the Esc stays, the parser reads it
                position = start + 1
            elif taken < 0:  # perhaps the start of one: wait for the rest
                if start >= previous:
                    self._held_since = now
                self._held = data[start:]
                return "".join(kept)
            else:
                position = taken
        kept.append(data[position:])
        return "".join(kept)

    def flush(self, *, force: bool = False) -> str:
        """What is held, handed on as typed since nothing followed it — but what may be the
        start of an answer is held longer, for :data:`HOLD` seconds: the rest of an answer may
        come in a later write."""
        held = self._held
        now = time.monotonic()
        age = now - self._held_since
        if held and not force:
            # What no key sends (ESC ] or ESC [ ? and more) waits up to HOLD; just after a
            # question any escape may start its answer, and waits up to EXPECT (an Esc key
            # pressed then comes that much later).
            if len(held) > 2 and held.startswith(("\x1b]", "\x1b[?")) and age < HOLD:
                return ""
            expecting = any(now - question.asked < EXPECT for question in self.open)
            if expecting and held.startswith("\x1b") and age < EXPECT:
                return ""
        if self._pasting and not force:
            return ""  # the start of the paste's end marker: the rest is on its way
        self._held = ""
        return held

    @property
    def holding(self) -> bool:
        return bool(self._held)

    @property
    def pasting(self) -> bool:
        return self._pasting

    def _take(self, data: str, start: int, young: bool) -> int | None:
        """Where the answer starting at ``start`` ends (it is consumed); ``None``: no answer
        starts there; ``-1``: it may be one, cut off by the end of the data (and, beyond its
        first two bytes, ``young``: held for less than :data:`HOLD`)."""
        for pattern in (_OSC, _OTHER_OSC, _DA1, _SCHEME, keyboard_protocol.FLAGS_ANSWER):
            match = pattern.match(data, start)
            if match is None:
                continue
            if pattern is _DA1 and not self._owed:
                return None  # nobody asked: someone else's answer, or a key
            self._consume(pattern, match)
            return match.end()
        rest = len(data) - start
        if _PARTIAL.match(data, start) and rest < 64 and (young or rest <= 2):
            return -1
        return None

    def _consume(self, pattern: re.Pattern[str], match: re.Match[str]) -> None:
        if pattern is _SCHEME:
            self._scheme("light" if match[1] == "2" else "dark")
            return
        if pattern is keyboard_protocol.FLAGS_ANSWER:
            if self.keyboard is not None:
                self.keyboard.flags_answered(int(match[1]))
            return
        if pattern is _DA1:
            owner = self._owed.pop(0)
            if owner is None:
                if self.keyboard is not None:
                    self.keyboard.attributes_answered()
            elif any(question is owner for question in self.open):
                self.open = [question for question in self.open if question is not owner]
                self._close(owner)
            return
        if pattern is _OTHER_OSC:
            if match[0].startswith("\x1b]7501;?") and self.on_program_status is not None:
                self.on_program_status()
            return
        if not self.open:
            return
        answer = parse_answer(match[0])
        if answer is None:
            return
        question = self.open[0]
        target, colour = answer
        if target in question.answered:
            return
        question.answered.add(target)
        if target == "foreground":
            question.foreground = colour
        elif target == "background":
            question.background = colour
        elif isinstance(target, int) and target < PALETTE_SIZE:
            question.palette[target] = colour
        if question.closed.is_set():  # the wait ran out: a late answer counts on its own
            self._answered(question.result())
        elif len(question.answered) == 2 + PALETTE_SIZE:
            self._close(question)  # open until its DA1 answer, which is still to come

    def _close(self, question: Question) -> None:
        if not question.closed.is_set():
            question.closed.set()
            self._answered(question.result())


class TerminalInput(Vt100Input):
    """prompt-toolkit's terminal input, with the terminal's answers taken out first."""

    def __init__(self, stdin: TextIO, answers: AnswerFilter) -> None:
        super().__init__(stdin)
        self.answers = answers
        self._later: asyncio.TimerHandle | None = None

    def read_keys(self) -> list[KeyPress]:
        self.vt100_parser.feed(self.answers.feed(self.stdin_reader.read()))
        result, self._buffer = self._buffer, []
        return result

    def flush_keys(self) -> list[KeyPress]:
        held = self.answers.flush()
        if held:
            self.vt100_parser.feed(held)
        elif self.answers.holding and not self.answers.pasting:
            self._flush_later()
        return super().flush_keys()

    def _flush_later(self) -> None:
        """Look again soon at what the filter holds: prompt-toolkit flushes once after a read,
        so a held key (an Esc just after a question) would otherwise wait for the next one."""
        if self._later is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        def again() -> None:
            from prompt_toolkit.application.current import get_app_or_none

            self._later = None
            keys = self.flush_keys()
            app = get_app_or_none()
            if keys and app is not None and app.is_running:
                app.key_processor.feed_multiple(keys)
                app.key_processor.process_keys()
            elif keys:
                store_typeahead(self, keys)

        self._later = loop.call_later(0.05, again)


class TerminalColours:
    """The REPL's questions to its terminal: sends them, reads the answers while no editor is
    reading keys (keys typed meanwhile are kept for the editor), and reports what came."""

    def __init__(
        self, changed: Callable[[], None], stdin: TextIO | None = None, stdout: TextIO | None = None
    ):
        self._changed = changed
        self._stdout = stdout or sys.stdout
        self.answers = AnswerFilter(self._report, self._report_scheme)
        self.input = TerminalInput(stdin or sys.stdin, self.answers)
        self._reading: contextlib.ExitStack | None = None
        self._notifying = False
        #: The extended key reports (kitty's protocol or modifyOtherKeys) asked for.
        self.keyboard = KeyboardProtocol(self._write)
        self.answers.keyboard = self.keyboard
        #: Called with the appearance when the terminal says it turned light or dark.
        self.on_scheme: Callable[[system_theme.Appearance], None] | None = None

    def ask(self, *, read: bool = False) -> Question:
        """Send the question. ``read``: read the answers here until it closes (the REPL is
        starting and no editor reads keys yet)."""
        question = self.answers.ask()
        self.expect_answer()
        self._write(QUERY)
        if read and self._reading is None:
            stack = contextlib.ExitStack()
            stack.enter_context(self.input.attach(self._read))
            self._reading = stack
        return question

    def expect_answer(self) -> None:
        """The ``system`` theme is grey until the terminal answers (or the wait is over), as
        pi's is — unless the terminal has already reported its colours."""
        if not system_theme.reported().background:
            system_theme.mark_pending()

    async def wait(self, question: Question, seconds: float = WAIT) -> None:
        """Until ``question`` closes or ``seconds`` pass; then its answers count as they are."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(question.closed.wait(), seconds)
        if not question.closed.is_set():
            question.closed.set()  # later answers are reported one by one
            self._report(question.result())

    def stop_reading(self) -> None:
        """An editor reads keys from now on (through :attr:`input`, which filters them too)."""
        if self._reading is not None:
            reading, self._reading = self._reading, None
            reading.close()
            store_typeahead(self.input, self.input.flush_keys())

    def ask_for_key_reports(self) -> None:
        """Ask the terminal for extended key reports (once until :meth:`stop_key_reports`)."""
        if self.keyboard.start():
            self.answers.owe_keyboard()

    def stop_key_reports(self) -> bool:
        """Put the terminal's key reports back as they were; whether kitty's were on."""
        return self.keyboard.stop()

    def notify(self, on: bool) -> None:
        """Ask for (or stop) the terminal's light/dark notifications."""
        if on != self._notifying:
            self._notifying = on
            self._write(NOTIFY_ON if on else NOTIFY_OFF)

    def _read(self) -> None:
        keys = self.input.read_keys()
        if keys:
            store_typeahead(self.input, keys)
        if self.input.closed or (not self.answers.open and not self.answers.holding):
            self.stop_reading()  # answered (or the terminal is gone: nothing more to read)

    def _report(self, reported: system_theme.Reported) -> None:
        if system_theme.report(reported):
            self._changed()

    def _report_scheme(self, scheme: system_theme.Appearance) -> None:
        if self.on_scheme is not None:
            self.on_scheme(scheme)

    def _write(self, text: str) -> None:
        try:
            self._stdout.write(text)
            self._stdout.flush()
        except (OSError, ValueError):
            pass
