"""pi-ext-protected-paths through a real session: the write is refused, the file is untouched."""

from __future__ import annotations

from pathlib import Path

import pi_ext_protected_paths.plugin as protect
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession


def test_what_is_protected(tmp_path: Path) -> None:
    cwd = str(tmp_path)
    assert protect.protected(".env", cwd) == ".env"
    assert protect.protected("app/.env.local", cwd) == "*/.env.*"
    assert protect.protected(str(tmp_path / ".git" / "config"), cwd) == ".git/*"
    assert protect.protected("keys/server.pem", cwd) == "*.pem"
    assert protect.protected("src/app.py", cwd) is None
    assert protect.protected("dist/app.js", cwd, extra="dist/*") == "dist/*"


async def test_writes_to_protected_paths_are_refused(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(
        tool_turn(
            ToolUse("write", {"path": ".env", "content": "X=1"}),
            ToolUse("write", {"path": "a.txt", "content": "ok"}),
        ),
        text_turn("done"),
    )
    async with PiSession(pi_llm_server, tmp_path, plugins=[protect], builtin_tools=True) as pi:
        (pi.project / ".env").write_text("SECRET=1")
        await pi.prompt("write")
        results = [m for m in pi.requests[1].body["messages"] if m["role"] == "tool"]
        assert "Path '.env' is protected (.env)" in str(results[0]["content"])
        assert (pi.project / ".env").read_text() == "SECRET=1"
        assert (pi.project / "a.txt").read_text() == "ok"
