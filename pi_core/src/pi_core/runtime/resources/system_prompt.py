"""The system prompt, assembled as pi 0.73.1 assembles its default (or custom) prompt.

Layout: pi's fixed opening, one line per active tool that has a prompt snippet, guidelines (pi's
file-exploration hint, each active tool's guidelines de-duplicated, two fixed ones), the
documentation block, then the appended text, project context files, the skills index (only when the
``read`` tool is active), the date and the working directory. Everything is byte for byte pi's except
the documentation block, which names this project's documentation instead of pi's.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_core.agent.tools import AgentTool
from pi_core.runtime.resources.context_files import ContextFile
from pi_core.runtime.resources.loader import Resources
from pi_core.runtime.resources.skills import Skill, format_skills_for_prompt

#: Tools assumed when the active set is unknown (pi's default tool names).
DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")


@dataclass(frozen=True)
class DocsPaths:
    """Where the documentation block points: the README, the docs folder and the examples folder."""

    readme: str
    docs: str
    examples: str

    @classmethod
    def default(cls) -> DocsPaths:
        """This project's own README.md, docs/ and plugins-example/ (a workspace checkout's root)."""
        root = Path(__file__).resolve().parents[5]
        return cls(str(root / "README.md"), str(root / "docs"), str(root / "plugins-example"))


@dataclass(frozen=True)
class SystemPromptParts:
    """Everything the prompt is built from, with tool data already reduced to names and text."""

    cwd: str
    #: Active tool names in order; ``None`` = unknown (pi then assumes its four default tools).
    tool_names: Sequence[str] | None = None
    tool_snippets: dict[str, str] | None = None
    prompt_guidelines: Sequence[str] = ()
    custom_prompt: str | None = None
    append_system_prompt: str | None = None
    context_files: Sequence[ContextFile] = ()
    skills: Sequence[Skill] = ()
    docs: DocsPaths | None = None
    today: datetime.date | None = None


def normalize_prompt_snippet(text: str | None) -> str | None:
    """A tool's snippet on one line with single spaces, or ``None`` if blank."""
    if not text:
        return None
    one_line = re.sub(r"\s+", " ", re.sub(r"[\r\n]+", " ", text)).strip()
    return one_line or None


def normalize_prompt_guidelines(guidelines: Sequence[str] | None) -> list[str]:
    """A tool's guidelines trimmed, blanks dropped, duplicates removed (first kept)."""
    unique: dict[str, None] = {}
    for guideline in guidelines or ():
        normalized = guideline.strip()
        if normalized:
            unique[normalized] = None
    return list(unique)


#: Topic → file in this project's docs/ folder, in the order the prompt lists them.
DOC_TOPICS: tuple[tuple[str, str], ...] = (
    ("plugins and extensions", "extensions.md"),
    ("hooks and events", "hooks.md"),
    ("tools", "tools.md"),
    ("skills, prompt templates and context files", "resources.md"),
    ("settings", "settings.md"),
    ("custom providers and models.json", "providers.md"),
    ("compaction", "compaction.md"),
    ("sessions", "sessions.md"),
    ("print, JSON and RPC modes", "modes.md"),
    ("the RPC protocol", "rpc.md"),
    ("command-line options", "cli.md"),
)


def docs_block(docs: DocsPaths) -> str:
    """The paragraph telling the model where this project's own documentation lives.

    Same place and shape as pi's block (spec modes-and-resources §6.2), but naming this project's
    files: pi's list points at documents (themes, TUI, SDK, ...) that do not exist here.
    """
    index = ", ".join(f"{topic} (docs/{name})" for topic, name in DOC_TOPICS)
    return (
        "Pi documentation (consult it only when the user asks about pi itself: its plugins, hooks,"
        " tools, skills, settings or providers):\n"
        f"- Main documentation: {docs.readme}\n"
        f"- Additional docs: {docs.docs}\n"
        f"- Examples: {docs.examples} (example plugins and a sample project)\n"
        f"- Where to look: {index}\n"
        "- Read the relevant docs in full and follow their links to related docs before answering"
        " or working on pi itself"
    )


