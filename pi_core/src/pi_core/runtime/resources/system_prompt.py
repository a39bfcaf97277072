"""The system prompt, laid out as named sections the way pi 1.6.0 lays out its prompt.

The builder returns an ordered mapping of section name → text (:data:`SystemPromptSections`): the
``preamble`` as plain text, every other section wrapped in a tag of its own name
(``<tools>\\n…\\n</tools>``), which is what pi 1.6.0 stores as the ``sections`` of a ``role: "system"``
message. The sections, in order:

``preamble``
    The opening sentence, or the custom prompt (SYSTEM.md / ``--system-prompt``), which then
    replaces the next three sections as well.
``tools``
    One ``- name: snippet`` line per active tool that has a snippet (``(none)`` if none), then a
    note that more tools may exist.
``rules``
    A file-exploration rule derived from the tool names, each active tool's guidelines, extra
    guidelines, and two fixed rules — de-duplicated, first kept.
``docs``
    Where this project's own documentation lives (pi names its own files; ours names ours).
``addendum``
    APPEND_SYSTEM.md / ``--append-system-prompt`` text.
``project_context``
    The context files (AGENTS.md, CLAUDE.md), each in ``<project_instructions path="…">``.
``skills``
    The ``<available_skills>`` index, when ``read`` or ``bash`` is active.
``cwd``
    The working directory, with forward slashes.

Sections without content are left out. The full prompt (:func:`render_system_prompt`) is the
sections joined by blank lines. The facts (section names, tags, order, tool and file names) are
pi's; the sentences are this project's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_core.agent.tools import AgentTool
from pi_core.ai.messages import SystemMessage, system_message_text
from pi_core.plugins.events import SystemPromptOptions
from pi_core.runtime.resources.context_files import ContextFile
from pi_core.runtime.resources.loader import Resources
from pi_core.runtime.resources.skills import Skill, format_skills_for_prompt

#: Tools assumed when the active set is unknown (pi's default tool names).
DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")

#: Ordered section name → text; ``preamble`` untagged, the others wrapped in ``<name>`` tags.
SystemPromptSections = dict[str, str]

#: What an extra section may be called (pi 1.6.0's rule); ``preamble`` is reserved.
SECTION_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")

PREAMBLE = (
    "You are the coding assistant of pi, a harness for coding agents. Your job is to help the user by"
    " looking at files, running commands and changing code."
)
MORE_TOOLS_NOTE = "Other tools may be offered to you as well."
PROJECT_CONTEXT_INTRO = "Instructions that come with this project:"

RULE_BASH_FILES = "Do file work such as listing, searching and finding through bash (ls, rg, find)"
RULE_POWERSHELL_FILES = "Do file work such as listing, searching and finding through PowerShell"
RULE_BASH_OR_POWERSHELL_FILES = (
    "Do file work such as listing, searching and finding through bash or PowerShell"
)
RULE_CONCISE = "Keep your answers short"
RULE_PATHS = "Name the files you work on by their paths"


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
    #: Further sections (name → text, tagged like the others), after ``cwd``; a name that is
    #: already used replaces that section in place. Empty texts are skipped.
    extra_sections: Mapping[str, str] = field(default_factory=dict)


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

    Same place and shape as pi's block, but naming this project's files: pi's list points at
    documents (themes, TUI, SDK, ...) that do not exist here.
    """
    index = ", ".join(f"{topic} (docs/{name})" for topic, name in DOC_TOPICS)
    return (
        "Pi documentation (consult it only when the user asks about pi itself: its plugins, hooks,"
        " tools, skills, settings or providers):\n"
        f"- Main documentation: {docs.readme}\n"
        f"- Additional docs: {docs.docs}\n"
        f"- Examples: {docs.examples} (example plugins and a sample project)\n"
        "- A path written docs/... points into the Additional docs folder and plugins-example/... into"
        " the Examples folder; neither is relative to the working directory\n"
        f"- Where to look: {index}\n"
        "- Read the relevant docs in full and follow their links to related docs before answering"
        " or working on pi itself"
    )


