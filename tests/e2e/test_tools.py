"""The built-in tools through the real ``pi``: plugin hooks around them, tool selection flags, a
plugin overriding a built-in, and an agent without the tools plugin.

Each run is a real ``pi -p`` process against the loopback LLM server; the requests it sent show
which tools the model was offered and which tool results it saw.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner
from pi_core.cli.app import cli
from pi_core.plugins import manager
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn

from tests.e2e.example_plugins import disabled_plugins

if TYPE_CHECKING:
    from conftest import PiEnv

PI = str(Path(sys.executable).with_name("pi"))

HOOKS = """
from pi_core import hookimpl




@hookimpl
def tool_call(event, ctx):
    if event.tool_name == "bash" and event.input["command"].startswith("rm "):
        return {"block": True, "reason": "rm is not allowed here; move files to trash/ instead"}
    if event.tool_name == "write":
        event.input["path"] = "redirected/" + event.input["path"]  # in-place edit = new arguments


@hookimpl
def tool_result(event, ctx):
    if event.tool_name == "read" and not event.is_error:
        text = event.content[0].text
        return {"content": [{"type": "text", "text": text.upper()}], "details": {"rewritten": True}}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def tool_names(body: dict[str, Any]) -> list[str]:
    return sorted(tool["function"]["name"] for tool in body.get("tools", []))


