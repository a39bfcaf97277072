from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from pi_core.cli.app import cli
from pi_core.cli.options import PluginControl, preparse
from pi_core.cli.run import prepare_plugins, prepare_plugins_async
from pi_core.plugins.events import AgentStartEvent
from pi_core.testing import LoopbackLLMServer, text_turn

from pi_core import __version__

GATE = """
from pi_core import hookimpl

@hookimpl
def tool_call(event, ctx):
    return {"block": True, "reason": "no"}
"""


def flag_plugin(name: str) -> str:
    return f"""
from pi_core import hookimpl

@hookimpl
def register_flags(register):
    register({name!r}, type="string", description="a plugin flag")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("PI_DISABLED_PLUGINS", raising=False)
    monkeypatch.delenv("PI_TRACE_HOOKS", raising=False)
    return root


@pytest.fixture
def loop_model(project: Path, tmp_path: Path, pi_llm_server: LoopbackLLMServer) -> LoopbackLLMServer:
    """A loopback model as ``loop/fake-model`` in the agent dir, so a run past the gate really runs."""
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
    write(tmp_path / "agent" / "models.json", json.dumps(models))
    return pi_llm_server


def run_prompt(*args: str) -> Result:
    """``pi -p --no-session --model loop/fake-model ARGS``."""
    return pi("-p", "--no-session", "--model", "loop/fake-model", *args)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def pi(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="pi")


def plugins_json(*args: str) -> dict[str, dict[str, object]]:
    result = pi("plugins", "--json", *args)
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_version(project: Path) -> None:
    result = pi("--version")
    assert result.exit_code == 0 and result.stdout == f"{__version__}\n"  # bare, as pi 1.6.0 prints it


def test_plugins_lists_builtins_only_with_all(project: Path) -> None:
    assert "tools" not in plugins_json()
    rows = plugins_json("--all")
    assert rows["tools"]["source"] == "builtin" and rows["tools"]["distribution"] == "pi-coding-agent-tools"


def test_trust_untrust_cycle_controls_project_plugins(project: Path) -> None:
    write(project / ".pi" / "extensions" / "gate.py", GATE)
    assert plugins_json()["gate"]["status"] == "untrusted"
    assert plugins_json("--trust-project")["gate"]["status"] == "active"
    result = pi("trust")
    assert result.exit_code == 0 and "gate.py" in result.stdout
    row = plugins_json()["gate"]
    assert row["status"] == "active" and row["hooks"] == ["tool_call"] and row["source"] == "project"
    assert pi("untrust").exit_code == 0
    assert plugins_json()["gate"]["status"] == "untrusted"


def test_untrusted_project_stops_a_run_with_how_to_go_on(
    project: Path, loop_model: LoopbackLLMServer
) -> None:
    write(project / ".pi" / "extensions" / "gate.py", GATE)
    result = run_prompt("hello")
    assert result.exit_code == 1
    assert "is not trusted yet" in result.stderr and "pi trust" in result.stderr
    assert "--no-extensions" in result.stderr
    assert loop_model.requests == []  # stopped before anything reached the model
    # Both ways on that the message names really run the agent (with or without the project's code).
    loop_model.add(text_turn("skipped the project code"), text_turn("ran the project code"))
    skipped = run_prompt("--no-extensions", "hello")
    assert skipped.exit_code == 0, skipped.stderr
    assert skipped.stdout == "skipped the project code\n"
    trusted = run_prompt("--trust-project", "hello")
    assert trusted.exit_code == 0, trusted.stderr
    assert trusted.stdout == "ran the project code\n"
    assert len(loop_model.requests) == 2


def test_broken_plugin_stops_the_run_but_not_pi_plugins(project: Path) -> None:
    bad = write(project / ".pi" / "extensions" / "bad.py", "def oops(:\n")
    pi("trust")
    result = pi("hello")
    assert result.exit_code == 1
    assert f"Plugin 'bad' from project ({bad}) failed to load: syntax error in {bad} line 1" in result.stderr
    assert "add 'bad' to \"disabledPlugins\"" in result.stderr and "not starting" in result.stderr
    row = plugins_json()["bad"]
    assert row["status"] == "failed" and "syntax error" in str(row["error"])
    table = pi("plugins")
    assert table.exit_code == 0 and "bad" in table.stdout and "failed" in table.stdout


def test_blocking_a_broken_plugin_lets_the_run_go_on(
    project: Path, monkeypatch: pytest.MonkeyPatch, loop_model: LoopbackLLMServer
) -> None:
    write(project / ".pi" / "extensions" / "bad.py", "def oops(:\n")
    pi("trust")
    assert run_prompt("hello").exit_code == 1 and loop_model.requests == []
    monkeypatch.setenv("PI_DISABLED_PLUGINS", "bad")
    loop_model.add(text_turn("went on without bad"))
    result = run_prompt("hello")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "went on without bad\n" and "bad" not in result.stderr
    assert len(loop_model.requests) == 1
    assert plugins_json()["bad"]["status"] == "blocked"


def test_plugin_flags_become_options_of_run(project: Path, tmp_path: Path) -> None:
    ext = write(tmp_path / "flagger.py", flag_plugin("plan-file"))
    result = pi("-e", str(ext), "run", "--help")
    assert (
        result.exit_code == 0 and "--plan-file VALUE" in result.stdout and "(plugin flagger)" in result.stdout
    )
    unknown = pi("--plan-file", "x", "hi")
    assert unknown.exit_code == 2 and "No such option '--plan-file'" in unknown.stderr
    setup = prepare_plugins(preparse(["-e", str(ext)]))
    assert setup.registrations.flags["plan-file"].plugin == "flagger"


def test_duplicate_flag_and_tool_registrations_exit_1(project: Path, tmp_path: Path) -> None:
    one = write(tmp_path / "one.py", flag_plugin("same"))
    two = write(tmp_path / "two.py", flag_plugin("same"))
    result = pi("-e", str(one), f"--extension={two}", "hi")
    assert result.exit_code == 1
    assert (
        "Plugin 'two' from flag" in result.stderr
        and "flag 'same' is also registered by plugin 'one'" in result.stderr
    )
    tool = """
    from pi_core import hookimpl
    from pi_core.agent.tools import AgentTool

    async def run(*args):
        raise NotImplementedError

    @hookimpl
    def register_tools(register):
        register(AgentTool(name="dup", label="d", description="d", parameters={}, execute=run))
    """
    a = write(tmp_path / "tool_a.py", tool)
    b = write(tmp_path / "tool_b.py", tool)
    result = pi("-e", str(a), "-e", str(b), "hi")
    assert result.exit_code == 1 and "tool 'dup' is also registered by plugin 'tool_a'" in result.stderr


def test_flag_clashing_with_pi_option_is_a_problem(project: Path, tmp_path: Path) -> None:
    ext = write(tmp_path / "clash.py", flag_plugin("trust-project"))
    result = pi("-e", str(ext), "hi")
    assert result.exit_code == 1 and "clashes with one of pi's own options" in result.stderr


def test_preparse_reads_plugin_control_before_click() -> None:
    control = preparse(
        ["-ex.py", "--extension", "y.py", "--extension=z.py", "--no-extensions", "--", "-e", "w"]
    )
    assert control == PluginControl(("x.py", "y.py", "z.py"), no_extensions=True)


async def test_trace_hooks_prints_one_line_per_handler(project: Path, tmp_path: Path) -> None:
    ext = write(
        tmp_path / "traced.py",
        "from pi_core import hookimpl\n\n@hookimpl\ndef agent_start(event, ctx):\n    pass\n",
    )
    setup = await prepare_plugins_async(PluginControl(extensions=(str(ext),), trace_hooks=True))
    stream = io.StringIO()
    hooks = setup.build_hooks(trace=stream)
    await hooks.agent_start(AgentStartEvent(), None)  # type: ignore[arg-type]
    assert stream.getvalue().startswith("[pi hook] agent_start plugin=traced ")
    assert stream.getvalue().rstrip().endswith(" ms")


def test_broken_settings_file_is_reported_once_and_defaults_apply(
    project: Path, loop_model: LoopbackLLMServer
) -> None:
    settings = write(project / ".pi" / "settings.json", '{"extensions": [}')
    warning = f"Warning: {settings}:1:17: invalid JSON: Expecting value"
    listing = pi("plugins")
    assert listing.exit_code == 0 and listing.stderr.count(warning) == 1
    loop_model.add(text_turn("ran with defaults"))
    result = run_prompt("hello")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "ran with defaults\n"
    assert result.stderr.count(f"{settings}:1:17: invalid JSON") == 1, result.stderr


def test_trust_warns_about_a_broken_project_settings_file(project: Path) -> None:
    write(project / ".pi" / "extensions" / "gate.py", GATE)
    settings = write(project / ".pi" / "settings.json", '{\n  "extensions": [\n}')
    result = pi("trust")
    assert result.exit_code == 0, result.output
    warning = f"Warning: {settings}:3:1: invalid JSON: Expecting value\n"
    assert result.stderr.count(warning) == 1  # the loader's words, once
    assert "gate.py" in result.stdout  # the rest of the project is still trusted
    assert plugins_json()["gate"]["status"] == "active"
    write(project / ".pi" / "settings.json", "{}")
    fine = pi("trust")
    assert fine.exit_code == 0 and "Warning" not in fine.stderr


def test_settings_lists_of_wrong_type_are_reported_and_ignored(project: Path, tmp_path: Path) -> None:
    listed = write(tmp_path / "listed.py", GATE)
    write(project / ".pi" / "settings.json", json.dumps({"extensions": [str(listed)]}))
    agent_settings = write(tmp_path / "agent" / "settings.json", '{\n  "disabledPlugins": "listed"\n}')
    result = pi("plugins", "--json", "--trust-project")
    assert result.exit_code == 0
    assert f'Warning: {agent_settings}:2:3: "disabledPlugins" must be a list of strings' in result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["listed"]["status"] == "active"


def test_plugins_lists_refused_duplicates_and_missing_paths(project: Path, tmp_path: Path) -> None:
    write(project / ".pi" / "extensions" / "twin.py", GATE)
    other = write(tmp_path / "elsewhere" / "twin.py", GATE)
    result = pi("plugins", "--json", "--trust-project", "-e", str(other), "-e", "missing.py")
    rows = {
        (r["name"], r["status"]): r for r in json.loads(result.stdout) if r["name"] in {"twin", "missing"}
    }
    assert set(rows) == {("twin", "active"), ("twin", "failed"), ("missing", "failed")}
    assert rows["twin", "active"]["source"] == "flag"
    assert "already loaded from flag" in rows["twin", "failed"]["error"]
    assert "does not exist" in rows["missing", "failed"]["error"]
