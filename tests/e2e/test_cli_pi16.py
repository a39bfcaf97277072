"""The command line of pi 1.6.0 where it applies to us, through the real ``pi`` executable."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pi_core.testing import text_turn

if TYPE_CHECKING:
    from conftest import PiEnv


def _tools_sent(pi_env: PiEnv) -> list[str]:
    body = pi_env.server.requests[-1].body
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _answer(pi_env: PiEnv, *args: str) -> Any:
    pi_env.server.add(text_turn("ok"))
    return pi_env.run("-p", *args, "hi")


def test_version_is_the_bare_number(pi_env: PiEnv) -> None:
    result = pi_env.run("--version", model=None)
    assert result.returncode == 0
    major, minor, patch = result.stdout.strip().split(".")
    assert all(part.isdigit() for part in (major, minor, patch)), result.stdout


def test_tool_patterns_changes_and_exclusions(pi_env: PiEnv) -> None:
    assert _answer(pi_env, "--tools", "re*,ls").returncode == 0
    assert _tools_sent(pi_env) == ["read", "ls"]
    assert _answer(pi_env, "--tools", "+grep,-bash").returncode == 0
    assert _tools_sent(pi_env) == ["read", "edit", "write", "grep"]
    assert _answer(pi_env, "-xt", "bash,e*").returncode == 0
    assert _tools_sent(pi_env) == ["read", "write"]
    assert _answer(pi_env, "-t", "*", "--exclude-tools", "write").returncode == 0
    assert sorted(_tools_sent(pi_env)) == ["bash", "edit", "find", "grep", "ls", "read"]


def test_tool_entries_that_match_nothing_warn_and_mixed_lists_fail(pi_env: PiEnv) -> None:
    result = _answer(pi_env, "--tools", "read,nosuch,zz*", "-xt", "gone")
    assert result.returncode == 0 and result.stdout.strip() == "ok"
    assert 'Warning: --tools: no tool is named "nosuch"' in result.stderr
    assert 'Warning: --tools: no tool matches "zz*"' in result.stderr
    assert 'Warning: --exclude-tools: no tool is named "gone"' in result.stderr
    assert _tools_sent(pi_env) == ["read"]
    requests = len(pi_env.server.requests)
    mixed = pi_env.run("-p", "--tools", "read,+grep", "hi")
    assert mixed.returncode == 1
    assert mixed.stderr.strip() == "Error: --tools: tool names cannot be mixed with +name or -name entries"
    assert len(pi_env.server.requests) == requests


def test_default_tools_setting_in_layers(pi_env: PiEnv) -> None:
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    settings["defaultTools"] = ["-bash", "+grep"]
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    (pi_env.project / ".pi").mkdir()
    (pi_env.project / ".pi" / "settings.json").write_text(json.dumps({"defaultTools": ["+ls", "-edit"]}))
    assert _answer(pi_env).returncode == 0
    assert _tools_sent(pi_env) == ["read", "write", "grep", "ls"]
    # --tools +name changes the resolved setting; a plain --tools replaces it.
    assert _answer(pi_env, "--tools", "+find").returncode == 0
    assert _tools_sent(pi_env) == ["read", "write", "grep", "ls", "find"]
    assert _answer(pi_env, "--tools", "bash").returncode == 0
    assert _tools_sent(pi_env) == ["bash"]
    (pi_env.project / ".pi" / "settings.json").write_text(json.dumps({"defaultTools": ["read", "nosuch"]}))
    result = _answer(pi_env)
    assert result.returncode == 0 and 'Warning: defaultTools: no tool is named "nosuch"' in result.stderr
    assert _tools_sent(pi_env) == ["read"]


def test_session_id_and_name(pi_env: PiEnv) -> None:
    first = _answer(pi_env, "--session-id", "review-1.a", "--name", "Code review")
    assert first.returncode == 0, first.stderr
    assert (
        "No project session found with id 'review-1.a'; creating a new session with that id." in first.stderr
    )
    [path] = pi_env.session_files()
    assert path.name.endswith("_review-1.a.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["id"] == "review-1.a"
    assert (lines[1]["type"], lines[1]["name"], lines[1]["parentId"]) == ("session_info", "Code review", None)

    again = _answer(pi_env, "--session-id", "review-1.a", "--name", "Code review")
    assert again.returncode == 0 and "No project session found" not in again.stderr
    assert pi_env.session_files() == [path]  # the same file, continued
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines].count("session_info") == 1  # the name was already set
    assert [line["message"]["role"] for line in lines if line["type"] == "message"] == [
        "system", "user", "assistant", "user", "assistant",  # pi 1.6.0 records the prompt first
    ]  # fmt: skip

    bad = pi_env.run("-p", "--session-id", "bad/id", "hi")
    assert bad.returncode == 1 and "Session id must be non-empty" in bad.stderr
    both = pi_env.run("-p", "--session-id", "x1", "--continue", "hi")
    assert both.returncode == 1 and "--session-id cannot be combined with --continue" in both.stderr

    rpc = pi_env.rpc("--no-session", "--session-id", "in-memory-7", "-n", "scratch")
    try:
        state = rpc.call({"type": "get_state"})["data"]
        assert (state["sessionId"], state["sessionName"]) == ("in-memory-7", "scratch")
    finally:
        assert rpc.close() == 0


def test_max_thinking_and_model_thinking_levels(pi_env: PiEnv) -> None:
    models = json.loads((pi_env.agent_dir / "models.json").read_text())
    models["providers"]["loopa"]["models"] = [
        {"id": "fake-claude", "reasoning": True},
        {"id": "fake-max", "reasoning": True, "thinkingLevelMap": {"xhigh": "xhigh", "max": "max"}},
    ]
    (pi_env.agent_dir / "models.json").write_text(json.dumps(models))
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    settings["modelThinkingLevels"] = {"loopa/fake-claude": "low"}
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))

    def level(*args: str, model: str) -> str:
        rpc = pi_env.rpc("--no-session", *args, model=model)
        try:
            return str(rpc.call({"type": "get_state"})["data"]["thinkingLevel"])
        finally:
            assert rpc.close() == 0

    assert level("--thinking", "max", model="loopa/fake-max") == "max"
    assert level("--thinking", "max", model="loopa/fake-claude") == "high"  # clamped to what it has
    assert level(model="loopa/fake-claude") == "low"  # modelThinkingLevels
    assert level("--thinking", "minimal", model="loopa/fake-claude") == "minimal"  # the flag wins
    assert level(model="loopa/fake-max") == "medium"  # no entry: the default


def test_double_dash_ends_the_options(pi_env: PiEnv) -> None:
    pi_env.server.add(text_turn("ok"))
    result = pi_env.run("-p", "--", "-v is not a flag here")
    assert result.returncode == 0, result.stderr
    assert "-v is not a flag here" in json.dumps(pi_env.server.requests[-1].body)


PROJECT_PLUGIN = """
from pi_core import hookimpl


