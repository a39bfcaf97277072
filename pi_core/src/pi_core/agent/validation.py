"""Tool-argument validation (spec tools.md §1.1): coerce toward the schema, validate, report like pi.

``AgentTool.parameters`` is a pydantic model class (validated in lax mode, which coerces e.g. ``"5"``
to ``5``) or a JSON-schema dict. For dicts a small validator covers the JSON-schema keywords tool
schemas use (type, properties, required, additionalProperties, items, enum, const, bounds, lengths,
anyOf/oneOf/allOf); it avoids a dependency and does pi's primitive coercion on the way.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from pydantic import BaseModel, ValidationError

from pi_core.agent.tools import AgentTool


class ToolArgumentsError(ValueError):
    """Raised with pi's ``Validation failed for tool ...`` text."""


def _format(tool_name: str, problems: list[tuple[str, str]], received: Any) -> str:
    lines = "\n".join(f"  - {path}: {message}" for path, message in problems) or "Unknown validation error"
    return (
        f'Validation failed for tool "{tool_name}":\n{lines}\n\n'
        f"Received arguments:\n{json.dumps(received, indent=2, ensure_ascii=False)}"
    )


def validate_tool_arguments(tool: AgentTool, arguments: dict[str, Any]) -> Any:
    """The validated arguments (a model instance or a coerced dict), or :class:`ToolArgumentsError`."""
    params = tool.parameters
    if isinstance(params, type) and issubclass(params, BaseModel):
        try:
            return params.model_validate(copy.deepcopy(arguments))
        except ValidationError as error:
            problems = [
                (".".join(str(p) for p in err["loc"]) or "root", err["msg"]) for err in error.errors()
            ]
            raise ToolArgumentsError(_format(tool.name, problems, arguments)) from None
    value = _coerce(copy.deepcopy(arguments), params)
    found: list[tuple[str, str]] = []
    _check(value, params, "", found)
    if found:
        raise ToolArgumentsError(_format(tool.name, found, arguments))
    return value


# --- JSON schema subset ---------------------------------------------------------------------------


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return []


def _is_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False  # a type JSON Schema does not have matches nothing (as pi 1.6.0)


def _coerce_primitive(value: Any, kind: str) -> Any:
    if kind in ("number", "integer") and isinstance(value, str) and value.strip():
        try:
            number = float(value)
        except ValueError:
            return value
        if math.isfinite(number):
            if kind == "integer":
                return int(number) if number.is_integer() else value
            return int(number) if number.is_integer() and "." not in value else number
    if kind == "boolean" and isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


def _coerce(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    kinds = _types(schema)
    if kinds and not any(_is_type(value, k) for k in kinds):
        for kind in kinds:
            coerced = _coerce_primitive(value, kind)
            if coerced is not value and _is_type(coerced, kind):
                return coerced
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            for key, sub in props.items():
                if key in value:
                    value[key] = _coerce(value[key], sub)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_coerce(item, schema["items"]) for item in value]
    return value


def _schemas(value: Any) -> list[dict[str, Any]]:
    """The subschemas of ``anyOf``/``oneOf``/``allOf`` (anything but a list of objects: none)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _bound(schema: dict[str, Any], key: str) -> float | None:
    """A numeric keyword's value, ``None`` when absent or not a number."""
    value = schema.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def _check(value: Any, schema: Any, path: str, problems: list[tuple[str, str]]) -> None:
    if not isinstance(schema, dict):
        return
    here = path or "root"
    kinds = _types(schema)
    if kinds and not any(_is_type(value, k) for k in kinds):
        problems.append((here, f"must be {' or '.join(kinds)}"))
        return
    # A keyword whose value has the wrong shape (a server's schema that is not valid JSON Schema)
    # is left out, as pi 1.6.0 leaves it out, instead of failing every call of the tool.
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        allowed = ", ".join(json.dumps(v) for v in enum)
        problems.append((here, f"must be one of {allowed}"))
    if "const" in schema and value != schema["const"]:
        problems.append((here, f"must be equal to {json.dumps(schema['const'])}"))
    for key in ("anyOf", "oneOf"):
        options = _schemas(schema.get(key))
        if options:
            matches = 0
            for option in options:
                sub: list[tuple[str, str]] = []
                _check(value, option, path, sub)
                matches += not sub
            if matches == 0 or (key == "oneOf" and matches > 1):
                problems.append(
                    (here, f"must match {'exactly one' if key == 'oneOf' else 'a'} schema in {key}")
                )
    for option in _schemas(schema.get("allOf")):
        _check(value, option, path, problems)
    if isinstance(value, str):
        low, high = _bound(schema, "minLength"), _bound(schema, "maxLength")
        if low is not None and len(value) < low:
            problems.append((here, f"must have at least {schema['minLength']} characters"))
        if high is not None and len(value) > high:
            problems.append((here, f"must have at most {schema['maxLength']} characters"))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        low, high = _bound(schema, "minimum"), _bound(schema, "maximum")
        if low is not None and value < low:
            problems.append((here, f"must be >= {schema['minimum']}"))
        if high is not None and value > high:
            problems.append((here, f"must be <= {schema['maximum']}"))
    if isinstance(value, list):
        low, high = _bound(schema, "minItems"), _bound(schema, "maxItems")
        if low is not None and len(value) < low:
            problems.append((here, f"must have at least {schema['minItems']} items"))
        if high is not None and len(value) > high:
            problems.append((here, f"must have at most {schema['maxItems']} items"))
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                _check(item, items, _join(path, index), problems)
    if isinstance(value, dict):
        raw_props = schema.get("properties")
        props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
        required = schema.get("required")
        for name in required if isinstance(required, list) else []:
            if isinstance(name, str) and name not in value:
                problems.append((_join(path, name), "is required"))
        for key, item in value.items():
            if key in props:
                _check(item, props[key], _join(path, key), problems)
            else:
                extra = schema.get("additionalProperties", True)
                if extra is False:
                    problems.append((_join(path, key), "is not an allowed property"))
                elif isinstance(extra, dict):
                    _check(item, extra, _join(path, key), problems)
