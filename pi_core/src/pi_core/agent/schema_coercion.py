"""Turning a model's loosely typed tool arguments into what the schema meant, as pi 1.6.0 does.

Models send ``"42"`` for a number, one value where a list is wanted, ``null`` for an option they
mean to leave out. Before arguments are checked, :func:`coerce` applies the same three passes
pi-schema applies, in the same order, so a call pi accepts we accept with the same values:

1. an optional property holding ``null`` that its schema does not allow is dropped;
2. conversion guided by the schema's structure (``$ref``, ``const``, ``enum``, unions, ``allOf``,
   ``type``, items, properties): ``"3.5"`` becomes ``3`` for an integer, ``null`` becomes
   ``"null"`` for a string, a single value becomes a one-item list, and a union takes the first
   branch whose conversion the union accepts;
3. coercion by ``type`` of what is left, type lists included (``""`` becomes ``null``).

A value that cannot be converted stays as it is, for the check to report. The input is never
modified: changed containers are copies.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from pi_core.agent.json_schema import Schema, declared_types, is_number, is_type, js_number, same

_MISSING: Any = object()

#: What JavaScript's ``Number(text)`` reads as a finite decimal (after trimming white space).
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RADIX = re.compile(r"0([xXoObB])([0-9a-fA-F]+)")
_BIG_INTEGER = re.compile(r"-?(?:0|[1-9]\d*)n")
_JS_WHITESPACE = " \t\n\r\v\f\u00a0\ufeff\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"  # noqa: E501


def coerce(schema: Schema, value: Any) -> Any:
    """``value`` converted toward ``schema`` (the same object when nothing needed changing)."""
    without_nulls = _drop_optional_nulls(schema, schema.root, value)
    converted = _Converter(schema).convert(schema.root, without_nulls)
    return _coerce_types(schema, schema.root, converted)


# --- pass 1: optional nulls --------------------------------------------------------------------------


def _drop_optional_nulls(schema: Schema, node: Any, value: Any) -> Any:
    if not isinstance(node, dict):
        return value
    if isinstance(value, list):
        return _map_items(value, lambda item, i: _at_item(node, i, item, schema, _drop_optional_nulls))
    if not isinstance(value, dict):
        return value
    properties = _mapping(node, "properties")
    patterns = _patterns(node)
    extra = _extra(node)
    if not patterns and extra is None and not isinstance(node.get("properties"), dict):
        return value
    required = set(node["required"]) if isinstance(node.get("required"), list) else set()
    out = dict(value)
    for key, prop in properties.items():
        if key not in out:
            continue
        is_ref = isinstance(prop, dict) and isinstance(prop.get("$ref"), str)
        if out[key] is None and key not in required and not is_ref and not schema.passes(prop, None):
            del out[key]
            continue
        out[key] = _drop_optional_nulls(schema, prop, out[key])
    # Pattern and additional properties are not optional properties: their keys stay.
    _through_other_keys(
        out, properties, patterns, extra, lambda node, item: _drop_optional_nulls(schema, node, item)
    )
    return _unchanged_or(value, out)


# --- pass 2: conversion by the schema's structure -------------------------------------------------


class _Converter:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        #: (schema node, value) pairs being converted through a point that can come back to them
        #: (a ``$ref``, wrapping a value into a list): a recursive schema must not loop.
        self._entered: list[tuple[int, Any]] = []

    def convert(self, node: Any, value: Any) -> Any:
        if not isinstance(node, dict):
            return value
        ref = node.get("$ref")
        if isinstance(ref, str):
            found, target = self.schema.resolve(ref)
            return self._reenter(target, value) if found and isinstance(target, dict) else value
        return self._convert_node(node, value)

    def _reenter(self, node: Any, value: Any) -> Any:
        key = (id(node), value if not isinstance(value, dict | list) else id(value))
        if any(k[0] == key[0] and _identical(k[1], key[1]) for k in self._entered):
            return value
        self._entered.append(key)
        try:
            return self.convert(node, value)
        finally:
            self._entered.pop()

    def _convert_node(self, node: dict[str, Any], value: Any) -> Any:
        if "const" in node:
            return _convert_literal(node["const"], value)
        if isinstance(node.get("enum"), list):
            return self._convert_enum(node, node["enum"], value)
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                return self._convert_union(node, node[key], value)
        if isinstance(node.get("allOf"), list):
            for member in node["allOf"]:
                value = self.convert(member, value)
            return self._convert_members(node, value)
        kind = node.get("type")
        if kind == "string":
            return _or(_to_string(value), value)
        if kind == "number":
            return _or(_to_number(value), value)
        if kind == "integer":
            number = _to_number(value)
            return value if number is _MISSING else math.trunc(number)
        if kind == "boolean":
            return _or(_to_boolean(value), value)
        if kind == "null":
            return _or(_to_null(value), value)
        if kind == "array":
            return self._convert_array(node, value)
        if kind == "object":
            return self._convert_object(node, value)
        if kind is None:
            if "properties" in node or "patternProperties" in node:
                return self._convert_object(node, value)
            if "items" in node or "prefixItems" in node:
                return self._convert_array(node, value)
        return value

    def _convert_enum(self, node: dict[str, Any], members: list[Any], value: Any) -> Any:
        if any(same(member, value) for member in members):
            return value
        for member in members:
            candidate = _convert_literal(member, value)
            if candidate is not value and self.schema.passes(node, candidate):
                return candidate
        return value

    def _convert_union(self, node: dict[str, Any], branches: list[Any], value: Any) -> Any:
        if any(self.schema.passes(branch, value) for branch in branches):
            return self._convert_members(node, value)
        for branch in branches:
            candidate = self._convert_members(node, self.convert(branch, value))
            if self.schema.passes(node, candidate):
                return candidate
        return self._convert_members(node, value)

    def _convert_members(self, node: dict[str, Any], value: Any) -> Any:
        declares = any(k in node for k in ("properties", "patternProperties", "additionalProperties"))
        return self._convert_object(node, value) if declares else value

    def _convert_array(self, node: dict[str, Any], value: Any) -> Any:
        prefix = node["items"] if isinstance(node.get("items"), list) else node.get("prefixItems")
        if isinstance(prefix, list):  # a tuple: its items convert, a single value is not wrapped
            if not isinstance(value, list):
                return value
            rest = None if isinstance(node.get("items"), list) else node.get("items")
            return _map_items(
                value,
                lambda item, i: self.convert(prefix[i] if i < len(prefix) else rest, item),
            )
        items = node.get("items")
        if isinstance(value, list):
            return value if items is None else _map_items(value, lambda item, i: self.convert(items, item))
        return [self._reenter(items, value) if isinstance(items, dict) else value]

    def _convert_object(self, node: dict[str, Any], value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        properties = _mapping(node, "properties")
        patterns = _patterns(node)
        extra = _extra(node)
        out = dict(value)
        for key, item in value.items():
            matched = key in properties
            if matched:
                item = self.convert(properties[key], item)
            for pattern, schema in patterns:
                if pattern.search(key):
                    matched = True
                    item = self.convert(schema, item)
            if not matched and extra is not None:
                item = self.convert(extra, item)
            out[key] = item
        return _unchanged_or(value, out)


def _convert_literal(literal: Any, value: Any) -> Any:
    """A ``const`` or enum member reached from a value of another type that converts to exactly it."""
    if same(literal, value):
        return value
    if isinstance(literal, bool):
        converted = _to_boolean(value)
    elif isinstance(literal, str):
        converted = _to_string(value)
    elif is_number(literal):
        converted = _to_number(value)
    else:
        return value
    return converted if converted is not _MISSING and same(converted, literal) else value


def _to_string(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return js_number(value)
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return _MISSING


def _to_number(value: Any) -> Any:
    if isinstance(value, bool):
        return 1 if value else 0
    if is_number(value):
        return value
    if value is None:
        return 0
    if not isinstance(value, str):
        return _MISSING
    number = js_number_of(value)
    if number is not None:
        return number
    lowered = value.lower()
    if lowered in ("false", "true"):
        return 1 if lowered == "true" else 0
    if _BIG_INTEGER.fullmatch(value):
        whole = int(value[:-1])
        return whole if abs(whole) <= 2**53 - 1 else _MISSING
    return _MISSING


def _to_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if is_number(value):
        return {0: False, 1: True}.get(value, _MISSING)
    if value is None:
        return False
    if isinstance(value, str):
        lowered = value.lower()
        if lowered == "false" or value == "0":
            return False
        if lowered == "true" or value == "1":
            return True
    return _MISSING


def _to_null(value: Any) -> Any:
    if value is None or value is False or (is_number(value) and value == 0 and not isinstance(value, bool)):
        return None
    if isinstance(value, str) and (value.lower() in ("undefined", "null") or value in ("", "0")):
        return None
    return _MISSING


def js_number_of(text: str) -> int | float | None:
    """What JavaScript's ``Number(text)`` gives for a string, when that is a finite number."""
    stripped = text.strip(_JS_WHITESPACE)
    if not stripped:
        return 0
    radix = _RADIX.fullmatch(stripped)
    if radix is not None:
        base = {"x": 16, "o": 8, "b": 2}[radix.group(1).lower()]
        try:
            return int(radix.group(2), base)
        except ValueError:
            return None
    if not _DECIMAL.fullmatch(stripped):
        return None
    number = float(stripped)
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


