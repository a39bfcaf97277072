"""JSON Schema checking for tool arguments, reporting problems the way pi 1.6.0 (pi-schema) does.

A :class:`Schema` wraps one tool's parameter schema (draft 2020-12 keywords; ``$ref`` within the
schema itself). :meth:`Schema.problems` lists ``(path, message)`` pairs, each message worded as
pi's (``expected string, got integer``, ``missing``, ``unknown field``, ...), the path a JSON
Pointer. A keyword whose value has the wrong shape (``"required": "ab"``) is left out, but a
subschema that is neither an object nor a boolean makes the whole schema unusable, as it makes
pi's compiler fail: :class:`SchemaError` on every check. ``format`` is not checked.

Values are JSON values as Python holds them: ``bool`` is not a number, and a float with no
fraction counts as an integer (JavaScript has one number type).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

Problem = tuple[str, str]

#: An enum's allowed values are listed up to this many; the rest are counted.
LISTED_VALUES = 20

_SUBSCHEMA_KEYS = (
    "additionalProperties", "items", "additionalItems", "not", "if", "then", "else", "contains",
    "propertyNames",
)  # fmt: skip
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")


class SchemaError(ValueError):
    """The schema itself cannot be used (pi's compile error, worded as pi words it)."""


class Schema:
    """One parameter schema, checked for usability once and then used for any number of values."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._unusable = _first_non_schema(root)

    def problems(self, value: Any) -> list[Problem]:
        """What is wrong with ``value`` (empty when it passes)."""
        self.raise_if_unusable()
        found: list[Problem] = []
        self._walk(self.root, value, "", found)
        return found

    def passes(self, node: Any, value: Any) -> bool:
        found: list[Problem] = []
        self._walk(node, value, "", found)
        return not found

    def raise_if_unusable(self) -> None:
        if self._unusable is not None:
            raise SchemaError(f"A schema must be an object or a boolean, got {js_json(self._unusable[0])}")

    def resolve(self, ref: str) -> tuple[bool, Any]:
        """``(found, target)`` of a ``$ref`` inside this schema (``#`` or a ``#/...`` pointer)."""
        if ref == "#":
            return True, self.root
        if not ref.startswith("#/"):
            return False, None
        node = self.root
        for raw in ref[2:].split("/"):
            key = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                return False, None
        return True, node

    # --- the walk: each failing keyword reported at the value it failed on --------------------------

    def _walk(self, node: Any, value: Any, path: str, out: list[Problem]) -> None:
        if node is False:
            out.append((path, "no value is allowed here"))
            return
        if not isinstance(node, dict):
            return
        if "type" in node:
            declared = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(isinstance(kind, str) and is_type(value, kind) for kind in declared):
                names = " or ".join(kind if isinstance(kind, str) else js_json(kind) for kind in declared)
                out.append((path, f"expected {names}, got {type_name(value)}"))
                return
        enum = node.get("enum")
        if isinstance(enum, list) and not any(same(value, member) for member in enum):
            out.append((path, f"expected one of {listed(enum)}"))
        if "const" in node and not same(value, node["const"]):
            out.append((path, f"expected {js_json(node['const'])}"))
        if isinstance(value, str):
            self._walk_string(node, value, path, out)
        if is_number(value):
            _walk_number(node, value, path, out)
        if isinstance(value, dict):
            self._walk_object(node, value, path, out)
        if isinstance(value, list):
            self._walk_array(node, value, path, out)
        for branch in _branches(node, "allOf"):
            self._walk(branch, value, path, out)
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                self._walk_union(_branches(node, key), value, path, out, exactly_one=key == "oneOf")
        if "not" in node and self.passes(node["not"], value):
            out.append((path, "must not match the schema in not"))
        if "if" in node:
            branch = node.get("then") if self.passes(node["if"], value) else node.get("else")
            if branch is not None:
                self._walk(branch, value, path, out)
        ref = node.get("$ref")
        if isinstance(ref, str):
            found, target = self.resolve(ref)
            if not found:
                out.append((path, f"unresolved reference {ref}"))
            else:
                self._walk(target, value, path, out)

    def _walk_string(self, node: dict[str, Any], value: str, path: str, out: list[Problem]) -> None:
        low, high = _count(node, "minLength"), _count(node, "maxLength")
        if low is not None and len(value) < low:
            out.append((path, f"expected at least {js_number(low)} characters"))
        if high is not None and len(value) > high:
            out.append((path, f"expected at most {js_number(high)} characters"))
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            compiled = _regex(pattern)
            if compiled is not None and compiled.search(value) is None:
                out.append((path, f"expected to match {pattern}"))

    def _walk_object(
        self, node: dict[str, Any], value: dict[str, Any], path: str, out: list[Problem]
    ) -> None:
        properties = node.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = node.get("required")
        for key in required if isinstance(required, list) else []:
            if isinstance(key, str) and key not in value:
                out.append((pointer(path, key), "missing"))
        for key, schema in properties.items():
            if key in value:
                self._walk(schema, value[key], pointer(path, key), out)
        patterns = node.get("patternProperties")
        patterns = patterns if isinstance(patterns, dict) else {}
        extra = node.get("additionalProperties")
        for key, item in value.items():
            matched = key in properties
            for pattern, schema in patterns.items():
                compiled = _regex(pattern)
                if compiled is not None and compiled.search(key) is not None:
                    matched = True
                    self._walk(schema, item, pointer(path, key), out)
            if not matched and "additionalProperties" in node:
                if extra is False:
                    out.append((pointer(path, key), "unknown field"))
                else:
                    self._walk(extra, item, pointer(path, key), out)
            if "propertyNames" in node and not self.passes(node["propertyNames"], key):
                out.append((pointer(path, key), "invalid property name"))
        low, high = _count(node, "minProperties"), _count(node, "maxProperties")
        if low is not None and len(value) < low:
            out.append((path, f"expected at least {js_number(low)} properties"))
        if high is not None and len(value) > high:
            out.append((path, f"expected at most {js_number(high)} properties"))
        dependencies: dict[str, Any] = {}
        for keyword in ("dependentRequired", "dependencies"):
            if isinstance(node.get(keyword), dict):
                dependencies.update(node[keyword])
        for key, needs in dependencies.items():
            if key not in value:
                continue
            if not isinstance(needs, list):
                self._walk(needs, value, path, out)
                continue
            for need in needs:
                if isinstance(need, str) and need not in value:
                    out.append((pointer(path, need), f"required when {key} is present"))
        schemas = node.get("dependentSchemas")
        for key, schema in schemas.items() if isinstance(schemas, dict) else ():
            if key in value:
                self._walk(schema, value, path, out)

    def _walk_array(self, node: dict[str, Any], value: list[Any], path: str, out: list[Problem]) -> None:
        if isinstance(node.get("items"), list):  # the older spelling of a tuple
            prefix, rest = node["items"], node.get("additionalItems")
        else:
            prefix = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else []
            rest = node.get("items")
        for index, item in enumerate(value):
            schema = prefix[index] if index < len(prefix) else rest
            if schema is not None:
                self._walk(schema, item, f"{path}/{index}", out)
        low, high = _count(node, "minItems"), _count(node, "maxItems")
        if low is not None and len(value) < low:
            out.append((path, f"expected at least {js_number(low)} items"))
        if high is not None and len(value) > high:
            out.append((path, f"expected at most {js_number(high)} items"))
        if node.get("uniqueItems") is True and not _unique(value):
            out.append((path, "expected unique items"))
        if "contains" in node:
            low = _count(node, "minContains")
            high = _count(node, "maxContains")
            least = 1 if low is None else low
            matching = sum(self.passes(node["contains"], item) for item in value)
            if matching < least or (high is not None and matching > high):
                out.append((path, _contains_message(least, high)))

    def _walk_union(
        self, branches: list[Any], value: Any, path: str, out: list[Problem], *, exactly_one: bool
    ) -> None:
        matches = sum(self.passes(branch, value) for branch in branches)
        if matches == 1 or (matches > 1 and not exactly_one):
            return
        if matches > 1:
            out.append((path, "matches more than one alternative"))
            return
        tag = self._tag(branches)
        if tag is not None and isinstance(value, dict):
            key, values = tag
            chosen = next((i for i, v in enumerate(values) if same(value.get(key, _ABSENT), v)), None)
            if chosen is None:
                out.append((pointer(path, key), f"expected one of {listed(values)}"))
            else:
                self._walk(branches[chosen], value, path, out)
            return
        # Blame the branch the value was most likely meant for: the one declaring most of an object's
        # keys, then the one whose first problem lies deepest.
        best: tuple[int, list[Problem]] | None = None
        for branch in branches:
            found: list[Problem] = []
            self._walk(branch, value, path, found)
            if not found:
                continue
            declared = self._declared_keys(branch, value) if isinstance(value, dict) else 0
            if (
                best is None
                or declared > best[0]
                or (declared == best[0] and len(found[0][0]) > len(best[1][0][0]))
            ):
                best = (declared, found)
        out.extend(best[1] if best is not None else [(path, "matches no alternative")])

    def _target(self, branch: Any) -> Any:
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            return self.resolve(branch["$ref"])[1]
        return branch

    def _declared_keys(self, branch: Any, value: dict[str, Any]) -> int:
        node = self._target(branch)
        properties = node.get("properties") if isinstance(node, dict) else None
        return sum(key in properties for key in value) if isinstance(properties, dict) else 0

    def _tag(self, branches: list[Any]) -> tuple[str, list[Any]] | None:
        """The property whose ``const`` tells the branches apart (a tagged union), if one does."""
        nodes = [self._target(branch) for branch in branches]
        first = nodes[0] if nodes else None
        if not isinstance(first, dict) or not isinstance(first.get("properties"), dict):
            return None
        for key in first["properties"]:
            values = []
            for node in nodes:
                properties = node.get("properties") if isinstance(node, dict) else None
                tag = properties.get(key) if isinstance(properties, dict) else None
                values.append(tag["const"] if isinstance(tag, dict) and "const" in tag else _ABSENT)
            primitive = all(v is not _ABSENT and not isinstance(v, dict | list) for v in values)
            if primitive and len({json.dumps(v) for v in values}) == len(values):
                return key, values
        return None


_ABSENT: Any = object()


def _walk_number(node: dict[str, Any], value: float, path: str, out: list[Problem]) -> None:
    checks: list[tuple[str, Callable[[float, float], bool], str]] = [
        ("minimum", lambda v, b: v < b, "expected >= {}"),
        ("maximum", lambda v, b: v > b, "expected <= {}"),
        ("exclusiveMinimum", lambda v, b: v <= b, "expected > {}"),
        ("exclusiveMaximum", lambda v, b: v >= b, "expected < {}"),
    ]
    for key, fails, message in checks:
        bound = node.get(key)
        if isinstance(bound, int | float) and is_number(bound) and fails(value, bound):
            out.append((path, message.format(js_number(bound))))
    divisor = node.get("multipleOf")
    if isinstance(divisor, int | float) and is_number(divisor) and not _is_multiple(value, divisor):
        out.append((path, f"expected a multiple of {js_number(divisor)}"))


def _contains_message(least: int, most: int | None) -> str:
    if most is None:
        return f"expected at least {least} matching {'item' if least == 1 else 'items'}"
    if least == 0:
        return f"expected at most {most} matching {'item' if most == 1 else 'items'}"
    return f"expected between {least} and {most} matching items"


# --- JSON values as JavaScript sees them -----------------------------------------------------------


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return is_number(value)
    if kind == "integer":
        return is_number(value) and float(value).is_integer()
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False  # a type JSON Schema does not have matches nothing


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return "integer" if float(value).is_integer() else "number"
    return type(value).__name__


def same(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (``1 == 1.0``), never a boolean equal to a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def js_number(value: float) -> str:
    """A number as JavaScript's ``String()`` writes it (``2.0`` is ``2``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value) if isinstance(value, int) else repr(value)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def js_json(value: Any) -> str:
    """``JSON.stringify``: compact, non-ASCII kept, integral floats without ``.0``."""
    return json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False)


def listed(values: list[Any]) -> str:
    if len(values) <= LISTED_VALUES:
        return js_json(values)
    return f"{js_json(values[:LISTED_VALUES])[:-1]}, ... and {len(values) - LISTED_VALUES} more]"


def pointer(path: str, key: str) -> str:
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"


def dotted(path: str) -> str:
    """A JSON Pointer as the path the model is shown: ``/edits/0/oldText`` → ``edits.0.oldText``."""
    if not path:
        return "root"
    return ".".join(part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/"))


# --- small helpers -----------------------------------------------------------------------------------


def declared_types(node: dict[str, Any]) -> list[str]:
    """The type names a schema's ``type`` gives (a name or a list of them; others left out)."""
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return []


def _branches(node: dict[str, Any], key: str) -> list[Any]:
    value = node.get(key)
    return value if isinstance(value, list) else []


def _count(node: dict[str, Any], key: str) -> int | None:
    value = node.get(key)
    return int(value) if isinstance(value, int | float) and is_number(value) else None


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:  # a pattern Python's engine cannot read is not checked
        return None


def _unique(items: list[Any]) -> bool:
    return all(not same(items[i], items[j]) for i in range(len(items)) for j in range(i))


def _is_multiple(value: float, divisor: float) -> bool:
    if divisor == 0:
        return False
    try:
        return Decimal(repr(value)) % Decimal(repr(divisor)) == 0
    except InvalidOperation:
        return False


def _subschemas(node: dict[str, Any]) -> Iterator[Any]:
    for key in _SUBSCHEMA_KEYS:
        if key in node and not (key == "items" and isinstance(node[key], list)):
            yield node[key]
    for key in _SUBSCHEMA_LISTS:
        if isinstance(node.get(key), list):
            yield from node[key]
    for key in _SUBSCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            yield from node[key].values()


def _first_non_schema(root: Any) -> tuple[Any] | None:
    """The first subschema that is neither an object nor a boolean (in a 1-tuple: it may be
    ``None``), else ``None``. Definitions count only where a ``$ref`` reaches them, as in pi."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return (node,)
        pending.extend(reversed(list(_subschemas(node))))
    return None
