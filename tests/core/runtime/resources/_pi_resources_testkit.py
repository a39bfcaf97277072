"""Shared helpers for the resources tests (imported by path: tests have no packages)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult

# Prompt data for the test tools (this project's wording; the tool names are pi's built-ins).
TOOL_PROMPTS: dict[str, tuple[str, list[str]]] = {
    "read": ("Show what a file contains", ["Look at files with read, not with cat or sed."]),
    "bash": ("Run a bash command", []),
    "edit": (
        "Change a file by replacing exact pieces of its text, several at once if needed",
        [
            "Prefer edit for small, targeted changes, all of one file's changes in one call.",
            "Every edits[].oldText has to match the original file once and only once; keep each short.",
        ],
    ),
    "write": ("Write a whole file", ["Reach for write only to create a file or rewrite it completely."]),
    "grep": ("Search inside files (skips what .gitignore ignores)", []),
    "find": ("Look files up by glob (skips what .gitignore ignores)", []),
    "ls": ("List a directory", []),
}


async def _never_called(*_args: Any) -> AgentToolResult:
    raise AssertionError("the prompt builder must not run tools")


def make_tool(name: str, snippet: str | None = None, guidelines: list[str] | None = None) -> AgentTool:
    return AgentTool(
        name=name,
        label=name,
        description=f"{name} tool",
        parameters={"type": "object", "properties": {}},
        execute=_never_called,
        prompt_snippet=snippet,
        prompt_guidelines=list(guidelines or []),
    )


def sample_tools(*names: str) -> list[AgentTool]:
    return [make_tool(n, *TOOL_PROMPTS[n]) for n in names]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


#: The sections a prompt may have after its preamble, in pi 1.6.0's order.
SECTION_NAMES = ("tools", "rules", "docs", "addendum", "project_context", "skills", "cwd")
_OPEN = re.compile(r"(?:^|\n\n)<(" + "|".join(SECTION_NAMES) + r")>\n")


def split_sections(prompt: str) -> dict[str, str]:
    """A rendered prompt back into its sections: ``preamble`` first, then each tagged one (untagged)."""
    sections: dict[str, str] = {}
    first = _OPEN.search(prompt)
    sections["preamble"] = prompt[: first.start()] if first else prompt
    at = first.start() if first else len(prompt)
    while at < len(prompt):
        opening = _OPEN.match(prompt, at)
        assert opening is not None, f"text outside any section at {at}: {prompt[at : at + 80]!r}"
        name = opening.group(1)
        close = prompt.index(f"\n</{name}>", opening.end() - 1)
        sections[name] = prompt[opening.end() : close]
        at = close + len(f"\n</{name}>")
    return sections


def outline(prompt: str) -> dict[str, Any]:
    """The facts of a prompt that must equal pi 1.6.0's: which sections in which order, the tools
    listed, the appended text, the context files, the skills index and the working directory.

    Wording (the default preamble, the rules, the documentation block and the fixed sentences)
    is left out: it is this project's own.
    """
    sections = split_sections(prompt)
    facts: dict[str, Any] = {"sections": list(sections)}
    if "tools" not in sections:
        facts["custom_preamble"] = sections["preamble"]
    if "tools" in sections:
        facts["tools"] = (
            re.findall(r"^- ([\w-]+): ", sections["tools"], re.MULTILINE) or sections["tools"].split("\n")[0]
        )
    for name in ("addendum", "cwd"):
        if name in sections:
            facts[name] = sections[name]
    if "project_context" in sections:
        facts["project_context"] = re.findall(
            r'<project_instructions path="([^"]*)">\n(.*?)\n</project_instructions>',
            sections["project_context"],
            re.DOTALL,
        )
    if "skills" in sections:
        index = sections["skills"]
        facts["skills"] = index[index.index("<available_skills>") :]
    return facts


# --- the scenarios the golden prompts were recorded in (see golden/record_pi16.py) --------------


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