# --- pass 3: coercion by type ----------------------------------------------------------------------


def _coerce_types(schema: Schema, node: Any, value: Any) -> Any:
    if not isinstance(node, dict):
        return value
    for member in node["allOf"] if isinstance(node.get("allOf"), list) else ():
        value = _coerce_types(schema, member, value)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            value = _coerce_union(schema, node[key], value)
    kinds = declared_types(node)
    already = len(kinds) > 1 and any(is_type(value, k) for k in kinds)
    if kinds and not already:
        for k in kinds:
            candidate = _coerce_primitive(value, k)
            if candidate is not value:
                value = candidate
                break
    if "object" in kinds and isinstance(value, dict):
        value = _coerce_properties(schema, node, value)
    if "array" in kinds and isinstance(value, list):
        value = _map_items(value, lambda item, i: _at_item(node, i, item, schema, _coerce_types))
    return value


def _coerce_union(schema: Schema, branches: list[Any], value: Any) -> Any:
    if any(schema.passes(branch, value) for branch in branches):
        return value
    for branch in branches:
        coerced = _coerce_types(schema, branch, value)
        if schema.passes(branch, coerced):
            return coerced
    return value


def _coerce_properties(schema: Schema, node: dict[str, Any], value: dict[str, Any]) -> Any:
    properties = _mapping(node, "properties")
    patterns = _patterns(node)
    extra = _extra(node)
    out = dict(value)
    for key, prop in properties.items():
        if key in out:
            out[key] = _coerce_types(schema, prop, out[key])
    _through_other_keys(
        out, properties, patterns, extra, lambda node, item: _coerce_types(schema, node, item)
    )
    return _unchanged_or(value, out)