def _rules(tools: Sequence[str], guidelines: Sequence[str]) -> str:
    ordered: dict[str, None] = {}

    def add(rule: str) -> None:
        if rule.strip():
            ordered.setdefault(rule.strip(), None)

    has = set(tools).__contains__
    if (has("bash") or has("powershell")) and not (has("grep") or has("find") or has("ls")):
        if has("bash") and has("powershell"):
            add(RULE_BASH_OR_POWERSHELL_FILES)
        elif has("powershell"):
            add(RULE_POWERSHELL_FILES)
        else:
            add(RULE_BASH_FILES)
    for guideline in guidelines:
        add(guideline)
    add(RULE_CONCISE)
    add(RULE_PATHS)
    return "\n".join(f"- {rule}" for rule in ordered)


def _project_context(files: Sequence[ContextFile]) -> str:
    blocks = [f'<project_instructions path="{f.path}">\n{f.content}\n</project_instructions>' for f in files]
    return "\n\n".join([PROJECT_CONTEXT_INTRO, *blocks])


def assemble_system_prompt_sections(parts: SystemPromptParts) -> SystemPromptSections:
    """The prompt's sections from already-gathered parts (see :func:`build_system_prompt_sections`).

    Raises ``ValueError`` for an extra section whose name is not allowed.
    """
    for name in parts.extra_sections:
        if not SECTION_NAME.match(name) or name == "preamble":
            raise ValueError(f"Invalid system prompt section name: {name}")
    tools = list(parts.tool_names) if parts.tool_names is not None else list(DEFAULT_TOOL_NAMES)
    body: dict[str, str] = {}
    if parts.custom_prompt:
        body["preamble"] = parts.custom_prompt
    else:
        body["preamble"] = PREAMBLE
        snippets = parts.tool_snippets or {}
        listed = [f"- {name}: {snippets[name]}" for name in tools if snippets.get(name)]
        body["tools"] = ("\n".join(listed) if listed else "(none)") + f"\n\n{MORE_TOOLS_NOTE}"
        body["rules"] = _rules(tools, parts.prompt_guidelines)
        body["docs"] = docs_block(parts.docs or DocsPaths.default())
    if parts.append_system_prompt:
        body["addendum"] = parts.append_system_prompt
    if parts.context_files:
        body["project_context"] = _project_context(parts.context_files)
    reader = next((name for name in ("read", "bash") if name in tools), None)
    if reader is not None and parts.skills:
        index = format_skills_for_prompt(parts.skills, reader)
        if index:
            body["skills"] = index
    body["cwd"] = parts.cwd.replace("\\", "/")
    for name, text in parts.extra_sections.items():
        if text:
            body[name] = text
    return {
        name: text if name == "preamble" else f"<{name}>\n{text}\n</{name}>" for name, text in body.items()
    }


def render_system_prompt(sections: Mapping[str, str | None], content: str = "") -> str:
    """The full prompt text of a system message: ``content``, then each section, blank-line joined.

    ``None`` (a removed section in a patch) and empty texts are skipped, as pi 1.6.0 renders a
    ``role: "system"`` message for the provider.
    """
    return system_message_text(SystemMessage(content=content, sections=dict(sections)))


def diff_system_prompt_sections(
    previous: Mapping[str, str | None], current: Mapping[str, str]
) -> dict[str, str | None] | None:
    """The ``sections`` patch that turns ``previous`` into ``current``; ``None`` if nothing changed.

    Changed or new sections carry their new text, vanished ones ``None`` (pi 1.6.0's update form).
    """
    patch: dict[str, str | None] = {
        name: text for name, text in current.items() if previous.get(name) != text
    }
    patch.update({name: None for name in previous if name not in current})
    return patch or None


def assemble_system_prompt(parts: SystemPromptParts) -> str:
    """The prompt text from already-gathered parts (see :func:`build_system_prompt`)."""
    return render_system_prompt(assemble_system_prompt_sections(parts))


