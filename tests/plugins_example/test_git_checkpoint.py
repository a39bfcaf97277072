"""pi-ext-git-checkpoint through a real session and a real git repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pi_ext_git_checkpoint.plugin as checkpoint
import pytest
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession, ScriptedUI

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


async def test_a_checkpoint_per_turn_is_offered_back_on_fork(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    write = ToolUse("write", {"path": "notes.txt", "content": "rewritten by the model"})
    pi_llm_server.add(tool_turn(write), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[checkpoint], builtin_tools=True) as pi:
        notes = pi.project / "notes.txt"
        notes.write_text("committed")
        git(pi.project, "init", "-q")
        git(pi.project, "add", "notes.txt")
        git(pi.project, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "start")
        notes.write_text("my uncommitted work")
        await pi.prompt("rewrite the notes")
        assert notes.read_text() == "rewritten by the model"
        [entry] = [e for e in pi.entries if e.get("customType") == "git-checkpoint"]
        users = [e["id"] for e in pi.entries if e["type"] == "message" and e["message"]["role"] == "user"]
        assert entry["data"]["entryId"] == users[0]
        ui = ScriptedUI(checkpoint.RESTORE)
        await pi.host.bind_mode(ui=ui, mode="tui")
        cancelled, _ = await pi.host.fork(users[0])
        assert not cancelled and ui.asked == ["Restore the code as it was then?"]
        assert notes.read_text() == "my uncommitted work"


async def test_outside_a_repository_nothing_is_recorded(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("ls", {})), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[checkpoint], builtin_tools=True) as pi:
        await pi.prompt("look")
        assert not [e for e in pi.entries if e.get("customType") == "git-checkpoint"]
