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


def parse_json_object(text: str) -> Any:
    """``json.loads`` that tolerates raw control characters inside strings (as pi's repair does)."""
    return _decoder.decode(text)


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
