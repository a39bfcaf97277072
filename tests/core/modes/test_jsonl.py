from __future__ import annotations

import asyncio

from pi_core.ai.messages import Usage
from pi_core.modes.jsonl import read_json_lines, serialize_json_line


def test_serialize_json_line_is_compact_and_keeps_unicode() -> None:
    line = serialize_json_line({"type": "x", "text": "héllo\u2028world", "n": 1})
    assert line == '{"type":"x","text":"héllo\u2028world","n":1}\n'


def test_serialize_json_line_writes_integral_floats_as_javascript_does() -> None:
    assert serialize_json_line({"cost": 0.0, "p": 0.5, "xs": [2.0]}) == '{"cost":0,"p":0.5,"xs":[2]}\n'


def test_serialize_json_line_dumps_models_by_alias_without_unset_optionals() -> None:
    line = serialize_json_line(Usage(input=3, total_tokens=3))
    assert line.startswith('{"input":3,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":3,')
    assert '"cost":{"input":0,' in line


async def _lines(data: bytes) -> list[str]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return [line async for line in read_json_lines(reader)]


async def test_read_json_lines_splits_on_lf_only() -> None:
    data = '{"a":"x\u2028y"}\r\n{"b":1}\n{"c":2}'.encode()
    assert await _lines(data) == ['{"a":"x\u2028y"}', '{"b":1}', '{"c":2}']


async def test_read_json_lines_handles_chunks_split_mid_character() -> None:
    reader = asyncio.StreamReader()
    payload = '{"t":"é"}\n'.encode()
    reader.feed_data(payload[:7])
    reader.feed_data(payload[7:])
    reader.feed_eof()
    assert [line async for line in read_json_lines(reader)] == ['{"t":"é"}']
