from __future__ import annotations

import json
from pathlib import Path

import pytest
from _pi_resources_testkit import write
from pi_core.runtime.resources import ResourceOptions, load_resources, load_resources_async


def skill(path: Path, name: str) -> Path:
    return write(path, f"---\nname: {name}\ndescription: {name} skill\n---\nbody\n")


@pytest.fixture
def proj(tmp_path: Path, home: Path) -> Path:
    path = tmp_path / "proj"
    (path / ".git").mkdir(parents=True)
    return path


def names(options: ResourceOptions) -> list[str]:
    return [s.name for s in load_resources(options).skills]


def test_no_skills_keeps_cli_skill_paths(proj: Path, agent_dir: Path, tmp_path: Path) -> None:
    skill(agent_dir / "skills/auto/SKILL.md", "auto")
    skill(tmp_path / "cli/SKILL.md", "cli")
    assert names(ResourceOptions(cwd=str(proj), skill_paths=[str(tmp_path / "cli")])) == ["auto", "cli"]
    assert names(ResourceOptions(cwd=str(proj), no_skills=True, skill_paths=["../cli"])) == ["cli"]


def test_missing_cli_paths_are_errors(proj: Path) -> None:
    resources = load_resources(
        ResourceOptions(
            cwd=str(proj), skill_paths=["nope"], prompt_template_paths=["nada.md"], theme_paths=["t"]
        )
    )
    kinds = {(d.type, d.message, d.path) for d in resources.diagnostics}
    assert ("warning", "skill path does not exist", str(proj / "nope")) in kinds
    assert ("error", "Skill path does not exist", "nope") in kinds
    assert ("error", "Prompt template path does not exist", "nada.md") in kinds
    assert ("error", "Theme path does not exist", "t") in kinds


def test_settings_patterns_exclude_and_force_include(proj: Path, agent_dir: Path) -> None:
    skill(agent_dir / "skills/keep/SKILL.md", "keep")
    skill(agent_dir / "skills/drop/SKILL.md", "drop")
    skill(agent_dir / "skills/back/SKILL.md", "back")
    write(
        agent_dir / "settings.json",
        json.dumps({"skills": ["!skills/*", "+skills/back", "-skills/keep/SKILL.md"]}),
    )
    assert names(ResourceOptions(cwd=str(proj))) == ["back"]


def test_settings_plain_and_glob_entries(proj: Path, agent_dir: Path, tmp_path: Path) -> None:
    skill(tmp_path / "lib/one/SKILL.md", "one")
    skill(tmp_path / "lib/two/SKILL.md", "two")
    write(proj / ".pi/settings.json", json.dumps({"skills": ["../../lib", "**/two"]}))
    assert names(ResourceOptions(cwd=str(proj))) == ["two"]


def test_project_resources_win_over_user(proj: Path, agent_dir: Path) -> None:
    skill(agent_dir / "skills/same/SKILL.md", "same")
    project_skill = skill(proj / ".pi/skills/same/SKILL.md", "same")
    resources = load_resources(ResourceOptions(cwd=str(proj)))
    assert [s.file_path for s in resources.skills] == [str(project_skill)]
    assert [d.type for d in resources.skill_diagnostics] == ["collision"]


def test_agents_skill_dirs_up_to_git_root(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "outer/repo"
    (repo / ".git").mkdir(parents=True)
    skill(tmp_path / "outer/.agents/skills/outside/SKILL.md", "outside")
    skill(repo / ".agents/skills/inrepo/SKILL.md", "inrepo")
    skill(repo / "sub/.agents/skills/insub/SKILL.md", "insub")
    write(repo / "sub/.agents/skills/flat.md", "---\ndescription: not a skill in .agents\n---\n")
    skill(home / ".agents/skills/userskill/SKILL.md", "userskill")
    assert names(ResourceOptions(cwd=str(repo / "sub"))) == ["insub", "inrepo", "userskill"]


def test_prompt_templates_discovery_and_flags(proj: Path, agent_dir: Path, tmp_path: Path) -> None:
    write(agent_dir / "prompts/user.md", "user")
    write(proj / ".pi/prompts/project.md", "project")
    write(proj / ".pi/prompts/sub/deep.md", "auto-discovery is not recursive")
    write(tmp_path / "more/extra.md", "extra")
    write(tmp_path / "more/nested/deeper.md", "settings directories are recursive")
    write(agent_dir / "settings.json", json.dumps({"prompts": [str(tmp_path / "more")]}))
    write(tmp_path / "cli.md", "cli")
    options = ResourceOptions(cwd=str(proj), prompt_template_paths=[str(tmp_path / "cli.md")])
    assert [t.name for t in load_resources(options).prompt_templates] == [
        "project",
        "extra",
        "deeper",
        "user",
        "cli",
    ]
    options = ResourceOptions(
        cwd=str(proj), no_prompt_templates=True, prompt_template_paths=[str(tmp_path / "cli.md")]
    )
    assert [t.name for t in load_resources(options).prompt_templates] == ["cli"]


def test_themes_are_collected_as_paths(proj: Path, agent_dir: Path) -> None:
    theme = write(agent_dir / "themes/mine.json", "{}")
    write(agent_dir / "themes/readme.md", "not a theme")
    assert load_resources(ResourceOptions(cwd=str(proj))).theme_paths == [str(theme)]
    assert load_resources(ResourceOptions(cwd=str(proj), no_themes=True)).theme_paths == []


def test_no_context_files(proj: Path) -> None:
    write(proj / "AGENTS.md", "ctx")
    assert [f.content for f in load_resources(ResourceOptions(cwd=str(proj))).context_files] == ["ctx"]
    assert load_resources(ResourceOptions(cwd=str(proj), no_context_files=True)).context_files == []


def test_system_prompt_sources(proj: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(agent_dir / "SYSTEM.md", "global system")
    write(agent_dir / "APPEND_SYSTEM.md", "global append\n")
    resources = load_resources(ResourceOptions(cwd=str(proj)))
    assert (resources.system_prompt, resources.append_system_prompt) == ("global system", ["global append\n"])
    write(proj / ".pi/SYSTEM.md", "project system")
    write(proj / ".pi/APPEND_SYSTEM.md", "project append")
    resources = load_resources(ResourceOptions(cwd=str(proj)))
    assert (resources.system_prompt, resources.append_text) == ("project system", "project append")
    monkeypatch.chdir(proj)
    write(proj / "extra.txt", "from file\n")
    resources = load_resources(
        ResourceOptions(cwd=str(proj), system_prompt="extra.txt", append_system_prompt=["a", "", "extra.txt"])
    )
    # --append-system-prompt replaces APPEND_SYSTEM.md; empty values are dropped; paths are read.
    assert resources.system_prompt == "from file\n"
    assert resources.append_text == "a\n\nfrom file\n"


def test_unreadable_system_prompt_file_falls_back_to_the_text(proj: Path) -> None:
    (proj / "dir").mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), system_prompt=str(proj / "dir")))
    assert resources.system_prompt == str(proj / "dir")
    assert resources.other_diagnostics[0].message.startswith(
        f"Could not read system prompt file {proj / 'dir'}"
    )