def _context_section(files: Sequence[ContextFile]) -> str:
    if not files:
        return ""
    section = "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"
    return section + "".join(f"## {f.path}\n\n{f.content}\n\n" for f in files)


def _footer(parts: SystemPromptParts) -> str:
    today = parts.today or datetime.date.today()
    return (
        f"\nCurrent date: {today.isoformat()}\nCurrent working directory: {parts.cwd.replace(chr(92), '/')}"
    )


def _guidelines(tools: Sequence[str], extra: Sequence[str]) -> list[str]:
    ordered: dict[str, None] = {}
    has = set(tools).__contains__
    if has("bash") and not (has("grep") or has("find") or has("ls")):
        ordered["Use bash for file operations like ls, rg, find"] = None
    elif has("bash"):
        ordered["Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)"] = (
            None
        )
    for guideline in extra:
        if guideline.strip():
            ordered.setdefault(guideline.strip(), None)
    ordered.setdefault("Be concise in your responses", None)
    ordered.setdefault("Show file paths clearly when working with files", None)
    return list(ordered)


def assemble_system_prompt(parts: SystemPromptParts) -> str:
    """Build the prompt text from already-gathered parts (see :func:`build_system_prompt`)."""
    append = f"\n\n{parts.append_system_prompt}" if parts.append_system_prompt else ""
    tail = _context_section(parts.context_files)
    if parts.custom_prompt:
        has_read = parts.tool_names is None or "read" in parts.tool_names
        skills = format_skills_for_prompt(parts.skills) if has_read and parts.skills else ""
        return parts.custom_prompt + append + tail + skills + _footer(parts)

    tools = list(parts.tool_names) if parts.tool_names is not None else list(DEFAULT_TOOL_NAMES)
    snippets = parts.tool_snippets or {}
    visible = [name for name in tools if snippets.get(name)]
    tool_list = "\n".join(f"- {name}: {snippets[name]}" for name in visible) if visible else "(none)"
    guidelines = "\n".join(f"- {g}" for g in _guidelines(tools, parts.prompt_guidelines))
    docs = parts.docs or DocsPaths.default()
    prompt = (
        "You are an expert coding assistant operating inside pi, a coding agent harness. You help users"
        " by reading files, executing commands, editing code, and writing new files.\n"
        "\n"
        "Available tools:\n"
        f"{tool_list}\n"
        "\n"
        "In addition to the tools above, you may have access to other custom tools depending on the"
        " project.\n"
        "\n"
        "Guidelines:\n"
        f"{guidelines}\n"
        "\n"
        f"{docs_block(docs)}"
    )
    skills = format_skills_for_prompt(parts.skills) if "read" in tools and parts.skills else ""
    return prompt + append + tail + skills + _footer(parts)


def build_system_prompt(
    tools: Sequence[AgentTool] | None,
    resources: Resources,
    *,
    today: datetime.date | None = None,
    docs: DocsPaths | None = None,
) -> str:
    """pi's system prompt for the active ``tools`` (in order) and the loaded ``resources``.

    ``tools=None`` means the active set is unknown (pi assumes read/bash/edit/write for the
    guidelines and lists no tool lines). ``today`` defaults to the local date.
    """
    snippets: dict[str, str] = {}
    guidelines: list[str] = []
    for tool in tools or ():
        snippet = normalize_prompt_snippet(tool.prompt_snippet)
        if snippet:
            snippets[tool.name] = snippet
        guidelines.extend(normalize_prompt_guidelines(tool.prompt_guidelines))
    parts = SystemPromptParts(
        cwd=resources.cwd,
        tool_names=[t.name for t in tools] if tools is not None else None,
        tool_snippets=snippets,
        prompt_guidelines=guidelines,
        custom_prompt=resources.system_prompt,
        append_system_prompt=resources.append_text,
        context_files=resources.context_files,
        skills=resources.skills,
        docs=docs,
        today=today,
    )
    return assemble_system_prompt(parts)
