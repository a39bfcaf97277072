"""System prompt assembly, compared byte for byte with prompts captured from pi 0.73.1.

The golden files are the system messages pi sent to a loopback OpenAI-compatible server, with the
scenario root replaced by <ROOT>, pi's package dir by <PIPKG> and the date by <DATE>. Each test
rebuilds the same scenario under tmp_path. The documentation block is the one deliberate difference
(ours names this project's docs): it is masked on both sides, and checked on its own.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest
from _pi_resources_testkit import make_tool, mask_docs_block, pi_tools, write
from pi_core.runtime.resources import (
    DocsPaths,
    ResourceOptions,
    Skill,
    SystemPromptParts,
    assemble_system_prompt,
    build_system_prompt,
    docs_block,
    load_resources,
)

GOLDEN = Path(__file__).parent / "golden"
TODAY = datetime.date(2031, 2, 3)
PI_DOCS = DocsPaths("<PIPKG>/README.md", "<PIPKG>/docs", "<PIPKG>/examples")


def golden(name: str) -> str:
    return (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def assert_like_pi(prompt: str, name: str) -> None:
    """``prompt`` equals the capture ``name`` except for the documentation block, which is ours."""
    expected = golden(name)
    assert mask_docs_block(prompt) == mask_docs_block(expected)
    assert (docs_block(PI_DOCS) in prompt) == ("\nPi documentation (" in expected)


def normalize(prompt: str, root: Path) -> str:
    return prompt.replace(str(root), "<ROOT>").replace(
        f"Current date: {TODAY.isoformat()}", "Current date: <DATE>"
    )


def scenario_one(root: Path) -> Path:
    """The first capture: global + project AGENTS.md, two visible skills and a hidden one."""
    agent = root / "home" / ".pi" / "agent"
    proj = root / "proj"
    (proj / ".git").mkdir(parents=True)
    write(proj / "AGENTS.md", "root agents\n")
    write(proj / "sub" / "CLAUDE.md", "claude sub\n")
    write(agent / "AGENTS.md", "global agents\n")
    write(
        proj / ".pi/skills/my-skill/SKILL.md",
        '---\nname: my-skill\ndescription: Does <things> & "stuff"\n---\n# Body\nUse it.\n',
    )
    write(agent / "skills/toplevel.md", "---\ndescription: top level skill\n---\nbody\n")
    write(
        proj / ".pi/skills/hidden.md",
        "---\nname: hidden\ndescription: hidden one\ndisable-model-invocation: true\n---\nsecret\n",
    )
    write(proj / "f.txt", "file text\nline2")
    return proj


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "home/.pi/agent"))
    return tmp_path


def build(root: Path, proj: Path, tool_names: list[str], **options: object) -> str:
    resources = load_resources(ResourceOptions(cwd=str(proj), **options))  # type: ignore[arg-type]
    prompt = build_system_prompt(pi_tools(*tool_names), resources, today=TODAY, docs=PI_DOCS)
    return normalize(prompt, root)


DEFAULT_TOOLS = ["read", "bash", "edit", "write"]


def test_build_system_prompt_matches_pi_default(root: Path) -> None:
    assert_like_pi(build(root, scenario_one(root), DEFAULT_TOOLS), "default")


def test_build_system_prompt_matches_pi_without_tools(root: Path) -> None:
    assert_like_pi(build(root, scenario_one(root), []), "notools")


def test_build_system_prompt_matches_pi_with_exploration_tools(root: Path) -> None:
    assert_like_pi(build(root, scenario_one(root), ["read", "grep", "find", "ls", "bash"]), "readgrep")


def test_build_system_prompt_matches_pi_custom_prompt_and_appends(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = scenario_one(root)
    monkeypatch.chdir(proj)  # pi resolves --append-system-prompt paths against the process cwd
    prompt = build(
        root,
        proj,
        DEFAULT_TOOLS,
        system_prompt="CUSTOM BODY",
        append_system_prompt=["APPEND ONE", "f.txt"],
    )
    assert_like_pi(prompt, "sysprompt")


def test_build_system_prompt_matches_pi_system_md_files(root: Path) -> None:
    proj = scenario_one(root)
    write(proj / ".pi/SYSTEM.md", "PROJECT SYSTEM\n")
    write(root / "home/.pi/agent/APPEND_SYSTEM.md", "GLOBAL APPEND\n")
    assert_like_pi(build(root, proj, ["bash"]), "sysfiles")


def scenario_discovery(root: Path) -> Path:
    """The second capture: every discovery source, an exclusion, collisions and bad skills."""
    agent = root / "home/.pi/agent"

    def skill(path: str, name: str, description: str) -> None:
        write(root / path, f"---\nname: {name}\ndescription: {description}\n---\nbody of {name}\n")

    (root / "repo/.git").mkdir(parents=True)
    skill("home/.pi/agent/skills/alpha/SKILL.md", "alpha", "user alpha")
    skill("home/.pi/agent/skills/nested/beta/SKILL.md", "beta", "user beta")
    skill("home/.agents/skills/gamma/SKILL.md", "gamma", "agents gamma")
    skill("repo/.agents/skills/delta/SKILL.md", "delta", "repo delta")
    skill("repo/proj/.agents/skills/eps/SKILL.md", "eps", "proj eps")
    write(root / "repo/proj/.agents/skills/flat.md", "---\ndescription: no name flat\n---\nx\n")
    skill("repo/proj/.pi/skills/alpha/SKILL.md", "alpha", "project alpha wins")
    skill("repo/proj/.pi/skills/.hidden/SKILL.md", "hid", "hidden dir")
    skill("extra/zeta/SKILL.md", "zeta", "settings zeta")
    skill("extra/ignored/SKILL.md", "ignored", "should be ignored")
    write(root / "extra/.gitignore", "ignored/\n")
    write(root / "extra/bad.md", "---\nname: Bad_Name\ndescription: bad name skill\n---\nx\n")
    write(root / "extra/broken.md", "---\nname: [oops\n---\nx\n")
    write(root / "extra/nodesc.md", "---\nname: nodesc\n---\nx\n")
    write(
        agent / "settings.json",
        json.dumps({"skills": ["../../../extra", "!**/beta"], "prompts": ["../../../extra/p"]}),
    )
    skill("cli/SKILL.md", "cliskill", "from cli")
    return root / "repo/proj"


def test_build_system_prompt_matches_pi_skill_discovery(root: Path) -> None:
    proj = scenario_discovery(root)
    assert_like_pi(build(root, proj, DEFAULT_TOOLS, skill_paths=["../../cli"]), "discovery")


def test_skills_index_needs_the_read_tool(root: Path) -> None:
    prompt = build(root, scenario_one(root), ["bash", "edit"])
    assert "<available_skills>" not in prompt


def test_custom_prompt_lists_skills_when_tools_unknown() -> None:
    skill = Skill("s", "d", "/x/s/SKILL.md", "/x/s")
    parts = SystemPromptParts(cwd="C:\\work\\p", custom_prompt="BODY", skills=[skill], today=TODAY)
    prompt = assemble_system_prompt(parts)
    assert prompt.startswith("BODY\n\nThe following skills")
    assert prompt.endswith(
        "</available_skills>\nCurrent date: 2031-02-03\nCurrent working directory: C:/work/p"
    )


def test_tool_snippets_are_one_line_and_guidelines_deduplicated(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))
    tools = [
        make_tool("alpha", "Does\n  many\r\nthings  ", ["Shared rule", " Shared rule ", "Alpha rule"]),
        make_tool("beta", None, ["Shared rule", "  "]),
        make_tool("gamma", "   "),
    ]
    prompt = build_system_prompt(tools, resources, today=TODAY, docs=PI_DOCS)
    assert "Available tools:\n- alpha: Does many things\n\nIn addition" in prompt
    assert (
        "Guidelines:\n- Shared rule\n- Alpha rule\n- Be concise in your responses\n"
        "- Show file paths clearly when working with files\n\n"
    ) in prompt


def test_unknown_tool_set_uses_pi_default_names_for_guidelines(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))
    prompt = build_system_prompt(None, resources, today=TODAY, docs=PI_DOCS)
    assert "Available tools:\n(none)\n" in prompt
    assert "- Use bash for file operations like ls, rg, find\n" in prompt


def test_default_docs_paths_point_at_this_project() -> None:
    docs = DocsPaths.default()
    assert docs.readme.endswith("README.md")
    assert Path(docs.docs).name == "docs"


REPO = Path(__file__).resolve().parents[4]


def test_docs_block_names_only_files_this_project_has() -> None:
    docs = DocsPaths.default()
    block = docs_block(docs)
    assert Path(docs.readme) == REPO / "README.md" and Path(docs.readme).is_file()
    assert Path(docs.docs) == REPO / "docs" and Path(docs.examples) == REPO / "plugins-example"
    assert Path(docs.examples).is_dir()
    named = re.findall(r"docs/([\w.-]+\.md)", block)
    assert len(named) >= 10
    missing = [name for name in named if not (REPO / "docs" / name).is_file()]
    assert missing == []
    for pi_only in ("themes.md", "tui.md", "keybindings.md", "sdk.md", "models.md", "examples/"):
        assert pi_only not in block


def test_docs_block_sits_after_the_guidelines(root: Path) -> None:
    prompt = build(root, scenario_one(root), ["read"])
    block = docs_block(PI_DOCS)
    assert "- Show file paths clearly when working with files\n\n" + block + "\n\n# Project Context" in prompt
    assert block.startswith("Pi documentation (consult it only when the user asks about pi itself")
    assert block.endswith("follow their links to related docs before answering or working on pi itself")
