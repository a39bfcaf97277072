"""``pi new-plugin NAME``: write a ``pi-ext-NAME`` distribution that works and is tested from the start.

The distribution has an entry point in the group ``pi``, a hook (``tool_call``), a tool, a README
and tests that run through :mod:`pi_core.testing` — ``pytest`` in the new folder passes at once,
without installing it and without an async test plugin.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

_PYPROJECT = """\
[project]
name = "{dist}"
version = "0.1.0"
description = "A plugin for pi, the terminal coding agent"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["pi-coding-agent-core>=1.6,<2"]

[project.optional-dependencies]
test = ["pi-coding-agent-core[testing]>=0.1,<1"]

# pi loads every entry point of the group "pi"; the name ({name}) is the plugin's name.
[project.entry-points.pi]
{name} = "{package}.plugin"

[build-system]
requires = ["hatchling>=1.25"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["src/{package}"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]
"""

_PLUGIN = '''\
"""{dist}: a `{tool}` tool and a `tool_call` gate (pi loads this module through its entry point)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core import hookimpl
from pi_core.agent.tools import AgentTool
from pi_core.plugins.events import ToolCallEvent, ToolCallResult

PARAMETERS = {{
    "type": "object",
    "properties": {{"text": {{"type": "string", "description": "What to shout"}}}},
    "required": ["text"],
}}


async def shout(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> str:
    return str(params["text"]).upper()


@hookimpl
def register_tools(register: Callable[[AgentTool], None]) -> None:
    register(
        AgentTool(
            name="{tool}",
            label="Shout",
            description="Repeat a text in capital letters.",
            parameters=PARAMETERS,
            execute=shout,
            prompt_snippet="{tool}: repeat a text in capital letters",
        )
    )


@hookimpl
def tool_call(event: ToolCallEvent) -> ToolCallResult | None:
    if event.tool_name == "bash" and "rm -rf /" in str(event.input.get("command", "")):
        return ToolCallResult(block=True, reason="{name}: not running rm -rf /")
    return None
'''

_TEST = '''\
"""Tests through pi's test kit: a real pi session, your plugin, a scripted model on loopback."""

from __future__ import annotations

from pathlib import Path

import {package}.plugin as plugin
from pi_core.plugins.events import ToolCallEvent
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.plugins import PluginHarness
from pi_core.testing.session import PiSession


async def test_the_model_calls_the_tool(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    pi_llm_server.add(tool_turn(ToolUse("{tool}", {{"text": "hi"}})), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[plugin]) as pi:
        await pi.prompt("shout hi")
    first, second = pi.requests
    assert "{tool}" in [tool["function"]["name"] for tool in first.body["tools"]]
    tool_result = second.body["messages"][-1]
    assert (tool_result["role"], tool_result["content"]) == ("tool", "HI")
    assert pi.entries[-1]["message"]["content"][0]["text"] == "done"


async def test_the_gate_blocks_rm_rf() -> None:
    harness = PluginHarness()  # strict: a handler that raises fails the test
    harness.add("{name}", tool_call=plugin.tool_call)
    event = ToolCallEvent(tool_call_id="1", tool_name="bash", input={{"command": "rm -rf /"}})
    result = await harness.hooks.tool_call(event, harness.ctx)
    assert result is not None and result.block
'''

_README = """\
# {dist}

A plugin for [pi](https://github.com/badlogic/pi-mono) in Python: a `{tool}` tool the model can
call, and a `tool_call` gate that refuses `rm -rf /`.

    pi install ./{dist}        # pi loads it from now on (pi plugins lists it as "{name}")
    pi remove {dist}

Tests run through pi's test kit (`pi_core.testing`), no install needed:

    pip install -e '.[test]'   # or: uv run --with 'pi-coding-agent-core[testing]' pytest
    pytest
"""


def write_plugin(name: str, parent: Path) -> Path:
    """Write ``parent/pi-ext-NAME`` and return it; ``ValueError`` for a bad name or an existing folder."""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"plugin name {name!r}: use lower-case letters, digits and single dashes (e.g. my-gate)"
        )
    dist = f"pi-ext-{name}"
    package = dist.replace("-", "_")
    root = parent / dist
    if root.exists():
        raise ValueError(f"{root} already exists")
    fields = {
        "dist": dist,
        "name": name,
        "package": package,
        "tool": f"{package.removeprefix('pi_ext_')}_shout",
    }
    files = {
        "pyproject.toml": _PYPROJECT,
        "README.md": _README,
        f"src/{package}/__init__.py": '"""{dist}."""\n',
        f"src/{package}/py.typed": "",
        f"src/{package}/plugin.py": _PLUGIN,
        "tests/test_plugin.py": _TEST,
    }
    for relative, template in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**fields), encoding="utf-8")
    return root


def new_plugin(name: str, directory: str | None) -> None:
    try:
        root = write_plugin(name, Path(directory or "."))
    except (ValueError, OSError) as error:
        click.echo(f"Error: {error}", err=True)
        raise SystemExit(1) from None
    click.echo(f"Wrote {root}")
    click.echo(f"  cd {root} && pytest           # its tests, through pi's test kit")
    click.echo(f"  pi install {root}             # pi loads it from now on")
