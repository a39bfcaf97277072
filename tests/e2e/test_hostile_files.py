"""Files that are not what their names say, met by the real ``pi``: named pipes where pi reads its
settings, prompts and sessions, and JSON nested deeper than a parser follows. pi answers (or
refuses the one unusable file) in one line each, never hangs and never shows a traceback."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import text_turn

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = [pytest.mark.faults, pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")]

DEEP = "[" * 100_000 + "]" * 100_000


def test_named_pipes_in_place_of_pis_files_are_not_waited_on(pi_env: PiEnv) -> None:
    pi_dir = pi_env.project / ".pi"
    pi_dir.mkdir()
    pipes = [
        pi_env.project / "AGENTS.md",
        pi_dir / "settings.json",
        pi_dir / "SYSTEM.md",
        pi_dir / "mcp.json",
    ]
    for pipe in pipes:
        os.mkfifo(pipe)
    pi_env.server.add(text_turn("answered"))
    try:
        done = pi_env.run("-p", "hi", timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("pi waited on a named pipe")
    assert done.returncode == 0 and done.stdout.strip() == "answered", done.stderr
    assert "Traceback" not in done.stderr
    for pipe in pipes:
        assert f"{pipe}" in done.stderr and "not a regular file" in done.stderr, (pipe, done.stderr)

    session = pi_env.root / "pipe.jsonl"
    os.mkfifo(session)
    refused = pi_env.run("--session", str(session), "-p", "hi", timeout=60)
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(f"{session}: cannot read the session file: not a regular file")


@pytest.mark.parametrize("name", ["settings.json", "models.json", "auth.json", "mcp.json"])
def test_json_nested_too_deeply_is_one_message(pi_env: PiEnv, name: str) -> None:
    (pi_env.agent_dir / name).write_text(DEEP)
    pi_env.server.add(text_turn("answered"))
    done = pi_env.run("-p", "hi", timeout=60)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr
    assert "nested too deeply to read" in done.stderr, done.stderr
    if name in ("settings.json", "mcp.json"):  # the file is set aside, the run goes on
        assert done.returncode == 0 and done.stdout.strip() == "answered", done.stderr
    else:  # no models / a broken auth.json: refused, in a few lines naming the file
        assert done.returncode != 0 and str(pi_env.agent_dir / name) in done.stderr