def test_extend_adds_hook_paths_after_existing_ones(proj: Path, agent_dir: Path, tmp_path: Path) -> None:
    skill(agent_dir / "skills/base/SKILL.md", "base")
    skill(tmp_path / "hook/base/SKILL.md", "base")
    skill(tmp_path / "hook/added/SKILL.md", "added")
    write(tmp_path / "hookprompts/hp.md", "hook prompt")
    theme = write(tmp_path / "t.json", "{}")
    resources = load_resources(ResourceOptions(cwd=str(proj)))
    assert resources.extend() is False
    changed = resources.extend(
        skill_paths=[str(tmp_path / "hook")], prompt_paths=["../hookprompts"], theme_paths=[str(theme)]
    )
    assert changed is True
    assert [s.name for s in resources.skills] == ["base", "added"]
    assert [d.message for d in resources.skill_diagnostics] == ['name "base" collision']
    assert [t.name for t in resources.prompt_templates] == ["hp"]
    assert resources.theme_paths == [str(theme)]
    resources.extend(skill_paths=[str(tmp_path / "hook")])  # the same path twice is loaded once
    assert [s.name for s in resources.skills] == ["base", "added"]


def test_settings_errors_do_not_stop_loading(proj: Path, agent_dir: Path) -> None:
    write(agent_dir / "settings.json", "{oops")
    skill(agent_dir / "skills/ok/SKILL.md", "ok")
    resources = load_resources(ResourceOptions(cwd=str(proj)))
    assert [s.name for s in resources.skills] == ["ok"]
    assert resources.settings.errors[0].error.line == 1


async def test_load_resources_async(proj: Path) -> None:
    write(proj / "AGENTS.md", "async")
    resources = await load_resources_async(ResourceOptions(cwd=str(proj)))
    assert resources.context_files[-1].content == "async"


def test_source_info_as_pi_reports_it(proj: Path, agent_dir: Path, tmp_path: Path) -> None:
    auto = skill(proj / ".pi/skills/auto/SKILL.md", "auto")
    listed = skill(tmp_path / "listed/SKILL.md", "listed")
    cli = skill(tmp_path / "cli/c/SKILL.md", "c")
    hooked = skill(tmp_path / "hooked/h/SKILL.md", "h")
    write(agent_dir / "prompts/p.md", "p")
    cli_prompt = write(tmp_path / "cp.md", "cp")
    write(agent_dir / "settings.json", json.dumps({"skills": [str(tmp_path / "listed")]}))
    resources = load_resources(
        ResourceOptions(
            cwd=str(proj), skill_paths=[str(tmp_path / "cli")], prompt_template_paths=[str(cli_prompt)]
        )
    )
    resources.extend(skill_paths=[str(tmp_path / "hooked")], source="extension:demo", base_dir="/ext")
    infos = {s.name: s.source_info.to_json_dict() for s in resources.skills if s.source_info}
    assert infos == {
        "auto": {
            "path": str(auto),
            "source": "auto",
            "scope": "project",
            "origin": "top-level",
            "baseDir": str(proj / ".pi"),
        },
        "listed": {"path": str(listed), "source": "local", "scope": "user", "origin": "top-level"},
        "c": {
            "path": str(cli),
            "source": "local",
            "scope": "temporary",
            "origin": "top-level",
            "baseDir": str(cli.parent),
        },
        "h": {
            "path": str(hooked),
            "source": "extension:demo",
            "scope": "temporary",
            "origin": "top-level",
            "baseDir": "/ext",
        },
    }
    prompt_infos = {t.name: t.source_info for t in resources.prompt_templates}
    assert prompt_infos["p"] is not None and prompt_infos["p"].scope == "user"
    assert prompt_infos["p"].base_dir == str(agent_dir)
    assert prompt_infos["cp"] is not None and prompt_infos["cp"].scope == "temporary"
    assert prompt_infos["cp"].path == str(cli_prompt)
    assert prompt_infos["cp"].base_dir == str(tmp_path)
