"""How long loading resources and building the system prompt takes (prints figures, never asserts).

A synthetic project: 200 skills (global, project, .agents), 50 prompt templates, context files in a
10-deep directory chain, settings in both scopes. Run: uv run python bench/resources_load.py
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.runtime.resources import ResourceOptions, SettingsManager, build_system_prompt, load_resources


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_tree(root: Path) -> Path:
    agent = root / "home/.pi/agent"
    cwd = root / "repo" / "/".join(f"d{i}" for i in range(10))
    (root / "repo/.git").mkdir(parents=True)
    for i in range(80):
        write(agent / f"skills/g{i}/SKILL.md", f"---\nname: g{i}\ndescription: global skill {i}\n---\nbody\n")
    for i in range(80):
        write(
            cwd / f".pi/skills/p{i}/SKILL.md", f"---\nname: p{i}\ndescription: project skill {i}\n---\nbody\n"
        )
    for i in range(40):
        write(root / f"repo/.agents/skills/a{i}/SKILL.md", f"---\ndescription: agents skill {i}\n---\nbody\n")
    for i in range(50):
        write(agent / f"prompts/t{i}.md", f"---\ndescription: template {i}\n---\nDo $1 with $@\n")
    for i, parent in enumerate([cwd, *cwd.parents][:10]):
        write(parent / "AGENTS.md", f"context {i}\n" * 20)
    write(agent / "settings.json", json.dumps({"theme": "dark", "compaction": {"reserveTokens": 1000}}))
    write(cwd / ".pi/settings.json", json.dumps({"skills": ["!**/g1*"]}))
    os.environ["HOME"] = str(root / "home")
    os.environ["PI_CODING_AGENT_DIR"] = str(agent)
    return cwd


async def _noop(*_args: object) -> AgentToolResult:
    return AgentToolResult()


def median_ms(fn: object, runs: int = 20) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = make_tree(Path(tmp))
        tools = [
            AgentTool(
                n,
                n,
                n,
                {"type": "object"},
                _noop,
                prompt_snippet=f"{n} things",
                prompt_guidelines=[f"use {n}"],
            )
            for n in ("read", "bash", "edit", "write", "grep", "find", "ls")
        ]
        resources = load_resources(ResourceOptions(cwd=str(cwd)))
        print(
            f"skills={len(resources.skills)} templates={len(resources.prompt_templates)} "
            f"context_files={len(resources.context_files)}"
        )
        print(f"settings load (2 files):      {median_ms(lambda: SettingsManager.create(cwd)):.2f} ms")
        print(
            f"load_resources (full):        {median_ms(lambda: load_resources(ResourceOptions(cwd=str(cwd)))):.2f} ms"
        )
        print(
            f"build_system_prompt:          {median_ms(lambda: build_system_prompt(tools, resources)):.3f} ms"
        )
        print(f"system prompt length:         {len(build_system_prompt(tools, resources))} chars")


if __name__ == "__main__":
    main()