def tool_messages(body: dict[str, Any]) -> dict[str, str]:
    """tool_call_id -> the text the model saw, from an openai-completions request body."""
    out = {}
    for message in body["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            out[message["tool_call_id"]] = text
    return out


def session_tool_results(pi_env: PiEnv) -> dict[str, dict[str, Any]]:
    (session_file,) = pi_env.session_files()
    entries = [json.loads(line) for line in session_file.read_text().splitlines()]
    return {
        e["message"]["toolCallId"]: e["message"]
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    }


def test_tool_hooks_block_rewrite_arguments_and_rewrite_results(pi_env: PiEnv, tmp_path: Path) -> None:
    hooks = write(tmp_path / "hooks.py", HOOKS)
    (pi_env.project / "keep").mkdir()
    (pi_env.project / "notes.txt").write_text("quiet words\n")
    pi_env.server.add(
        tool_turn(
            ToolUse("bash", {"command": "rm -r keep"}, id="call_rm"),
            ToolUse("write", {"path": "a.txt", "content": "alpha\n"}, id="call_write"),
            ToolUse("read", {"path": "notes.txt"}, id="call_read"),
        ),
        text_turn("done"),
    )
    result = pi_env.run("-p", "-e", str(hooks), "tidy up")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"

    # Blocked: the command never ran, and the model is told why (an error result).
    assert (pi_env.project / "keep").is_dir()
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen["call_rm"] == "rm is not allowed here; move files to trash/ instead"
    # Rewritten arguments: the write tool ran with the new path.
    assert (pi_env.project / "redirected" / "a.txt").read_text() == "alpha\n"
    assert not (pi_env.project / "a.txt").exists()
    assert "redirected/a.txt" in seen["call_write"]
    # Rewritten result: the model and the session file both have the plugin's version.
    assert seen["call_read"] == "QUIET WORDS\n"
    stored = session_tool_results(pi_env)
    assert stored["call_rm"]["isError"] is True
    assert stored["call_read"]["content"] == [{"type": "text", "text": "QUIET WORDS\n"}]
    assert stored["call_read"]["details"] == {"rewritten": True}
    assert stored["call_write"]["isError"] is False


def test_default_tools_and_the_selection_flags(pi_env: PiEnv) -> None:
    for _ in range(4):
        pi_env.server.add(text_turn("ok"))
    runs = {
        "default": (),
        "--tools": ("--tools", "ls,find,read"),
        "--no-tools": ("--no-tools",),
        "--no-builtin-tools": ("--no-builtin-tools",),
    }
    offered = {}
    for label, flags in runs.items():
        result = pi_env.run("-p", "--no-session", *flags, "hi")
        assert result.returncode == 0, (label, result.stderr)
        offered[label] = tool_names(pi_env.server.requests[-1].body)
    assert offered == {
        "default": ["bash", "edit", "read", "write"],
        "--tools": ["find", "ls", "read"],
        "--no-tools": [],
        "--no-builtin-tools": [],
    }


OVERRIDE = """
from pi_core import hookimpl
from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.messages import TextContent


async def read(tool_call_id, params, signal, on_update, ctx):
    return AgentToolResult(content=[TextContent(text=f"plugin read of {params['path']}")])


@hookimpl
def register_tools(register):
    register(
        AgentTool(
            name="read",
            label="Read (audited)",
            description="Read a file, through the audit plugin.",
            parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            execute=read,
        )
    )


@hookimpl
def tool_call(event, ctx):
    if event.tool_name == "read":
        event.input["path"] = event.input["path"].upper()
"""


def test_a_plugin_overrides_a_built_in_tool_by_name(pi_env: PiEnv, tmp_path: Path) -> None:
    plugin = write(tmp_path / "audited_read.py", OVERRIDE)
    (pi_env.project / "notes.txt").write_text("real file\n")
    pi_env.server.add(tool_turn(ToolUse("read", {"path": "notes.txt"}, id="call_1")), text_turn("read it"))
    result = pi_env.run("-p", "--no-session", "-e", str(plugin), "read notes.txt")
    assert result.returncode == 0, result.stderr
    first = pi_env.server.requests[0].body
    (read,) = (t["function"] for t in first["tools"] if t["function"]["name"] == "read")
    assert read["description"] == "Read a file, through the audit plugin."
    assert tool_names(first) == ["bash", "edit", "read", "write"]  # still one "read", still active
    # The plugin's tool ran (with the hook's in-place edit of a plain-dict argument), not the built-in.
    assert tool_messages(pi_env.server.requests[-1].body) == {"call_1": "plugin read of NOTES.TXT"}
    # It is a plugin tool: --no-builtin-tools keeps it.
    pi_env.server.add(text_turn("ok"))
    only = pi_env.run("-p", "--no-session", "--no-builtin-tools", "-e", str(plugin), "hi")
    assert only.returncode == 0, only.stderr
    assert tool_names(pi_env.server.requests[-1].body) == ["read"]


def _run_without_tools_plugin(pi_env: PiEnv, **env: str) -> subprocess.CompletedProcess[str]:
    pi_env.server.add(text_turn("no tools needed"))
    full_env = {**pi_env.env(), **env}
    argv = [PI, "--model", "loop/fake-model", "-p", "--no-session", "what is 2+2?"]
    return subprocess.run(argv, cwd=pi_env.project, env=full_env, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("how", ["PI_DISABLED_PLUGINS", "disabledPlugins"])
def test_blocking_the_tools_plugin_leaves_a_working_agent_with_no_tools(pi_env: PiEnv, how: str) -> None:
    if how == "disabledPlugins":
        settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
        (pi_env.agent_dir / "settings.json").write_text(
            json.dumps({**settings, "disabledPlugins": ["tools"]})
        )
        result = _run_without_tools_plugin(pi_env)
    else:
        result = _run_without_tools_plugin(pi_env, PI_DISABLED_PLUGINS=disabled_plugins("tools"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "no tools needed\n"
    body = pi_env.server.requests[-1].body
    assert "tools" not in body
    system = body["messages"][0]["content"]
    assert "- read:" not in system and "- bash:" not in system  # no tool lines in the system prompt


def test_without_pi_builtin_tools_installed_the_agent_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pi_llm_server: LoopbackLLMServer
) -> None:
    # What uninstalling the distribution amounts to: its entry point is gone (not merely blocked).
    installed = manager.pi_entry_points

    def without_tools() -> list[Any]:
        return [
            ep for ep in installed() if ep.dist is None or ep.dist.metadata["Name"] != "pi-coding-agent-tools"
        ]

    monkeypatch.setattr(manager, "pi_entry_points", without_tools)
    agent = tmp_path / "agent"
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.setenv("PI_DISABLED_PLUGINS", disabled_plugins())
    models = {
        "providers": {
            "loop": {
                "baseUrl": pi_llm_server.base_url("openai-completions"),
                "api": "openai-completions",
                "apiKey": "sk-loopback",
                "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}],
            }
        }
    }
    write(agent / "models.json", json.dumps(models))
    runner = CliRunner()
    listing = runner.invoke(cli, ["plugins", "--all", "--json"], prog_name="pi")
    assert listing.exit_code == 0, listing.output
    assert "tools" not in {row["name"] for row in json.loads(listing.stdout)}
    pi_llm_server.add(text_turn("four"))
    args = ["-p", "--no-session", "--model", "loop/fake-model", "what is 2+2?"]
    result = runner.invoke(cli, args, prog_name="pi")
    assert result.exit_code == 0, result.output
    assert result.stdout == "four\n"
    assert "tools" not in pi_llm_server.requests[-1].body
    # Asking for a built-in by name is not an error without the plugin; there is just no such tool.
    pi_llm_server.add(text_turn("still four"))
    again = runner.invoke(cli, ["--tools", "read,bash", *args], prog_name="pi")
    assert again.exit_code == 0, again.output
    assert "tools" not in pi_llm_server.requests[-1].body


def test_programs_pi_runs_can_tell_they_run_under_a_coding_agent(pi_env: PiEnv) -> None:
    pi_env.server.add(
        tool_turn(ToolUse("bash", {"command": 'echo "agent=$AI_AGENT coding=$PI_CODING_AGENT"'})),
        text_turn("done"),
    )
    result = pi_env.run("-p", "--no-session", "show the agent variables")
    assert result.returncode == 0, result.stderr
    (output,) = tool_messages(pi_env.server.requests[-1].body).values()
    assert output.strip() == "agent=pi coding=true"
