"""Settings that choose programs (``shellPath``, ``shellCommandPrefix``): honoured by the bash tool and
by ``!cmd`` alike, and a project's own values only once the project is trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import ToolUse, text_turn, tool_turn

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.faults


def _fake_shell(where: Path, marker: Path) -> Path:
    """A shell that notes each command it was given, then runs it with sh."""
    shell = where / "noting-shell"
    shell.write_text(f'#!/bin/sh\nprintf "%s\\n" "$2" >> {marker}\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    return shell


def _bash_call(pi_env: PiEnv) -> None:
    pi_env.server.add(tool_turn(ToolUse("bash", {"command": "echo from-tool"}, id="c1")), text_turn("done"))


def _tool_output(pi_env: PiEnv) -> str:
    request = pi_env.server.requests[-1].body
    results = [m for m in request["messages"] if m.get("role") == "tool"]
    return str(results[-1]["content"])


def test_global_shell_settings_reach_the_bash_tool(pi_env: PiEnv, tmp_path: Path) -> None:
    marker = tmp_path / "noted"
    shell = _fake_shell(tmp_path, marker)
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    settings.update(shellPath=str(shell), shellCommandPrefix="echo prefixed")
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    _bash_call(pi_env)
    done = pi_env.run("-p", "run it")
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "echo prefixed\necho from-tool\n"  # the configured shell, prefix first
    assert "prefixed" in _tool_output(pi_env) and "from-tool" in _tool_output(pi_env)


def test_project_shell_settings_wait_for_trust(pi_env: PiEnv, tmp_path: Path) -> None:
    marker = tmp_path / "noted"
    shell = _fake_shell(tmp_path, marker)
    (pi_env.project / ".pi").mkdir()
    (pi_env.project / ".pi" / "settings.json").write_text(json.dumps({"shellPath": str(shell)}))
    _bash_call(pi_env)
    untrusted = pi_env.run("-p", "run it")
    assert untrusted.returncode == 0, untrusted.stderr
    assert (
        "shellPath choose programs that pi would run; ignored until you trust the project" in untrusted.stderr
    )
    assert not marker.exists() and "from-tool" in _tool_output(pi_env)  # ran, but not by that shell

    trusted = pi_env.run("trust", model=None)
    assert trusted.returncode == 0 and "shellPath (programs pi runs)" in trusted.stdout
    _bash_call(pi_env)
    again = pi_env.run("-p", "run it")
    assert again.returncode == 0 and "ignored until" not in again.stderr
    assert marker.read_text() == "echo from-tool\n"

    (pi_env.project / ".pi" / "settings.json").write_text(json.dumps({"shellPath": "/bin/false"}))
    _bash_call(pi_env)
    changed = pi_env.run("-p", "run it")  # another program: trusted no more
    assert "ignored until you trust the project" in changed.stderr


def test_user_bash_takes_the_same_shell_settings_and_the_same_gate(pi_env: PiEnv, tmp_path: Path) -> None:
    """``!cmd`` (the RPC ``bash`` command runs the same code): the global shell and prefix apply,
    a project's shell only once the project is trusted."""
    marker = tmp_path / "noted"
    shell = _fake_shell(tmp_path, marker)
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    settings.update(shellPath=str(shell), shellCommandPrefix="echo prefixed")
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    rpc = pi_env.rpc()
    try:
        response = rpc.call({"type": "bash", "command": "echo from-user"})
        assert response["success"] and "prefixed" in response["data"]["output"], response
    finally:
        assert rpc.close() == 0
    assert marker.read_text() == "echo prefixed\necho from-user\n"

    marker.unlink()
    del settings["shellPath"], settings["shellCommandPrefix"]
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    (pi_env.project / ".pi").mkdir()
    (pi_env.project / ".pi" / "settings.json").write_text(json.dumps({"shellPath": str(shell)}))
    for trusted in (False, True):
        if trusted:
            assert pi_env.run("trust", model=None).returncode == 0
        rpc = pi_env.rpc()
        try:
            response = rpc.call({"type": "bash", "command": "echo gated"})
            assert response["success"] and "gated" in response["data"]["output"], response
        finally:
            assert rpc.close() == 0
        assert marker.exists() is trusted, (trusted, rpc.stderr)
