"""Prompt templates: ``.md`` files invoked as ``/name args`` with bash-style argument placeholders."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pi_core.runtime.resources.diagnostics import Collision, ResourceDiagnostic
from pi_core.runtime.resources.frontmatter import FrontmatterError, parse_frontmatter
from pi_core.runtime.resources.paths import resolve_path
from pi_core.runtime.resources.source_info import SourceInfo

_DESCRIPTION_FALLBACK_LENGTH = 60


@dataclass(frozen=True)
class PromptTemplate:
    """A template: its ``/name``, description for autocomplete, optional argument hint and body."""

    name: str
    description: str
    content: str
    file_path: str
    argument_hint: str | None = None
    #: Where it came from (filled in by the resource loader).
    source_info: SourceInfo | None = None


@dataclass
class PromptTemplateLoadResult:
    templates: list[PromptTemplate]
    diagnostics: list[ResourceDiagnostic]


def parse_command_args(args: str) -> list[str]:
    """Split like a shell, minimally: spaces/tabs separate, ``"..."``/``'...'`` group, no escapes."""
    result: list[str] = []
    current = ""
    quote: str | None = None
    for char in args:
        if quote is not None:
            if char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif char in " \t":
            if current:
                result.append(current)
                current = ""
        else:
            current += char
    if current:
        result.append(current)
    return result


_POSITIONAL = re.compile(r"\$(\d+)")
_SLICE = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}")


def _js_literal_replace(text: str, token: str, replacement: str) -> str:
    """Replace every ``token`` as JavaScript's ``String.replace(/token/g, replacement)`` does.

    pi passes the joined arguments as a *replacement string*, so ``$$``, ``$&``, ``$``` and ``$'``
    inside an argument are interpreted by JavaScript; this reproduces that exactly.
    """
    out: list[str] = []
    position = 0
    while True:
        index = text.find(token, position)
        if index == -1:
            break
        out.append(text[position:index])
        out.append(_expand_js_replacement(replacement, token, text[:index], text[index + len(token) :]))
        position = index + len(token)
    out.append(text[position:])
    return "".join(out)


def _expand_js_replacement(replacement: str, matched: str, before: str, after: str) -> str:
    if "$" not in replacement:
        return replacement
    out: list[str] = []
    i = 0
    while i < len(replacement):
        char = replacement[i]
        following = replacement[i + 1] if i + 1 < len(replacement) else ""
        if char == "$" and following in ("$", "&", "`", "'"):
            out.append({"$": "$", "&": matched, "`": before, "'": after}[following])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def substitute_args(content: str, args: Sequence[str]) -> str:
    """Fill ``$1``.. (missing → empty, ``$0`` → empty), ``${@:N}``/``${@:N:L}``, ``$ARGUMENTS``, ``$@``.

    The four steps run in this order over the running text, as in pi: positional values are
    inserted first so that ``$1`` inside a later value is never substituted.
    """

    def positional(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        return args[index] if 0 <= index < len(args) else ""

    def sliced(match: re.Match[str]) -> str:
        start = max(int(match.group(1)) - 1, 0)
        if match.group(2):
            return " ".join(args[start : start + int(match.group(2))])
        return " ".join(args[start:])

    joined = " ".join(args)
    result = _POSITIONAL.sub(positional, content)
    result = _SLICE.sub(sliced, result)
    result = _js_literal_replace(result, "$ARGUMENTS", joined)
    return _js_literal_replace(result, "$@", joined)


def load_prompt_template(file_path: str) -> PromptTemplate | None:
    """Parse one template file; an unreadable file or bad frontmatter yields ``None`` (pi skips it)."""
    try:
        with open(file_path, encoding="utf-8") as handle:
            parsed = parse_frontmatter(handle.read())
    except (OSError, UnicodeDecodeError, FrontmatterError):
        return None
    name = os.path.basename(file_path).removesuffix(".md")
    raw_description = parsed.data.get("description")
    description = str(raw_description) if raw_description else ""
    if not description:
        first = next((line for line in parsed.body.split("\n") if line.strip()), None)
        if first is not None:
            description = first[:_DESCRIPTION_FALLBACK_LENGTH]
            if len(first) > _DESCRIPTION_FALLBACK_LENGTH:
                description += "..."
    hint = parsed.data.get("argument-hint")
    return PromptTemplate(
        name=name,
        description=description,
        content=parsed.body,
        file_path=file_path,
        argument_hint=str(hint) if hint else None,
    )


def _markdown_files_in(directory: str) -> list[str]:
    """``.md`` files directly in ``directory``, by name. Unlike auto-discovery, pi does not skip
    dot-files nor read ignore files for an explicitly given template directory."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    paths = (os.path.join(directory, name) for name in names if name.endswith(".md"))
    return [path for path in paths if os.path.isfile(path)]


def load_prompt_templates(paths: Sequence[str], cwd: str) -> PromptTemplateLoadResult:
    """Load templates from files and directories (non-recursive), in order; first name wins."""
    loaded: list[PromptTemplate] = []
    for raw in paths:
        path = resolve_path(raw, cwd)
        if os.path.isdir(path):
            files = _markdown_files_in(path)
        elif os.path.isfile(path) and path.endswith(".md"):
            files = [path]
        else:
            continue  # pi ignores missing and non-markdown template paths here
        for file_path in files:
            template = load_prompt_template(file_path)
            if template is not None:
                loaded.append(template)
    by_name: dict[str, PromptTemplate] = {}
    diagnostics: list[ResourceDiagnostic] = []
    for template in loaded:
        existing = by_name.get(template.name)
        if existing is None:
            by_name[template.name] = template
            continue
        diagnostics.append(
            ResourceDiagnostic(
                "collision",
                f'name "/{template.name}" collision',
                template.file_path,
                Collision("prompt", template.name, existing.file_path, template.file_path),
            )
        )
    return PromptTemplateLoadResult(list(by_name.values()), diagnostics)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """Expand ``/name args`` when ``name`` is exactly a template's name; otherwise return ``text``."""
    if not text.startswith("/"):
        return text
    space = text.find(" ")
    name = text[1:] if space == -1 else text[1:space]
    args = "" if space == -1 else text[space + 1 :]
    template = next((t for t in templates if t.name == name), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(args))
