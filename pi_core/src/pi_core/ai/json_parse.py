"""Parsing JSON that is still arriving: tool-call arguments stream in as raw fragments.

``parse_streaming_json`` always returns an object: the complete parse if the text is complete, else
the best parse of a closed-off prefix, else ``{}`` — so a partial tool call always has ``arguments``.
"""

from __future__ import annotations

import json
from typing import Any

_decoder = json.JSONDecoder(strict=False)


def _close_partial(text: str) -> str:
    """Close open strings, drop a dangling key/comma/colon or partial literal, close brackets."""
    stack: list[str] = []
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}" and stack:
            stack.pop()
    out = text
    if in_string:
        if escaped:
            out = out[:-1]
        out += '"'
    stripped = out.rstrip()
    # A trailing separator or an unfinished literal cannot be closed; drop it.
    while stripped and stripped[-1] in ",:":
        stripped = stripped[:-1].rstrip()
    return stripped + "".join(reversed(stack))


def _trim_candidates(text: str) -> list[str]:
    closed = _close_partial(text)
    candidates = [closed]
    # ``{"a": tr`` or ``{"a": 1, "b"`` (a key without a value): cut back to the last separator.
    for sep in (",", "{", "["):
        cut = text.rfind(sep)
        if cut != -1:
            prefix = text[: cut + 1] if sep != "," else text[:cut]
            candidates.append(_close_partial(prefix))
    return candidates


_VALID_ESCAPES = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")


def repair_json(text: str) -> str:
    """pi's repair of model-written JSON: inside strings, a backslash that starts no valid escape
    (``\\d``, a trailing ``\\``) becomes a literal backslash. (Raw control characters inside
    strings, pi's other repair, are accepted by the decoder as they are.)"""
    out: list[str] = []
    in_string = False
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if not in_string:
            out.append(char)
            in_string = char == '"'
        elif char == '"':
            out.append(char)
            in_string = False
        elif char == "\\":
            following = text[index + 1] if index + 1 < length else ""
            if (
                following == "u"
                and len(text[index + 2 : index + 6]) == 4
                and set(text[index + 2 : index + 6]) <= _HEX
            ):
                out.append(text[index : index + 6])
                index += 6
                continue
            if following and following in _VALID_ESCAPES:
                out.append(text[index : index + 2])
                index += 2
                continue
            out.append("\\\\")
        else:
            out.append(char)
        index += 1
    return "".join(out)


def parse_json_object(text: str) -> Any:
    """``json.loads`` that tolerates raw control characters inside strings and, failing that,
    parses the text after :func:`repair_json` (as pi's ``parseJsonWithRepair`` does)."""
    try:
        return _decoder.decode(text)
    except ValueError:
        repaired = repair_json(text)
        if repaired == text:
            raise
        return _decoder.decode(repaired)


def parse_streaming_json(text: str) -> dict[str, Any]:
    if not text or not text.strip():
        return {}
    try:
        value = _decoder.decode(text)
        return value if isinstance(value, dict) else {}
    except ValueError:
        pass
    for candidate in _trim_candidates(text):
        try:
            value = _decoder.decode(candidate)
        except ValueError:
            continue
        return value if isinstance(value, dict) else {}
    return {}
