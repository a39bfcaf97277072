"""pi's resources: settings.json, context files, SYSTEM.md, skills, prompt templates, system prompt.

Entry points: :func:`load_resources` (everything for one cwd), :func:`build_system_prompt`,
:func:`expand_skill_command`, :func:`expand_prompt_template`, :func:`process_file_arguments`,
and :class:`SettingsManager` / :class:`Settings`.
"""

from __future__ import annotations

from pi_core.runtime.resources.context_files import ContextFile, load_context_files
from pi_core.runtime.resources.diagnostics import Collision, ResourceDiagnostic
from pi_core.runtime.resources.file_args import (
    FileArgumentError,
    FileArguments,
    ImageResizer,
    ResizedImage,
    process_file_arguments,
)
from pi_core.runtime.resources.frontmatter import Frontmatter, FrontmatterError, parse_frontmatter
from pi_core.runtime.resources.loader import ResourceOptions, Resources, load_resources, load_resources_async
from pi_core.runtime.resources.paths import CONFIG_DIR_NAME, get_agent_dir
from pi_core.runtime.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_prompt_templates,
    parse_command_args,
    substitute_args,
)
from pi_core.runtime.resources.settings import (
    ScopedSettingsError,
    SettingsError,
    SettingsManager,
    deep_merge_settings,
)
from pi_core.runtime.resources.settings_model import Settings
from pi_core.runtime.resources.skills import (
    Skill,
    SkillExpansionError,
    expand_skill_command,
    format_skills_for_prompt,
    load_skills,
)
from pi_core.runtime.resources.system_prompt import (
    DocsPaths,
    SystemPromptParts,
    SystemPromptSections,
    assemble_system_prompt,
    assemble_system_prompt_sections,
    build_system_prompt,
    build_system_prompt_sections,
    diff_system_prompt_sections,
    docs_block,
    render_system_prompt,
    sections_from_options,
    system_prompt_options,
)

__all__ = [
    "CONFIG_DIR_NAME",
    "Collision",
    "ContextFile",
    "DocsPaths",
    "FileArgumentError",
    "FileArguments",
    "Frontmatter",
    "FrontmatterError",
    "ImageResizer",
    "PromptTemplate",
    "ResizedImage",
    "ResourceDiagnostic",
    "ResourceOptions",
    "Resources",
    "ScopedSettingsError",
    "Settings",
    "SettingsError",
    "SettingsManager",
    "Skill",
    "SkillExpansionError",
    "SystemPromptParts",
    "SystemPromptSections",
    "assemble_system_prompt",
    "assemble_system_prompt_sections",
    "build_system_prompt",
    "build_system_prompt_sections",
    "deep_merge_settings",
    "diff_system_prompt_sections",
    "docs_block",
    "expand_prompt_template",
    "expand_skill_command",
    "format_skills_for_prompt",
    "get_agent_dir",
    "load_context_files",
    "load_prompt_templates",
    "load_resources",
    "load_resources_async",
    "load_skills",
    "parse_command_args",
    "parse_frontmatter",
    "process_file_arguments",
    "render_system_prompt",
    "sections_from_options",
    "substitute_args",
    "system_prompt_options",
]
