"""System prompt assembly, compared with prompts recorded from the real pi 1.6.0.

The golden files are the ``system`` text pi 1.6.0 sent to the loopback server of ``pi_core.testing``
(``golden/record_pi16.py`` records them), with the scenario root replaced by <ROOT> and pi's
package dir by <PIPKG>. They are data recorded from pi, in pi's wording. Each test rebuilds the same
scenario under tmp_path and requires the same facts (:func:`outline`: sections and their order,
tools listed, appended text, context files, skills index, cwd); the sentences are this project's own
and are checked on their own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _pi_resources_testkit import (
    TOOL_PROMPTS,
    make_tool,
    outline,
    sample_tools,
    scenario_discovery,
    scenario_one,
    split_sections,
    write,
)
from pi_core.runtime.resources import (
    DocsPaths,
    ResourceOptions,
    Skill,
    SystemPromptParts,
    assemble_system_prompt,
    assemble_system_prompt_sections,
    build_system_prompt,
    build_system_prompt_sections,
    diff_system_prompt_sections,
    docs_block,
    load_resources,
    render_system_prompt,
)
from pi_core.runtime.resources.system_prompt import PREAMBLE, RULE_BASH_FILES, RULE_CONCISE, RULE_PATHS

GOLDEN = Path(__file__).parent / "golden"
PI_DOCS = DocsPaths("<PIPKG>/README.md", "<PIPKG>/docs", "<PIPKG>/examples")


def golden(name: str) -> str:
    return (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def assert_like_pi(prompt: str, name: str) -> None:
    """``prompt`` has the facts of the capture ``name``, and none of its default sentences."""
    expected = golden(name)
    assert outline(prompt) == outline(expected)
    ours, theirs = split_sections(prompt), split_sections(expected)
    if "tools" in theirs:
        assert ours["preamble"] == PREAMBLE != theirs["preamble"]
        assert ours["docs"] == docs_block(PI_DOCS)
        our_lines = set(ours["tools"].splitlines() + ours["rules"].splitlines())
        shared = our_lines & set(theirs["tools"].splitlines() + theirs["rules"].splitlines())
        assert shared <= {"", "(none)"}, shared


def normalize(prompt: str, root: Path) -> str:
    return prompt.replace(str(root), "<ROOT>")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "home/.pi/agent"))
    return tmp_path


def build(root: Path, proj: Path, tool_names: list[str], **options: object) -> str:
    resources = load_resources(ResourceOptions(cwd=str(proj), **options))  # type: ignore[arg-type]
    prompt = build_system_prompt(sample_tools(*tool_names), resources, docs=PI_DOCS)
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


def test_build_system_prompt_matches_pi_skill_discovery(root: Path) -> None:
    proj = scenario_discovery(root)
    assert_like_pi(build(root, proj, DEFAULT_TOOLS, skill_paths=["../../cli"]), "discovery")


def test_skills_index_needs_a_tool_that_reads_files(root: Path) -> None:
    proj = scenario_one(root)
    assert "<available_skills>" not in build(root, proj, ["edit", "write"])
    with_bash = split_sections(build(root, proj, ["bash", "edit"]))["skills"]
    with_read = split_sections(build(root, proj, ["read", "bash"]))["skills"]
    assert "with bash." in with_bash and "with the read tool." in with_read


def test_custom_prompt_lists_skills_when_tools_unknown() -> None:
    skill = Skill("s", "d", "/x/s/SKILL.md", "/x/s")
    parts = SystemPromptParts(cwd="C:\\work\\p", custom_prompt="BODY", skills=[skill])
    sections = assemble_system_prompt_sections(parts)
    assert list(sections) == ["preamble", "skills", "cwd"]
    assert sections["preamble"] == "BODY"
    assert sections["skills"].startswith("<skills>\n") and sections["skills"].endswith(
        "</available_skills>\n</skills>"
    )
    assert sections["cwd"] == "<cwd>\nC:/work/p\n</cwd>"
    assert assemble_system_prompt(parts) == "\n\n".join(sections.values())


def test_sections_are_tagged_and_render_to_the_prompt(root: Path) -> None:
    proj = scenario_one(root)
    resources = load_resources(ResourceOptions(cwd=str(proj), append_system_prompt=["MORE"]))
    sections = build_system_prompt_sections(sample_tools("read", "bash"), resources, docs=PI_DOCS)
    assert list(sections) == [
        "preamble",
        "tools",
        "rules",
        "docs",
        "addendum",
        "project_context",
        "skills",
        "cwd",
    ]
    for name, text in sections.items():
        if name != "preamble":
            assert text.startswith(f"<{name}>\n") and text.endswith(f"\n</{name}>")
    assert sections["addendum"] == "<addendum>\nMORE\n</addendum>"
    prompt = build_system_prompt(sample_tools("read", "bash"), resources, docs=PI_DOCS)
    assert prompt == render_system_prompt(sections) == "\n\n".join(sections.values())
    assert "Current date" not in prompt  # pi 1.6.0 keeps the date out (the prompt stays cacheable)


def test_extra_sections_come_last_or_replace_in_place(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))
    extra = {"team_notes": "Ship on Fridays.", "cwd": "/elsewhere", "blank": ""}
    sections = build_system_prompt_sections([], resources, docs=PI_DOCS, extra_sections=extra)
    assert list(sections)[-2:] == ["cwd", "team_notes"]
    assert sections["cwd"] == "<cwd>\n/elsewhere\n</cwd>"
    assert sections["team_notes"] == "<team_notes>\nShip on Fridays.\n</team_notes>"
    assert "blank" not in sections
    for bad in ("preamble", "Upper", "9lives", "has space", ""):
        with pytest.raises(ValueError, match="Invalid system prompt section name"):
            build_system_prompt_sections([], resources, extra_sections={bad: "x"})


def test_render_skips_removed_and_empty_sections() -> None:
    assert (
        render_system_prompt({"preamble": "P", "tools": None, "cwd": "<cwd>\n/x\n</cwd>"})
        == "P\n\n<cwd>\n/x\n</cwd>"
    )
    assert (
        render_system_prompt({"cwd": "<cwd>\n/x\n</cwd>"}, content="FORCED") == "FORCED\n\n<cwd>\n/x\n</cwd>"
    )
    assert render_system_prompt({}, content="") == ""


def test_diff_names_changed_new_and_removed_sections() -> None:
    before = {"preamble": "P", "tools": "<tools>\na\n</tools>", "skills": "<skills>\ns\n</skills>"}
    after = {"preamble": "P", "tools": "<tools>\nb\n</tools>", "cwd": "<cwd>\n/x\n</cwd>"}
    assert diff_system_prompt_sections(before, after) == {
        "tools": "<tools>\nb\n</tools>",
        "cwd": "<cwd>\n/x\n</cwd>",
        "skills": None,
    }
    assert diff_system_prompt_sections(after, dict(after)) is None
    assert diff_system_prompt_sections({}, {"preamble": "P"}) == {"preamble": "P"}


def test_tool_snippets_are_one_line_and_guidelines_deduplicated(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))
    tools = [
        make_tool("alpha", "Does\n  many\r\nthings  ", ["Shared rule", " Shared rule ", "Alpha rule"]),
        make_tool("beta", None, ["Shared rule", "  "]),
        make_tool("gamma", "   "),
    ]
    sections = split_sections(build_system_prompt(tools, resources, docs=PI_DOCS))
    assert sections["tools"].startswith("- alpha: Does many things\n\n")
    assert sections["rules"] == f"- Shared rule\n- Alpha rule\n- {RULE_CONCISE}\n- {RULE_PATHS}"


def test_tool_guidelines_follow_the_tool_order(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))
    rules = split_sections(build_system_prompt(sample_tools("write", "read"), resources, docs=PI_DOCS))[
        "rules"
    ]
    expected = [*TOOL_PROMPTS["write"][1], *TOOL_PROMPTS["read"][1], RULE_CONCISE, RULE_PATHS]
    assert rules == "\n".join(f"- {rule}" for rule in expected)


def test_file_exploration_rule_depends_on_the_tools(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))

    def rules(*names: str) -> list[str]:
        tools = [make_tool(name) for name in names]
        text = split_sections(build_system_prompt(tools, resources, docs=PI_DOCS))["rules"]
        return text.removeprefix("- ").split("\n- ")[:-2]

    assert rules("bash") == [RULE_BASH_FILES]
    assert rules("bash", "grep") == rules("bash", "ls") == rules("read") == []
    powershell, both = rules("powershell"), rules("bash", "powershell")
    assert len(powershell) == len(both) == 1 and "PowerShell" in powershell[0] and "bash" in both[0]


def test_unknown_tool_set_uses_pi_default_names_for_rules(root: Path) -> None:
    proj = root / "p"
    proj.mkdir()
    resources = load_resources(ResourceOptions(cwd=str(proj), no_context_files=True))
    sections = split_sections(build_system_prompt(None, resources, docs=PI_DOCS))
    assert sections["tools"].startswith("(none)\n\n")
    assert sections["rules"].startswith(f"- {RULE_BASH_FILES}\n")


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


def test_docs_section_sits_between_the_rules_and_the_project_context(root: Path) -> None:
    prompt = build(root, scenario_one(root), ["read"])
    block = docs_block(PI_DOCS)
    assert f"\n</rules>\n\n<docs>\n{block}\n</docs>\n\n<project_context>\n" in prompt
    assert block.startswith("Pi documentation (consult it only when the user asks about pi itself")
