"""JSON text exactly as JavaScript's ``JSON.stringify`` writes it (no indentation).

pi is written in JavaScript, which has a single number type: a cost of zero is written
``0`` and a tiny cost ``0.00005`` (never ``0.0`` / ``5e-05`` as Python's ``json`` would).
Strings are escaped the same way by both (non-ASCII kept literally), so only numbers need
their own formatting here — and lone surrogates: a JavaScript string may hold half of a UTF-16
pair (``JSON.stringify`` writes it as ``\\ud800``), a Python ``str`` from JSON may too, but UTF-8
cannot encode one and pydantic's JSON reader refuses its escape. Each is written as U+FFFD, so
the line is written at all and reads back (a reply streamed with one was lost from the file).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any


def js_number(value: float) -> str:
    """Format a float like JavaScript's ``Number.prototype.toString``."""
    if not math.isfinite(value):
        return "null"  # what JSON.stringify writes for NaN and ±Infinity
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    # Shortest round-trip digits (same algorithm family in both languages), then JS layout.
    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    # value = 0.d1d2d3... x 10**point, i.e. JS's n: the position of the decimal point.
    point = len(digit_tuple) + exponent
    k = len(digits)
    if k <= point <= 21:
        text = digits + "0" * (point - k)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * (-point) + digits
    else:
        exp = point - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp)}"
    return ("-" if sign else "") + text


def dumps(value: Any) -> str:
    """Serialize ``value`` (dict/list/str/int/float/bool/None) as ``JSON.stringify`` would."""
    parts: list[str] = []
    _write(value, parts.append)
    return "".join(parts)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(value: str) -> str:
    if _SURROGATE.search(value) is not None:
        value = _SURROGATE.sub("\ufffd", value)
    return encode_basestring(value)


def _write(value: Any, out: Any) -> None:
    if isinstance(value, str):
        out(_string(value))
    elif value is None:
        out("null")
    elif value is True:
        out("true")
    elif value is False:
        out("false")
    elif isinstance(value, int):
        out(str(value))
    elif isinstance(value, float):
        out(js_number(value))
    elif isinstance(value, dict):
        out("{")
        first = True
        for key, item in value.items():
            if not first:
                out(",")
            first = False
            out(_string(str(key)))
            out(":")
            _write(item, out)
        out("}")
    elif isinstance(value, (list, tuple)):
        out("[")
        for index, item in enumerate(value):
            if index:
                out(",")
            _write(item, out)
        out("]")
    else:
        raise TypeError(f"cannot serialize {type(value).__name__} as JSON")
