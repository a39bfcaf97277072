"""Load every resource pi uses to build a run: settings, context files, system-prompt files, skills,
prompt templates and theme paths — and extend them later with paths from ``resources_discover``."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_core.runtime.resources.context_files import ContextFile, load_context_files
from pi_core.runtime.resources.diagnostics import Collision, ResourceDiagnostic
from pi_core.runtime.resources.discovery import ResolvedResource, ResourceType, merge_paths, resolve_resources
from pi_core.runtime.resources.paths import CONFIG_DIR_NAME, get_agent_dir, is_under, resolve_path
from pi_core.runtime.resources.prompt_templates import PromptTemplate, load_prompt_templates
from pi_core.runtime.resources.settings import SettingsManager
from pi_core.runtime.resources.skills import Skill, load_skills
from pi_core.runtime.resources.source_info import SourceInfo, find_source_info
from pi_core.runtime.resources.system_prompt_files import load_append_system_prompt, load_system_prompt


@dataclass(frozen=True)
class ResourceOptions:
    """What the command line says about resources (``pi --help`` flags in parentheses)."""

    cwd: str
    #: ``None`` = ``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``.
    agent_dir: str | None = None
    #: Reuse an existing manager (the runtime's); ``None`` = load the files now.
    settings: SettingsManager | None = None
    skill_paths: Sequence[str] = ()  # --skill (additive even with --no-skills)
    prompt_template_paths: Sequence[str] = ()  # --prompt-template
    theme_paths: Sequence[str] = ()  # --theme
    no_skills: bool = False  # --no-skills
    no_prompt_templates: bool = False  # --no-prompt-templates
    no_themes: bool = False  # --no-themes
    no_context_files: bool = False  # --no-context-files
    system_prompt: str | None = None  # --system-prompt (text, or a path whose contents are used)
    append_system_prompt: Sequence[str] | None = None  # --append-system-prompt, repeatable


@dataclass
class Resources:
    """Everything loaded for one working directory. ``extend`` adds hook-contributed paths."""

    cwd: str
    agent_dir: str
    settings: SettingsManager
    context_files: list[ContextFile] = field(default_factory=list)
    #: Replacement for pi's default prompt body (``--system-prompt`` or SYSTEM.md), if any.
    system_prompt: str | None = None
    #: Parts appended to the prompt (``--append-system-prompt`` values or APPEND_SYSTEM.md).
    append_system_prompt: list[str] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    prompt_templates: list[PromptTemplate] = field(default_factory=list)
    #: Theme files to offer (parsed by the interactive mode).
    theme_paths: list[str] = field(default_factory=list)
    skill_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    prompt_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    theme_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    other_diagnostics: list[ResourceDiagnostic] = field(default_factory=list)
    _skill_paths: list[str] = field(default_factory=list, repr=False)
    _prompt_paths: list[str] = field(default_factory=list, repr=False)
    _resolved_infos: dict[str, SourceInfo] = field(default_factory=dict, repr=False)
    _extension_infos: dict[str, SourceInfo] = field(default_factory=dict, repr=False)

    @property
    def diagnostics(self) -> list[ResourceDiagnostic]:
        """All problems found, grouped by kind."""
        return [
            *self.other_diagnostics,
            *self.skill_diagnostics,
            *self.prompt_diagnostics,
            *self.theme_diagnostics,
        ]

    @property
    def append_text(self) -> str | None:
        """The append parts joined as pi joins them (blank line between), or ``None``."""
        return "\n\n".join(self.append_system_prompt) if self.append_system_prompt else None

    def _resolve(self, raw: str) -> str:
        return resolve_path(raw, self.cwd)

    def _source_info(self, path: str, explicit_root: str, explicit_base: str) -> SourceInfo:
        found = find_source_info(path, self._extension_infos, self._resolved_infos)
        if found is not None:
            return found
        # An explicit path (--skill / --prompt-template): described by where the file lies.
        for scope, root in (
            ("user", os.path.join(self.agent_dir, explicit_root)),
            ("project", os.path.join(self.cwd, CONFIG_DIR_NAME, explicit_root)),
        ):
            if is_under(path, root):
                base = explicit_base if explicit_root == "skills" else root
                return SourceInfo(path=path, source="local", scope=scope, base_dir=base)
        return SourceInfo(path=path, source="local", scope="temporary", base_dir=explicit_base)

    def _load_skills(self) -> None:
        result = load_skills(self._skill_paths, self.cwd)
        self.skills = [
            dataclasses.replace(s, source_info=self._source_info(s.file_path, "skills", s.base_dir))
            for s in result.skills
        ]
        self.skill_diagnostics = result.diagnostics

    def _load_prompts(self) -> None:
        result = load_prompt_templates(self._prompt_paths, self.cwd)
        self.prompt_templates = [
            dataclasses.replace(
                t, source_info=self._source_info(t.file_path, "prompts", os.path.dirname(t.file_path))
            )
            for t in result.templates
        ]
        self.prompt_diagnostics = result.diagnostics

    def extend(
        self,
        skill_paths: Sequence[str] = (),
        prompt_paths: Sequence[str] = (),
        theme_paths: Sequence[str] = (),
        *,
        source: str = "extension",
        base_dir: str | None = None,
    ) -> bool:
        """Add paths contributed by ``resources_discover`` hooks (relative to cwd, ``~`` allowed).

        ``source`` labels them in ``source_info`` (pi uses ``extension:<name>``), ``base_dir`` is the
        contributing plugin's directory if it has one. They come after everything already loaded,
        so existing names win collisions. Returns whether anything was added (the caller then
        rebuilds the system prompt).
        """
        for raw in (*skill_paths, *prompt_paths, *theme_paths):
            path = self._resolve(raw)
            self._extension_infos[path] = SourceInfo(
                path=path, source=source, scope="temporary", base_dir=base_dir
            )
        changed = False
        if skill_paths:
            self._skill_paths = merge_paths(self._skill_paths, skill_paths, self._resolve)
            self._load_skills()
            changed = True
        if prompt_paths:
            self._prompt_paths = merge_paths(self._prompt_paths, prompt_paths, self._resolve)
            self._load_prompts()
            changed = True
        if theme_paths:
            self.theme_paths = merge_paths(self.theme_paths, theme_paths, self._resolve)
            changed = True
        return changed


def _enabled_paths(resource_type: ResourceType, resources: Resources) -> list[str]:
    settings = resources.settings
    global_entries = _string_list(settings.global_settings().get(resource_type))
    project_entries = _string_list(settings.project_settings().get(resource_type))
    resolved = resolve_resources(
        resource_type, resources.cwd, resources.agent_dir, global_entries, project_entries
    )
    for resource in resolved:
        resources._resolved_infos.setdefault(resource.path, _info_for(resource))
    return [r.path for r in resolved if r.enabled]


def _info_for(resource: ResolvedResource) -> SourceInfo:
    return SourceInfo(
        path=resource.path, source=resource.source, scope=resource.scope, base_dir=resource.base_dir
    )


def _theme_diagnostics(paths: Sequence[str]) -> list[ResourceDiagnostic]:
    """Theme files that cannot be used, and names two files take (the first one is used)."""
    if not paths:
        return []
    from pi_core.runtime import themes

    found = themes.scan(paths)
    diagnostics = [ResourceDiagnostic("error", problem) for problem in found.problems]
    for name, kept, dropped in found.duplicates:
        collision = Collision("theme", name, kept, dropped)
        message = f'Theme "{name}" is also defined by {kept}'
        diagnostics.append(ResourceDiagnostic("collision", message, dropped, collision))
    return diagnostics


def _string_list(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _missing_cli_paths(
    paths: Sequence[str], message: str, existing: Sequence[ResourceDiagnostic]
) -> list[ResourceDiagnostic]:
    return [
        ResourceDiagnostic("error", message, p)
        for p in paths
        if not os.path.exists(p) and not any(d.path == p for d in existing)
    ]


def load_resources(options: ResourceOptions) -> Resources:
    """Load all resources for ``options.cwd`` as pi's resource loader does on start-up and ``/reload``.

    Blocking file I/O: call it from a thread in async code (see :func:`load_resources_async`).
    """
    cwd = os.path.abspath(options.cwd)
    agent_dir = os.path.abspath(options.agent_dir) if options.agent_dir else str(get_agent_dir())
    settings = options.settings or SettingsManager.create(cwd, agent_dir)
    resources = Resources(cwd=cwd, agent_dir=agent_dir, settings=settings)

    def resolve(raw: str) -> str:
        return resolve_path(raw, cwd)

    discovered_skills = [] if options.no_skills else _enabled_paths("skills", resources)
    resources._skill_paths = merge_paths(discovered_skills, options.skill_paths, resolve)
    resources._load_skills()
    resources.skill_diagnostics += _missing_cli_paths(
        options.skill_paths, "Skill path does not exist", resources.skill_diagnostics
    )

    discovered_prompts = [] if options.no_prompt_templates else _enabled_paths("prompts", resources)
    resources._prompt_paths = merge_paths(discovered_prompts, options.prompt_template_paths, resolve)
    resources._load_prompts()
    resources.prompt_diagnostics += _missing_cli_paths(
        options.prompt_template_paths, "Prompt template path does not exist", resources.prompt_diagnostics
    )

    discovered_themes = [] if options.no_themes else _enabled_paths("themes", resources)
    resources.theme_paths = merge_paths(discovered_themes, options.theme_paths, resolve)
    resources.theme_diagnostics += _missing_cli_paths(options.theme_paths, "Theme path does not exist", [])
    resources.theme_diagnostics += _theme_diagnostics(resources.theme_paths)

    if not options.no_context_files:
        resources.context_files = load_context_files(cwd, agent_dir, resources.other_diagnostics)
    resources.system_prompt = load_system_prompt(
        cwd, agent_dir, options.system_prompt, resources.other_diagnostics
    )
    resources.append_system_prompt = load_append_system_prompt(
        cwd, agent_dir, options.append_system_prompt, resources.other_diagnostics
    )
    return resources


async def load_resources_async(options: ResourceOptions) -> Resources:
    """:func:`load_resources` off the event loop."""
    return await asyncio.to_thread(load_resources, options)
