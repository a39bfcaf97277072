"""Lines of any length read in bounded memory (grep's ripgrep events and its Python search)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from pi_builtin_tools.longlines import LongMatch, head_of_line, iter_line_windows, rg_json_lines


def _event(path: str, number: int, text: str) -> bytes:
    data = {
        "type": "match",
        "data": {
            "path": {"text": path},
            "lines": {"text": text},
            "line_number": number,
            "absolute_offset": 0,
            "submatches": [{"match": {"text": "x"}, "start": 0, "end": 1}] * 3,
        },
    }
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


async def _collect(data: bytes, cap: int, feed: int) -> list[bytes | LongMatch]:
    reader = asyncio.StreamReader()
    for at in range(0, len(data), feed):  # arbitrary chunk boundaries
        reader.feed_data(data[at : at + feed])
    reader.feed_eof()
    return [item async for item in rg_json_lines(reader, cap)]


@pytest.mark.parametrize("feed", [1, 7, 4096, 1 << 20])
async def test_long_match_events_keep_path_number_and_head(feed: int) -> None:
    # Escaped quotes and backslash runs of both parities right where chunks may split.
    tricky = 'a\\"b\\\\"c' * 2 + "\\" * 5 + '"' + "q" * 3000 + '\\\\\\"' * 400
    short = _event("s.txt", 1, "short line\n")
    long_line = _event('dir/we"ird.txt', 42, tricky)
    begin = b'{"type":"begin","data":{"path":{"text":"x"}}}\n'
    items = await _collect(begin + short + long_line + short, 256, feed)
    assert items[0] == begin and items[1] == short and items[3] == short
    long = items[2]
    assert isinstance(long, LongMatch)
    assert long.path == 'dir/we"ird.txt' and long.line_number == 42
    assert long.head is not None and tricky.startswith(long.head[:100])


async def test_a_long_event_that_is_not_a_match_is_dropped() -> None:
    context = b'{"type":"context","data":{"lines":{"text":"' + b"z" * 5000 + b'"}}}\n'
    end = b'{"type":"end"}\n'
    assert await _collect(context + end, 1024, 512) == [end]


async def test_a_cut_stream_ends_without_an_error() -> None:
    cut = _event("p", 3, "y" * 5000)[:3000]
    [item] = await _collect(cut, 1024, 100)
    assert isinstance(item, LongMatch) and item.path == "p" and item.line_number is None


def test_line_windows_overlap_and_number_lines() -> None:
    data = b"one\n" + b"A" * 25 + b"NEEDLE" + b"B" * 25 + b"\nlast"
    windows = list(iter_line_windows(io.BytesIO(data), cap=20))
    assert windows[0] == (1, b"one", True)
    assert [n for n, _, _ in windows] == [1, 2, 2, 2, 3]
    assert sum(first for _, _, first in windows) == 3
    assert any(b"NEEDLE" in piece for n, piece, _ in windows if n == 2)
    assert windows[-1] == (3, b"last", True)


def test_head_of_line_keeps_the_start_of_a_long_line() -> None:
    handle = io.BytesIO(b"x" * 100 + b"\nsecond\n")
    assert head_of_line(handle, cap=10) == b"x" * 10
    assert head_of_line(handle, cap=10) == b"second"
    assert head_of_line(handle, cap=10) is None
