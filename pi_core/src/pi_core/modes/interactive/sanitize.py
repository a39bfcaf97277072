"""Make text from tools, models and plugins safe to print on a terminal.

Output a tool produced may carry terminal control sequences — a title change (OSC 0), a cursor
move, a screen clear, a hyperlink, a clipboard write (OSC 52). Printed as they are they act on the
user's terminal instead of being read, so everything shown in the transcript goes through
:func:`sanitize` first: escape sequences of every kind (CSI, OSC, DCS/SOS/PM/APC strings, two-byte
escapes), 8-bit C1 controls and C0 controls other than tab and newline are removed, and a lone
UTF-16 surrogate becomes U+FFFD. A carriage
return that is not part of CRLF overwrites its line, as on a terminal: only what follows the last
one is kept (progress bars show their final state).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_SEQUENCES = re.compile(
    r"""
      \x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?          # OSC ... BEL/ST (unterminated: to the end)
    | \x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?            # 8-bit OSC
    | \x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?               # DCS, SOS, PM, APC strings
    | [\x90\x98\x9e\x9f][^\x1b\x9c]*(?:\x1b\\|\x9c)?       # their 8-bit forms
    | (?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?  # CSI: parameters, intermediates, final
    | \x1b[\x20-\x2f]*[\x30-\x7e]?                         # other escapes (ESC 7, ESC ( B, ESC c ...)
    """,
    re.VERBOSE,
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
#: Half of a UTF-16 pair (valid in JSON, ``"\ud800"``): no character, and a terminal's UTF-8
#: output cannot encode it.
_SURROGATES = re.compile("[\ud800-\udfff]")
_NEEDS_WORK = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def sanitize(text: str) -> str:
    """``text`` without terminal control sequences or control characters (tab and LF stay)."""
    if not _NEEDS_WORK.search(text):
        return text  # the common case: nothing to do, no copy
    text = _CONTROLS.sub("", _SEQUENCES.sub("", text))
    text = _SURROGATES.sub("\ufffd", text)
    if "\r" in text:
        text = "\n".join(_overwrite(line) for line in text.replace("\r\n", "\n").split("\n"))
    return text


_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def keep_style(text: str) -> str:
    """Like :func:`sanitize`, but colour and weight escapes (SGR, ``ESC [ … m``) stay."""
    if "\x1b" not in text:
        return sanitize(text)
    pieces: list[str] = []
    last = 0
    for match in _SGR.finditer(text):
        pieces.append(sanitize(text[last : match.start()]))
        pieces.append(match.group(0))
        last = match.end()
    pieces.append(sanitize(text[last:]))
    return "".join(pieces)


def _overwrite(line: str) -> str:
    if "\r" not in line:
        return line
    parts = [part for part in line.split("\r") if part]
    return parts[-1] if parts else ""


def sanitize_value(value: Any) -> Any:
    """Strings inside dicts, lists and tuples sanitised (tool-call arguments)."""
    if isinstance(value, str):
        return sanitize(value)
    if isinstance(value, Mapping):
        return {key: sanitize_value(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [sanitize_value(item) for item in value]
    return value


def sanitize_content(content: Any) -> Any:
    """A message's or tool result's content with every text block sanitised (other blocks kept)."""
    if isinstance(content, str):
        return sanitize(content)
    if not isinstance(content, list):
        return content
    cleaned: list[Any] = []
    for block in content:
        if getattr(block, "type", None) == "text" and _NEEDS_WORK.search(block.text):
            block = block.model_copy(update={"text": sanitize(block.text)})
        cleaned.append(block)
    return cleaned


def sanitize_result(result: Any) -> Any:
    """A tool result (content and string details) safe to hand to a renderer."""
    if result is None or not hasattr(result, "model_copy"):
        return result
    update: dict[str, Any] = {"content": sanitize_content(result.content)}
    details = getattr(result, "details", None)
    if details is not None:
        update["details"] = sanitize_value(details)
    return result.model_copy(update=update)
