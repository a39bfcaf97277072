"""Skills: SKILL.md files validated as pi validates them, the prompt index, and ``/skill:`` expansion."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pi_core.runtime.resources.diagnostics import Collision, ResourceDiagnostic
from pi_core.runtime.resources.discovery import collect_skill_entries
from pi_core.runtime.resources.frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter
from pi_core.runtime.resources.paths import file_identity, resolve_path
from pi_core.runtime.resources.source_info import SourceInfo

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_VALID_NAME = re.compile(r"^[a-z0-9-]+$")


@dataclass(frozen=True)
class Skill:
    """A loaded skill. ``base_dir`` is the directory relative references resolve against."""

    name: str
    description: str
    file_path: str
    base_dir: str
    disable_model_invocation: bool = False
    #: Where it came from (filled in by the resource loader).
    source_info: SourceInfo | None = None


@dataclass
class SkillLoadResult:
    skills: list[Skill]
    diagnostics: list[ResourceDiagnostic]


def _validate_name(name: str, parent_dir_name: str) -> list[str]:
    errors: list[str] = []
    if name != parent_dir_name:
        errors.append(f'name "{name}" does not match parent directory "{parent_dir_name}"')
    if len(name) > MAX_NAME_LENGTH:
        errors.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _VALID_NAME.match(name):
        errors.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("name must not start or end with a hyphen")
    if "--" in name:
        errors.append("name must not contain consecutive hyphens")
    return errors


def load_skill_file(file_path: str) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """Parse one skill file. Warnings do not stop it loading; a missing description does.

    A ``name``/``description`` that is not a string stops the skill with a warning (pi fails on it).
    """
    diagnostics: list[ResourceDiagnostic] = []

    def warn(message: str) -> None:
        diagnostics.append(ResourceDiagnostic("warning", message, file_path))

    try:
        with open(file_path, encoding="utf-8") as handle:
            frontmatter = parse_frontmatter(handle.read()).data
    except (OSError, UnicodeDecodeError, FrontmatterError) as error:
        warn(str(error))
        return None, diagnostics
    skill_dir = os.path.dirname(file_path)
    parent_name = os.path.basename(skill_dir)
    description = frontmatter.get("description")
    if not description or (isinstance(description, str) and not description.strip()):
        warn("description is required")
        description = None
    elif not isinstance(description, str):
        warn("description must be a string")
        return None, diagnostics
    elif len(description) > MAX_DESCRIPTION_LENGTH:
        warn(f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})")
    name = frontmatter.get("name") or parent_name
    if not isinstance(name, str):
        warn("name must be a string")
        return None, diagnostics
    for problem in _validate_name(name, parent_name):
        warn(problem)
    if description is None:
        return None, diagnostics
    skill = Skill(
        name=name,
        description=description,
        file_path=file_path,
        base_dir=skill_dir,
        disable_model_invocation=frontmatter.get("disable-model-invocation") is True,
    )
    return skill, diagnostics


def load_skills(paths: Sequence[str], cwd: str) -> SkillLoadResult:
    """Load skills from files and directories, in order; the first skill of a name wins.

    Directories are searched as pi searches a skills directory (SKILL.md roots, top-level ``.md``).
    """
    by_name: dict[str, Skill] = {}
    real_paths: set[tuple[int, int] | str] = set()
    diagnostics: list[ResourceDiagnostic] = []
    collisions: list[ResourceDiagnostic] = []

    def add(skills: Iterable[Skill]) -> None:
        for skill in skills:
            real = file_identity(skill.file_path)
            if real in real_paths:
                continue  # the same file reached through a symlink
            existing = by_name.get(skill.name)
            if existing is not None:
                collisions.append(
                    ResourceDiagnostic(
                        "collision",
                        f'name "{skill.name}" collision',
                        skill.file_path,
                        Collision("skill", skill.name, existing.file_path, skill.file_path),
                    )
                )
            else:
                by_name[skill.name] = skill
                real_paths.add(real)

    for raw in paths:
        path = resolve_path(raw, cwd)
        if not os.path.exists(path):
            diagnostics.append(ResourceDiagnostic("warning", "skill path does not exist", path))
            continue
        files = collect_skill_entries(path, "pi") if os.path.isdir(path) else [path]
        if os.path.isfile(path) and not path.endswith(".md"):
            diagnostics.append(ResourceDiagnostic("warning", "skill path is not a markdown file", path))
            continue
        for file_path in files:
            skill, found = load_skill_file(file_path)
            diagnostics.extend(found)
            if skill is not None:
                add([skill])
    return SkillLoadResult(list(by_name.values()), diagnostics + collisions)


def _escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


#: How the skills index tells the model to open a skill's file, by the tool that can read it.
_HOW_TO_LOAD = {
    "read": "When a task fits a skill's description, open that skill's file with the read tool.",
    "bash": "When a task fits a skill's description, open that skill's file with bash.",
}
_LOAD_ANY_WAY = "When a task fits a skill's description, open that skill's file."


def format_skills_for_prompt(skills: Sequence[Skill], read_tool: str = "read") -> str:
    """The text of the ``skills`` prompt section, ending in the ``<available_skills>`` index.

    ``read_tool`` is the tool the model opens a skill file with (``read`` or ``bash``; anything
    else names no tool). Empty when no skill is visible to the model.
    """
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "Each skill below carries extra instructions for one kind of task.",
        _HOW_TO_LOAD.get(read_tool, _LOAD_ANY_WAY),
        "A relative path inside a skill is relative to that skill's directory (the folder holding"
        " SKILL.md); give tools absolute paths.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_escape_xml(skill.name)}</name>",
            f"    <description>{_escape_xml(skill.description)}</description>",
            f"    <location>{_escape_xml(skill.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


class SkillExpansionError(RuntimeError):
    """The skill file could not be read; the caller reports it and keeps the text as typed.

    pi reports it as an extension error with ``extensionPath = skill.file_path``,
    ``event = "skill_expansion"`` and ``error = reason``.
    """

    def __init__(self, skill: Skill, reason: str) -> None:
        self.skill = skill
        self.reason = reason
        super().__init__(f"{skill.file_path}: {reason}")


def expand_skill_command(text: str, skills: Sequence[Skill]) -> str:
    """Expand ``/skill:NAME [args]`` into pi's ``<skill>`` block; other text is returned unchanged.

    An unknown skill name leaves the text as typed. Raises :class:`SkillExpansionError` when the
    skill's file cannot be read (pi reports it as a ``skill_expansion`` error and sends the text as is).
    """
    if not text.startswith("/skill:"):
        return text
    space = text.find(" ")
    name = text[7:] if space == -1 else text[7:space]
    args = "" if space == -1 else text[space + 1 :].strip()
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    try:
        with open(skill.file_path, encoding="utf-8") as handle:
            body = strip_frontmatter(handle.read()).strip()
    except (OSError, UnicodeDecodeError, FrontmatterError) as error:
        raise SkillExpansionError(skill, str(error)) from error
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block
