"""YAML frontmatter of skill and prompt-template files, parsed as pi parses it.

pi uses a YAML 1.2 parser, so ``yes``/``no``/``on`` stay strings and ``2024-01-01`` is not a date;
PyYAML speaks YAML 1.1, so a loader with YAML 1.2 core-schema scalars is built here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml


class FrontmatterError(ValueError):
    """The frontmatter block is not valid YAML; the message names the line and column."""


@functools.cache
def _yaml12_loader() -> type[yaml.SafeLoader]:
    """A safe loader whose implicit scalar types follow the YAML 1.2 core schema.

    Built on first use so importing this module stays cheap. libyaml's parser is used when PyYAML
    was built with it (about 10x faster); the resolvers are Python-side, so results are the same.
    """
    import yaml

    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Yaml12Loader(base):  # type: ignore[valid-type,misc]
        yaml_implicit_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's class-level registry

    Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
    )
    Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:int",
        re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
        list("-+0123456789"),
    )
    Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    )
    Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_yaml12_int)
    return Yaml12Loader


def _construct_yaml12_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # YAML 1.2: a leading zero does not mean octal


@dataclass(frozen=True)
class Frontmatter:
    """The parsed frontmatter mapping (empty without a block) and the body after it."""

    data: dict[str, Any]
    body: str


def _normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_frontmatter(content: str) -> Frontmatter:
    """Split ``content`` into frontmatter and body as pi does.

    A block exists only if the text starts with ``---`` and a later line starts with ``---``; the
    body after a block is trimmed, a text without a block is returned unchanged (newlines normalised).
    Raises :class:`FrontmatterError` when the block is not valid YAML.
    """
    normalized = _normalize_newlines(content)
    if not normalized.startswith("---"):
        return Frontmatter({}, normalized)
    end = normalized.find("\n---", 3)
    if end == -1:
        return Frontmatter({}, normalized)
    yaml_text = normalized[4:end]
    body = normalized[end + 4 :].strip()
    if not yaml_text:
        return Frontmatter({}, body)
    import yaml

    try:
        parsed = yaml.load(yaml_text, Loader=_yaml12_loader())
    except yaml.YAMLError as error:
        raise FrontmatterError(_describe_yaml_error(error)) from error
    if parsed is None:
        return Frontmatter({}, body)
    if not isinstance(parsed, dict):
        raise FrontmatterError(f"frontmatter must be a mapping, not {type(parsed).__name__}")
    return Frontmatter({str(key): value for key, value in parsed.items()}, body)


def strip_frontmatter(content: str) -> str:
    """The body of ``content`` without its frontmatter block."""
    return parse_frontmatter(content).body


def _describe_yaml_error(error: yaml.YAMLError) -> str:
    """A one-line message with the position counted in the file (the block starts on line 2)."""
    import yaml

    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        problem = error.problem or "invalid YAML"
        context = f" {error.context}" if error.context else ""
        return f"invalid frontmatter: {problem}{context} at line {mark.line + 2}, column {mark.column + 1}"
    return f"invalid frontmatter: {error}"