def _coerce_primitive(value: Any, kind: str) -> Any:
    """Ajv-style primitive coercion of ``value`` to ``kind`` (``value`` itself when none applies)."""
    if kind in ("number", "integer"):
        if value is None:
            return 0
        if isinstance(value, str) and value.strip(_JS_WHITESPACE):
            number = js_number_of(value)
            if number is not None and (kind == "number" or float(number).is_integer()):
                return number
        if isinstance(value, bool):
            return 1 if value else 0
        return value
    if kind == "boolean":
        if value is None:
            return False
        if value == "true" or (is_number(value) and value == 1):
            return True
        if value == "false" or (is_number(value) and value == 0):
            return False
        return value
    if kind == "string":
        if value is None:
            return ""
        if isinstance(value, bool) or is_number(value):
            return _to_string(value)
        return value
    if kind == "null":
        is_zero = is_number(value) and value == 0
        return None if value == "" or value is False or is_zero else value
    return value


# --- helpers ---------------------------------------------------------------------------------------


def _mapping(node: dict[str, Any], key: str) -> dict[str, Any]:
    value = node.get(key)
    return value if isinstance(value, dict) else {}


def _extra(node: dict[str, Any]) -> dict[str, Any] | None:
    """``additionalProperties`` when it is a schema object (``false`` converts nothing)."""
    value = node.get("additionalProperties")
    return value if isinstance(value, dict) else None


def _patterns(node: dict[str, Any]) -> list[tuple[re.Pattern[str], Any]]:
    raw = node.get("patternProperties")
    out = []
    for pattern, schema in raw.items() if isinstance(raw, dict) else ():
        try:
            out.append((re.compile(pattern), schema))
        except re.error:
            continue
    return out


def _through_other_keys(
    out: dict[str, Any],
    properties: dict[str, Any],
    patterns: list[tuple[re.Pattern[str], Any]],
    extra: dict[str, Any] | None,
    apply: Callable[[Any, Any], Any],
) -> None:
    """``out[key] = apply(node, out[key])`` for each ``patternProperties`` schema matching a key,
    and ``additionalProperties`` for keys that neither it nor ``properties`` names."""
    for key in list(out):
        matched = key in properties
        for pattern, node in patterns:
            if pattern.search(key):
                matched = True
                out[key] = apply(node, out[key])
        if not matched and extra is not None:
            out[key] = apply(extra, out[key])


def _at_item(node: dict[str, Any], index: int, item: Any, schema: Schema, apply: Any) -> Any:
    """``apply(schema, item_schema, item)`` with the schema of the list's item at ``index``."""
    if isinstance(node.get("items"), list):
        tuple_items = node["items"]
        item_schema = tuple_items[index] if index < len(tuple_items) else None
    elif isinstance(node.get("prefixItems"), list) and index < len(node["prefixItems"]):
        item_schema = node["prefixItems"][index]
    else:
        item_schema = node.get("items")
    return item if not isinstance(item_schema, dict) else apply(schema, item_schema, item)


def _map_items(items: list[Any], convert: Any) -> list[Any]:
    out = [convert(item, index) for index, item in enumerate(items)]
    return items if all(a is b for a, b in zip(out, items, strict=True)) else out


def _unchanged_or(original: dict[str, Any], updated: dict[str, Any]) -> dict[str, Any]:
    if updated.keys() == original.keys() and all(updated[k] is original[k] for k in original):
        return original
    return updated


def _identical(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _or(converted: Any, value: Any) -> Any:
    return value if converted is _MISSING else converted