def _parts(
    tools: Sequence[AgentTool] | None,
    resources: Resources,
    docs: DocsPaths | None,
    extra_sections: Mapping[str, str] | None,
) -> SystemPromptParts:
    snippets: dict[str, str] = {}
    guidelines: list[str] = []
    for tool in tools or ():
        snippet = normalize_prompt_snippet(tool.prompt_snippet)
        if snippet:
            snippets[tool.name] = snippet
        guidelines.extend(normalize_prompt_guidelines(tool.prompt_guidelines))
    return SystemPromptParts(
        cwd=resources.cwd,
        tool_names=[t.name for t in tools] if tools is not None else None,
        tool_snippets=snippets,
        prompt_guidelines=guidelines,
        custom_prompt=resources.system_prompt,
        append_system_prompt=resources.append_text,
        context_files=resources.context_files,
        skills=resources.skills,
        docs=docs,
        extra_sections=dict(extra_sections or {}),
    )


def build_system_prompt_sections(
    tools: Sequence[AgentTool] | None,
    resources: Resources,
    *,
    docs: DocsPaths | None = None,
    extra_sections: Mapping[str, str] | None = None,
) -> SystemPromptSections:
    """The system prompt's sections for the active ``tools`` (in order) and the loaded ``resources``.

    ``tools=None`` means the active set is unknown (pi assumes read/bash/edit/write for the rules
    and the skills index, and lists no tool lines).
    """
    return assemble_system_prompt_sections(_parts(tools, resources, docs, extra_sections))


def build_system_prompt(
    tools: Sequence[AgentTool] | None,
    resources: Resources,
    *,
    docs: DocsPaths | None = None,
    extra_sections: Mapping[str, str] | None = None,
) -> str:
    """The full system prompt text: :func:`build_system_prompt_sections`, rendered."""
    return render_system_prompt(
        build_system_prompt_sections(tools, resources, docs=docs, extra_sections=extra_sections)
    )


def system_prompt_options(tools: Sequence[AgentTool], resources: Resources) -> SystemPromptOptions:
    """What the prompt for the active ``tools`` is built from, as the plugin-facing model (a copy)."""
    snippets: dict[str, str] = {}
    guidelines: dict[str, list[str]] = {}
    for tool in tools:
        snippet = normalize_prompt_snippet(tool.prompt_snippet)
        if snippet:
            snippets[tool.name] = snippet
        if rules := normalize_prompt_guidelines(tool.prompt_guidelines):
            guidelines[tool.name] = rules
    return SystemPromptOptions(
        cwd=resources.cwd,
        custom_prompt=resources.system_prompt,
        append_system_prompt=resources.append_text,
        selected_tools=[tool.name for tool in tools],
        hidden_tools=[],
        tool_snippets=snippets,
        tool_guidelines=guidelines,
        prompt_guidelines=[],
        sections={},
        context_files=[{"path": f.path, "content": f.content} for f in resources.context_files],
        skills=[
            {
                "name": skill.name,
                "description": skill.description,
                "filePath": skill.file_path,
                "baseDir": skill.base_dir,
                "disableModelInvocation": skill.disable_model_invocation,
            }
            for skill in resources.skills
        ],
    )


def sections_from_options(
    options: SystemPromptOptions, resources: Resources, *, docs: DocsPaths | None = None
) -> SystemPromptSections:
    """The prompt's sections built from (possibly edited) ``options``: the tools they select with
    their snippets and guidelines, then the further rules, and the further sections. Skills are
    the loaded ones whose names ``options.skills`` still lists. ``ValueError`` for a section name
    that is not allowed."""
    selected = list(options.selected_tools or [])
    snippets = options.tool_snippets or {}
    per_tool = options.tool_guidelines or {}
    guidelines = [rule for name in selected for rule in per_tool.get(name, [])]
    guidelines += normalize_prompt_guidelines(options.prompt_guidelines)
    kept = {str(skill.get("name")) for skill in options.skills or []}
    parts = SystemPromptParts(
        cwd=options.cwd,
        tool_names=selected,
        tool_snippets={name: snippets[name] for name in selected if name in snippets},
        prompt_guidelines=normalize_prompt_guidelines(guidelines),
        custom_prompt=options.custom_prompt,
        append_system_prompt=options.append_system_prompt,
        context_files=[
            ContextFile(path=str(f.get("path", "")), content=str(f.get("content", "")))
            for f in options.context_files or []
        ],
        skills=[skill for skill in resources.skills if skill.name in kept],
        docs=docs,
        extra_sections=dict(options.sections or {}),
    )
    return assemble_system_prompt_sections(parts)
