"""Pastes into the editor: a big one is held aside and a marker stands in for it until Enter.

pi's editor does the same: a paste of more than ten lines or a thousand characters shows as
``[paste #1 +120 lines]`` (or ``[paste #2 1500 chars]``), so the editor stays small and quick;
the text is put back in place of its marker when the prompt is sent, and Backspace right after
a marker removes it whole (the markers after it are numbered down). Every paste is cleaned as
pi cleans it: line endings become ``\\n``, tabs four spaces, other control characters go.
"""

from __future__ import annotations

import re

from prompt_toolkit.buffer import Buffer

#: A paste longer than this many lines, or characters, is collapsed into a marker.
MAX_LINES = 10
MAX_CHARS = 1000

_MARKER = re.compile(r"\[paste #(\d+)( (?:\+\d+ lines|\d+ chars))?\]")
#: Control sequences some terminals (tmux with extended keys) put in a paste for Ctrl+letter.
_CSI_U_CTRL = re.compile(r"\x1b\[(\d+);5u")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f]")


def clean(data: str) -> str:
    """A paste as the editor takes it: ``\\n`` line endings, tabs as spaces, no control bytes."""

    def control(match: re.Match[str]) -> str:
        code = int(match.group(1))
        if 97 <= code <= 122:
            return chr(code - 96)
        if 65 <= code <= 90:
            return chr(code - 64)
        return match.group(0)

    text = _CSI_U_CTRL.sub(control, data)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    return _CONTROL.sub("", text)


class Pastes:
    """The big pastes of one editor, by number, until the text is sent or replaced."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._texts)

    def paste(self, buffer: Buffer, data: str) -> None:
        """Insert ``data`` at the cursor: as it is when small, as a marker when big."""
        text = clean(data)
        before = buffer.document.text_before_cursor
        if text[:1] in ("/", "~", ".") and re.fullmatch(r"\w", before[-1:]):
            text = " " + text  # a path pasted right after a word
        lines = text.count("\n") + 1
        if lines <= MAX_LINES and len(text) <= MAX_CHARS:
            buffer.insert_text(text)
            return
        if not _MARKER.search(buffer.text):
            self._texts.clear()  # the editor holds no marker: numbering starts again
        number = max(self._texts, default=0) + 1
        self._texts[number] = text
        size = f"+{lines} lines" if lines > MAX_LINES else f"{len(text)} chars"
        buffer.insert_text(f"[paste #{number} {size}]")

    def expand(self, text: str) -> str:
        """``text`` with each marker of a paste held here replaced by that paste."""
        if not self._texts or "[paste #" not in text:
            return text

        def put_back(match: re.Match[str]) -> str:
            held = self._texts.get(int(match.group(1)))
            return match.group(0) if held is None else held

        return _MARKER.sub(put_back, text)

    def clear(self) -> None:
        self._texts.clear()

    def delete_marker_before_cursor(self, buffer: Buffer) -> bool:
        """Backspace right after a marker of a held paste: the marker and its paste go, the
        markers of later pastes are numbered down. False when there is no such marker there."""
        if not self._texts:
            return False
        before = buffer.document.text_before_cursor
        match = None
        for found in _MARKER.finditer(before):
            if found.end() == len(before):
                match = found
        if match is None or int(match.group(1)) not in self._texts:
            return False
        gone = int(match.group(1))
        buffer.delete_before_cursor(len(match.group(0)))
        del self._texts[gone]
        later = sorted(number for number in self._texts if number > gone)
        for number in later:
            self._texts[number - 1] = self._texts.pop(number)

        def renumber(found: re.Match[str]) -> str:
            number = int(found.group(1))
            return found.group(0) if number <= gone else f"[paste #{number - 1}{found.group(2) or ''}]"

        if later:
            cursor = buffer.cursor_position
            head = _MARKER.sub(renumber, buffer.text[:cursor])
            buffer.text = head + _MARKER.sub(renumber, buffer.text[cursor:])
            buffer.cursor_position = len(head)
        return True
