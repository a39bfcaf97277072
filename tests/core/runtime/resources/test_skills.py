from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _pi_resources_testkit import write
from pi_core.runtime.resources import (
    Skill,
    SkillExpansionError,
    expand_skill_command,
    format_skills_for_prompt,
    load_skills,
)
from pi_core.runtime.resources.skills import load_skill_file

GOLDEN = Path(__file__).parent / "golden"


def skill_file(root: Path, rel: str, frontmatter: str, body: str = "body") -> Path:
    return write(root / rel, f"---\n{frontmatter}\n---\n{body}\n")


def messages(path: Path) -> list[str]:
    return [d.message for d in load_skill_file(str(path))[1]]


def test_valid_skill(tmp_path: Path) -> None:
    path = skill_file(tmp_path, "my-skill/SKILL.md", "name: my-skill\ndescription: Does things")
    skill, diagnostics = load_skill_file(str(path))
    assert diagnostics == []
    assert skill == Skill("my-skill", "Does things", str(path), str(tmp_path / "my-skill"), False)


def test_name_defaults_to_parent_directory(tmp_path: Path) -> None:
    path = skill_file(tmp_path, "from-dir/SKILL.md", "description: d")
    skill, _ = load_skill_file(str(path))
    assert skill is not None and skill.name == "from-dir"


def test_name_warnings_do_not_stop_loading(tmp_path: Path) -> None:
    path = skill_file(tmp_path, "dir/SKILL.md", "name: -Bad--Name_-\ndescription: d")
    assert messages(path) == [
        'name "-Bad--Name_-" does not match parent directory "dir"',
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        "name must not start or end with a hyphen",
        "name must not contain consecutive hyphens",
    ]
    assert load_skill_file(str(path))[0] is not None


def test_length_limits(tmp_path: Path) -> None:
    name = "a" * 65
    path = skill_file(tmp_path, f"{name}/SKILL.md", f"name: {name}\ndescription: {'d' * 1025}")
    assert messages(path) == ["description exceeds 1024 characters (1025)", "name exceeds 64 characters (65)"]


@pytest.mark.parametrize("description", ["", "description:", "description: '   '"])
def test_missing_description_skips_the_skill(tmp_path: Path, description: str) -> None:
    path = skill_file(tmp_path, "s/SKILL.md", f"name: s\n{description}")
    skill, diagnostics = load_skill_file(str(path))
    assert skill is None
    assert [d.message for d in diagnostics] == ["description is required"]


def test_malformed_frontmatter_is_a_warning_with_position(tmp_path: Path) -> None:
    path = write(tmp_path / "s/SKILL.md", "---\nname: [oops\n---\nbody")
    skill, diagnostics = load_skill_file(str(path))
    assert skill is None
    assert diagnostics[0].type == "warning"
    assert diagnostics[0].path == str(path)
    assert re.search(r"at line [23], column \d+$", diagnostics[0].message)


def test_disable_model_invocation_must_be_boolean_true(tmp_path: Path) -> None:
    hidden = skill_file(tmp_path, "h/SKILL.md", "description: d\ndisable-model-invocation: true")
    yes = skill_file(tmp_path, "y/SKILL.md", "description: d\ndisable-model-invocation: yes")
    assert load_skill_file(str(hidden))[0].disable_model_invocation is True  # type: ignore[union-attr]
    assert load_skill_file(str(yes))[0].disable_model_invocation is False  # type: ignore[union-attr]


def test_directory_rules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill_file(root, "top.md", "description: top-level file")
    skill_file(root, "a/SKILL.md", "description: a")
    skill_file(root, "a/inner/SKILL.md", "description: not searched below a skill root")
    skill_file(root, "group/b/SKILL.md", "description: b")
    skill_file(root, "group/loose.md", "description: only top-level .md files count")
    skill_file(root, ".dot/SKILL.md", "description: dot dirs skipped")
    skill_file(root, "node_modules/x/SKILL.md", "description: skipped")
    skill_file(root, "ign/SKILL.md", "description: ignored by .gitignore")
    write(root / ".gitignore", "ign/\n")
    result = load_skills([str(root)], str(tmp_path))
    assert [(s.name, Path(s.file_path).relative_to(root).as_posix()) for s in result.skills] == [
        ("a", "a/SKILL.md"),
        ("b", "group/b/SKILL.md"),
        ("skills", "top.md"),
    ]


