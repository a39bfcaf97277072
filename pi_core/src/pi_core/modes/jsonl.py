"""Strict JSON Lines, as pi frames its JSON-mode and RPC streams.

Records are ``JSON.stringify(value) + "\\n"``: compact separators, non-ASCII kept as is, and
integral floats written without a fractional part (JavaScript has one number type, so pi writes
``0`` where Python would write ``0.0``). Input is split on LF only; a trailing CR is dropped.
U+2028/U+2029 are legal inside JSON strings and are never treated as separators, which is why
this does not use ``str.splitlines``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel


def to_wire(value: Any) -> Any:
    """A JSON-ready object whose numbers print as JavaScript prints them.

    Pydantic models, at the top or met on the way (a list of messages inside a plain dict), are
    dumped by alias with unset optionals left out; integral floats become ints, recursively.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
        return value
    if isinstance(value, dict):
        return {key: to_wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_wire(item) for item in value]
    return value


def serialize_json_line(value: Any) -> str:
    """One record: the value as pi's ``JSON.stringify`` writes it, plus LF."""
    return json.dumps(to_wire(value), separators=(",", ":"), ensure_ascii=False) + "\n"


async def read_json_lines(reader: asyncio.StreamReader) -> AsyncIterator[str]:
    """Yield each LF-terminated line of ``reader`` (without LF and a trailing CR) until EOF.

    A last line without a final LF is still yielded, as pi does.
    """
    buffer = b""
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            break
        buffer += chunk
        while True:
            index = buffer.find(b"\n")
            if index < 0:
                break
            line, buffer = buffer[:index], buffer[index + 1 :]
            yield _decode_line(line)
    if buffer:
        yield _decode_line(buffer)


def _decode_line(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    return text[:-1] if text.endswith("\r") else text