@hookimpl
def input(event, ctx):
    return {"action": "transform", "text": "changed by the project plugin"}
"""


def test_approve_and_no_approve(pi_env: PiEnv) -> None:
    extensions = pi_env.project / ".pi" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "rewrite.py").write_text(PROJECT_PLUGIN)
    stopped = pi_env.run("-p", "hi")
    assert stopped.returncode == 1 and "not trusted" in stopped.stderr
    pi_env.server.add(text_turn("ok"), text_turn("ok"))
    skipped = pi_env.run("-na", "-p", "hi")
    assert skipped.returncode == 0, skipped.stderr
    assert "changed by the project plugin" not in json.dumps(pi_env.server.requests[-1].body)
    approved = pi_env.run("--approve", "-p", "hi")
    assert approved.returncode == 0, approved.stderr
    assert "changed by the project plugin" in json.dumps(pi_env.server.requests[-1].body)


GATEKEEPER = """
from pathlib import Path

from pi_core import hookimpl


@hookimpl
def project_trust(event, ctx):
    with open(Path(event.cwd) / "asked.log", "a") as log:
        log.write(f"{ctx.mode} {ctx.has_ui}\\n")
    trusted, _, remember = (Path(event.cwd) / "answer.txt").read_text().strip().partition(" ")
    return {"trusted": trusted, "remember": remember == "remember"}
"""


def test_project_trust_plugin_decides_before_the_projects_code(pi_env: PiEnv) -> None:
    extensions = pi_env.project / ".pi" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "rewrite.py").write_text(PROJECT_PLUGIN)
    (pi_env.agent_dir / "extensions").mkdir(exist_ok=True)
    (pi_env.agent_dir / "extensions" / "gatekeeper.py").write_text(GATEKEEPER)
    answer, log = pi_env.project / "answer.txt", pi_env.project / "asked.log"

    def run(text: str, *flags: str) -> tuple[int, bool, str]:
        answer.write_text(text)
        pi_env.server.add(text_turn("ok"))
        before = len(pi_env.server.requests)
        result = pi_env.run(*flags, "-p", "hi")
        sent = len(pi_env.server.requests) > before
        rewritten = sent and "changed by the project plugin" in json.dumps(pi_env.server.requests[-1].body)
        return result.returncode, rewritten, result.stderr

    assert run("yes")[:2] == (0, True)
    assert run("no")[:2] == (0, False)  # left out without a question, and the run goes on
    code, _, stderr = run("undecided")  # pi's own flow: not trusted, so a print run stops
    assert code == 1 and "not trusted" in stderr
    assert log.read_text().splitlines() == ["print False"] * 3
    assert run("no", "--approve")[:2] == (0, True)  # the flag decides without asking anyone
    assert len(log.read_text().splitlines()) == 3
    # (--no-approve, remembered answers, `pi trust`/`pi untrust`: tests/core/plugins/test_project_trust.py)