def test_collisions_first_wins_and_symlinks_load_once(tmp_path: Path) -> None:
    first = skill_file(tmp_path, "one/dup/SKILL.md", "description: first")
    second = skill_file(tmp_path, "two/dup/SKILL.md", "description: second")
    (tmp_path / "three").mkdir()
    (tmp_path / "three" / "dup").symlink_to(first.parent)
    result = load_skills(
        [str(tmp_path / "one"), str(tmp_path / "two"), str(tmp_path / "three")], str(tmp_path)
    )
    assert [s.description for s in result.skills] == ["first"]
    [collision] = result.diagnostics
    assert collision.type == "collision"
    assert collision.message == 'name "dup" collision'
    assert collision.collision is not None
    assert collision.collision.winner_path == str(first)
    assert collision.collision.loser_path == str(second)


def test_bad_paths(tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "x")
    result = load_skills(["missing", "notes.txt"], str(tmp_path))
    assert [(d.message, d.path) for d in result.diagnostics] == [
        ("skill path does not exist", str(tmp_path / "missing")),
        ("skill path is not a markdown file", str(tmp_path / "notes.txt")),
    ]


def test_format_skills_for_prompt_escapes_and_hides() -> None:
    skills = [
        Skill("a&b", "<x> \"y\" 'z'", "/p/a/SKILL.md", "/p/a"),
        Skill("hidden", "h", "/p/h/SKILL.md", "/p/h", disable_model_invocation=True),
    ]
    text = format_skills_for_prompt(skills)
    _intro, how, paths, blank, opening = text.split("\n")[:5]
    assert "the read tool" in how and "SKILL.md" in paths and "absolute paths" in paths
    assert (blank, opening) == ("", "<available_skills>")
    assert (
        "    <name>a&amp;b</name>\n    <description>&lt;x&gt; &quot;y&quot; &apos;z&apos;</description>"
        in text
    )
    assert "hidden" not in text
    assert text.endswith("</available_skills>")
    assert format_skills_for_prompt(skills[1:]) == ""


def test_format_skills_for_prompt_names_the_tool_that_reads_skill_files() -> None:
    skills = [Skill("a", "d", "/p/a/SKILL.md", "/p/a")]
    by_tool = {
        tool: format_skills_for_prompt(skills, tool).split("\n")[1] for tool in ("read", "bash", "indirect")
    }
    assert "the read tool" in by_tool["read"] and "bash" in by_tool["bash"]
    assert "read" not in by_tool["indirect"] and "bash" not in by_tool["indirect"]
    assert len(set(by_tool.values())) == 3


def test_expand_skill_command_matches_pi(tmp_path: Path) -> None:
    """The expansion pi 0.73.1 sent for ``/skill:my-skill foo  bar `` (captured)."""
    expected = json.loads((GOLDEN / "user_messages.json").read_text())["skillcmd"]
    path = write(
        tmp_path / "proj/.pi/skills/my-skill/SKILL.md",
        "---\nname: my-skill\ndescription: x\n---\n# Body\nUse it.\n",
    )
    skill, _ = load_skill_file(str(path))
    assert skill is not None
    expanded = expand_skill_command("/skill:my-skill foo  bar ", [skill])
    assert expanded.replace(str(tmp_path), "<ROOT>") == expected
    assert expand_skill_command("/skill:my-skill", [skill]).endswith("Use it.\n</skill>")


def test_expand_skill_command_passes_other_text_through(tmp_path: Path) -> None:
    skills = [Skill("s", "d", str(tmp_path / "s.md"), str(tmp_path))]
    assert expand_skill_command("/skill:unknown x", skills) == "/skill:unknown x"
    assert expand_skill_command("hello /skill:s", skills) == "hello /skill:s"


def test_expand_skill_command_unreadable_file_raises(tmp_path: Path) -> None:
    skill = Skill("gone", "d", str(tmp_path / "gone.md"), str(tmp_path))
    with pytest.raises(SkillExpansionError, match=r"gone\.md") as raised:
        expand_skill_command("/skill:gone", [skill])
    assert raised.value.skill is skill
    assert "No such file" in raised.value.reason


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ("description: 42", "description must be a string"),
        ("description: [a, b]", "description must be a string"),
        ("name: true\ndescription: d", "name must be a string"),
    ],
)
def test_non_string_fields_stop_the_skill(tmp_path: Path, frontmatter: str, message: str) -> None:
    path = skill_file(tmp_path, "s/SKILL.md", frontmatter)
    skill, diagnostics = load_skill_file(str(path))
    assert skill is None
    assert [d.message for d in diagnostics] == [message]
