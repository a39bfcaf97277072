from __future__ import annotations

import math

import pytest
from pi_core.session.jsonl import dumps, js_number

# Expected strings are what node's String(x) / JSON.stringify print for the same doubles.
CASES = [
    (0.0, "0"),
    (-0.0, "0"),
    (1.0, "1"),
    (5e-05, "0.00005"),
    (1e-07, "1e-7"),
    (2.5e-07, "2.5e-7"),
    (1e-06, "0.000001"),
    (0.1 + 0.2, "0.30000000000000004"),
    (123.456, "123.456"),
    (-0.00012, "-0.00012"),
    (3e20, "300000000000000000000"),
    (1e21, "1e+21"),
    (1.5e21, "1.5e+21"),
    (1e300, "1e+300"),
    (math.inf, "null"),
]


@pytest.mark.parametrize(("value", "expected"), CASES)
def test_numbers_like_javascript(value: float, expected: str) -> None:
    assert js_number(value) == expected


def test_dumps_like_json_stringify() -> None:
    value = {"a": [1, 2.0, 'é\n\u2028\x01"\\'], "b": None, "c": True, "d": {"e": 0.0036}}
    assert dumps(value) == '{"a":[1,2,"é\\n\u2028\\u0001\\"\\\\"],"b":null,"c":true,"d":{"e":0.0036}}'
    with pytest.raises(TypeError):
        dumps({"x": object()})


def test_lone_surrogates_are_written_as_the_replacement_character() -> None:
    """UTF-8 cannot encode half of a UTF-16 pair, and pydantic's JSON reader refuses its escape."""
    line = dumps({"text": "a\ud800b", "k\udfff": ["\udbff"]})
    assert line == '{"text":"a\ufffdb","k\ufffd":["\ufffd"]}'
    line.encode("utf-8")  # writable
