"""Checking a models.json ``compat`` object against the fields pi 1.6.0 knows.

``compat_schema.json`` holds the structure of pi-ai's provider compat schema (written by
``pi_core/scripts/compat_schema_from_pi.mjs``): each field's type and allowed values. Unknown fields
are allowed, as in pi; a known field with a value of the wrong kind is a models.json error, one
line per bad value. Only the JSON Schema keywords that file uses are understood.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

_KINDS: dict[str, tuple[type, ...]] = {
    "boolean": (bool,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "object": (dict,),
    "array": (list,),
}
_ARTICLE = {"object": "an object", "array": "an array"}


@cache
def _schema() -> dict[str, Any]:
    text = resources.files("pi_core.ai").joinpath("compat_schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def compat_problems(value: Any, where: str) -> list[str]:
    """``"<where>.<field>: <what is wrong>"`` for each bad value in a ``compat`` object."""
    return _check(value, _schema(), where)


def _is_kind(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if isinstance(value, bool) and kind != "boolean":
        return False  # JSON true is no number
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _KINDS.get(kind, ()))


def _check(value: Any, schema: dict[str, Any], where: str) -> list[str]:
    if "anyOf" in schema:
        options = schema["anyOf"]
        if any(not _check(value, option, where) for option in options):
            return []
        return [f"{where}: {_expected(options)}"]
    kind = schema.get("type")
    if kind is not None and not _is_kind(value, kind):
        return [f"{where}: must be {_ARTICLE.get(kind, kind)}"]
    if "const" in schema and value != schema["const"]:
        return [f"{where}: must be {json.dumps(schema['const'])}"]
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return [f"{where}: must not be empty"]
    if isinstance(value, list):
        return _check_items(value, schema, where)
    if isinstance(value, dict):
        return _check_fields(value, schema, where)
    return []


def _check_items(value: list[Any], schema: dict[str, Any], where: str) -> list[str]:
    limit = schema.get("maxItems")
    if limit is not None and len(value) > limit:
        return [f"{where}: must hold at most {limit} entries"]
    items = schema.get("items")
    if not isinstance(items, dict):
        return []
    return [
        problem for index, item in enumerate(value) for problem in _check(item, items, f"{where}.{index}")
    ]


def _check_fields(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    problems = [f"{where}.{name}: is required" for name in schema.get("required", []) if name not in value]
    properties: dict[str, Any] = schema.get("properties", {})
    patterns: dict[str, Any] = schema.get("patternProperties", {})
    for name, item in value.items():
        spec = properties.get(name)
        if spec is None:
            spec = next((s for pattern, s in patterns.items() if re.search(pattern, name)), None)
        if spec is not None:
            problems.extend(_check(item, spec, f"{where}.{name}"))
    return problems


def _expected(options: list[dict[str, Any]]) -> str:
    """What an ``anyOf`` asks for, in words: a list of the allowed values when they are fixed."""
    if all("const" in option for option in options):
        return "must be one of " + ", ".join(json.dumps(option["const"]) for option in options)
    kinds = [_ARTICLE.get(o["type"], o["type"]) for o in options if "type" in o and "const" not in o]
    fixed = [json.dumps(o["const"]) for o in options if "const" in o]
    return "must be " + " or ".join([*dict.fromkeys(kinds), *fixed])
