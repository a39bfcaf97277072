"""/export to JSONL, /copy, /login, /logout, /hotkeys and the Ctrl+L / Ctrl+G keys."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, text_turn


def fake_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, script: str) -> Path:
    """A shell script called ``name`` first on the PATH (a stand-in for pbcopy, xclip, gh, …)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    program = bin_dir / name
    program.write_text(script)
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return program


async def two_turns(repl: Any, server: LoopbackLLMServer) -> None:
    server.add(text_turn("first answer"), text_turn("second answer"))
    for question, answer in (("first question", "first answer"), ("second question", "second answer")):
        await repl.submit(question)
        await repl.wait_for(answer)
        await repl.idle()


async def test_export_jsonl_writes_the_branch_as_a_line(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory()
    await two_turns(repl, pi_llm_server)
    target = repl.project / "out" / "branch.jsonl"
    await repl.submit(f"/export {target}")
    await repl.wait_for("Session exported to:")
    header, *entries = [json.loads(line) for line in target.read_text().splitlines()]
    session = repl.mode.host.session
    assert header["type"] == "session" and header["id"] == session.session_id and header["version"] == 3
    assert [e["id"] for e in entries] == [e.id for e in session.session_manager.get_branch()]
    assert entries[0]["parentId"] is None
    assert all(entry["parentId"] == before["id"] for before, entry in itertools.pairwise(entries))
    assert await repl.quit() == 0


async def test_copy_uses_a_clipboard_program(
    repl_factory: Callable[..., Any],
    pi_llm_server: LoopbackLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copied = tmp_path / "clipboard.txt"
    fake_program(tmp_path, monkeypatch, "pbcopy", f"#!/bin/sh\ncat > {copied}\n")
    repl = await repl_factory()
    await repl.submit("/copy")
    await repl.wait_for("No agent messages to copy yet.")
    await two_turns(repl, pi_llm_server)
    await repl.submit("/copy")
    await repl.wait_for("Copied last agent message to clipboard")
    assert copied.read_text() == "second answer"
    assert await repl.quit() == 0


async def test_login_saves_a_key_and_logout_removes_it(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    auth = repl.agent / "auth.json"
    await repl.submit("/login loop")
    await repl.in_dialog()
    repl.send("sk-typed-in\r")
    await repl.wait_for("Saved the API key for loop")
    assert json.loads(auth.read_text()) == {"loop": {"type": "api_key", "key": "sk-typed-in"}}
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert "sk-typed-in" not in repl.output  # the key is not echoed anywhere
    await repl.submit("/logout")
    await repl.in_dialog()
    repl.send("\r")  # the only stored provider
    await repl.wait_for("Removed the credentials of loop")
    assert json.loads(auth.read_text()) == {}
    await repl.submit("/logout")
    await repl.wait_for("No saved credentials in")
    assert await repl.quit() == 0


async def test_hotkeys_and_ctrl_l_model_choice(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.submit("/hotkeys")
    await repl.wait_for("Open the model selector")
    await repl.wait_idle_editor()
    repl.send("\x0c")  # Ctrl+L
    await repl.in_dialog()
    repl.send("other\r")
    await repl.wait_for("Model: loop/other-model")
    assert repl.mode.host.session.model.id == "other-model"
    assert await repl.quit() == 0


async def test_ctrl_g_edits_the_message_in_the_external_editor(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = tmp_path / "fake-editor"
    editor.write_text('#!/bin/sh\nprintf "written in the editor" > "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(editor))
    repl = await repl_factory()
    await repl.wait_idle_editor()
    repl.send("draft\x07")  # Ctrl+G
    await repl.until(lambda: repl.mode.get_editor_text() == "written in the editor")
    repl.send("\x15")
    assert await repl.quit() == 0


async def test_thinking_hidden_by_setting_and_ctrl_t_toggles(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    from pi_core.testing import Text, Thinking, Turn

    (Path.cwd() / ".pi").mkdir()
    (Path.cwd() / ".pi" / "settings.json").write_text(json.dumps({"hideThinkingBlock": True}))
    pi_llm_server.add(
        Turn(blocks=[Thinking("secret pondering"), Text("visible answer")]),
        Turn(blocks=[Thinking("open pondering"), Text("second answer")]),
    )
    repl = await repl_factory()
    await repl.submit("think")
    await repl.wait_for("visible answer")
    assert "secret pondering" not in repl.output and repl.output.count("Thinking...") == 1
    await repl.idle()
    await repl.wait_idle_editor()
    repl.send("\x14")  # Ctrl+T
    await repl.wait_for("Thinking blocks: visible")
    # Saved in the global settings, as pi does (the project's file is left as it was).
    assert json.loads((repl.agent / "settings.json").read_text())["hideThinkingBlock"] is False
    await repl.submit("again")
    await repl.wait_for("second answer")
    assert "open pondering" in repl.output
    assert await repl.quit() == 0


async def test_start_up_header_lists_what_was_loaded_unless_quiet(repl_factory: Callable[..., Any]) -> None:
    (Path.cwd() / "AGENTS.md").write_text("Be brief.")
    repl = await repl_factory()
    await repl.wait_for("Context: AGENTS.md")
    assert await repl.quit() == 0
    (Path.cwd() / ".pi").mkdir()
    (Path.cwd() / ".pi" / "settings.json").write_text(json.dumps({"quietStartup": True}))
    quiet = await repl_factory()
    await quiet.wait_idle_editor()
    assert "/help for commands" not in quiet.output and "Context:" not in quiet.output
    assert await quiet.quit() == 0


DOWN = "\x1b[B"


async def test_settings_menu_flips_switches_and_chooses_values(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.submit("/settings")
    await repl.in_dialog()
    # The list stays open while its settings change (pi's settings list).
    repl.send("auto-compact\r")  # search for the row; Enter flips it
    await repl.until(lambda: repl.mode.host.session.auto_compaction_enabled is False)
    repl.send("\x15steering ")  # Ctrl+U empties the search; a space typed is text
    await asyncio.sleep(0.1)
    repl.send("\r")  # Enter moves the setting on to its next value
    await repl.until(lambda: repl.mode.host.session.steering_mode == "all")
    repl.send("\x1b")  # Esc leaves the list
    await repl.until(lambda: repl.mode._dialogs == 0)
    saved = json.loads((repl.agent / "settings.json").read_text())
    assert saved["compaction"]["enabled"] is False and saved["steeringMode"] == "all"
    session = repl.mode.host.session
    assert session.auto_compaction_enabled is False and session.steering_mode == "all"
    assert await repl.quit() == 0


async def test_import_replaces_the_session_with_a_copy(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    repl = await repl_factory()
    await two_turns(repl, pi_llm_server)
    exported = tmp_path / "elsewhere" / "saved.jsonl"
    await repl.submit(f"/export {exported}")
    await repl.wait_for("Session exported to:")
    await repl.submit("/new")
    await repl.wait_for("New session started")
    await repl.submit(f"/import {exported}")
    await repl.in_dialog()
    repl.send("\r")  # Yes
    await repl.wait_for("Session imported from:")
    session = repl.mode.host.session
    roles = [m.role for m in session.messages if m.role != "system"]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert session.session_file == str(repl.sessions / "saved.jsonl") or session.session_file.endswith(
        "saved.jsonl"
    )
    assert Path(session.session_file) != exported and exported.exists()
    await repl.submit("/import /no/such/file.jsonl")
    await repl.in_dialog()
    repl.send("\r")
    await repl.wait_for("Session file not found: /no/such/file.jsonl")
    assert await repl.quit() == 0


async def test_double_escape_opens_the_tree(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory()
    await two_turns(repl, pi_llm_server)
    await repl.wait_idle_editor()
    repl.send("\x1b")
    await asyncio.sleep(0.15)  # past the escape-sequence timeout, well within the double press
    repl.send("\x1b")
    await repl.in_dialog()
    repl.send("\x1b")  # leave the tree
    await repl.wait_idle_editor()
    assert await repl.quit() == 0


async def test_scoped_models_choose_what_ctrl_p_cycles(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    session = repl.mode.host.session
    await repl.submit("/scoped-models")
    await repl.in_dialog()
    repl.send("\x1b[B\r")  # uncheck loop/other-model: the session's cycle changes at once
    await repl.until(lambda: [m.id for m, _ in session.services.scoped_models] == ["fake-model"])
    repl.send("\r")  # fake-model off too: none checked is every model
    await repl.until(lambda: session.services.scoped_models == [])
    repl.send("\x01")  # Ctrl+A: all again
    repl.send("other\r")  # search, and uncheck it
    repl.send("\x13")  # Ctrl+S: saved as enabledModels
    repl.send("\x1b")
    await repl.wait_for("Model selection saved to settings")
    await repl.wait_for("Ctrl+P cycles through: loop/fake-model")
    saved = json.loads((repl.agent / "settings.json").read_text())
    assert saved["enabledModels"] == ["loop/fake-model"]
    assert [m.id for m, _ in session.services.scoped_models] == ["fake-model"]
    assert await repl.quit() == 0


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16

FAKE_XCLIP = """#!/bin/sh
case "$*" in
  *TARGETS*) printf 'TARGETS\\nimage/png\\ntext/plain\\n' ;;
  *image/png*) cat "{image}" ;;
  *) exit 1 ;;
esac
"""


def take_file(path: str) -> bytes:
    data = Path(path).read_bytes()
    Path(path).unlink()
    return data


async def test_ctrl_v_pastes_the_clipboard_image_as_a_file_path(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = tmp_path / "clip.png"
    image.write_bytes(PNG)
    fake_program(tmp_path, monkeypatch, "xclip", FAKE_XCLIP.format(image=image))
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    repl = await repl_factory()
    await repl.wait_idle_editor()
    repl.send("look at \x16")  # Ctrl+V
    await repl.until(lambda: "pi-clipboard-" in repl.mode.get_editor_text())
    pasted = repl.mode.get_editor_text().removeprefix("look at ")
    assert pasted.endswith(".png") and take_file(pasted) == PNG
    monkeypatch.setenv("DISPLAY", "")  # no clipboard tool reachable: a note, nothing inserted
    repl.send("\x16")
    await repl.wait_for("No image in the clipboard")
    repl.send("\x15")
    assert await repl.quit() == 0


async def test_ctrl_o_expands_tool_output(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    from pi_core.testing import ToolUse, tool_turn

    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": "seq 101 130"})), text_turn("counted"))
    repl = await repl_factory()
    await repl.submit("count")
    await repl.wait_for("counted")
    await repl.idle()
    # collapsed: the tail, and the key that shows the rest
    assert "(25 earlier lines, Ctrl+O expands)" in repl.output and "\n101\n" not in repl.output
    await repl.wait_idle_editor()
    repl.send("\x0f")  # Ctrl+O
    await repl.wait_for("Tool output expanded from now on")
    await repl.wait_for("\n101\n")  # the last result again, in full
    assert await repl.quit() == 0


FAKE_GH = """#!/bin/sh
case "$1 $2" in
  "auth status") exit {auth} ;;
  "gist create") cp "$4" "{copy}"; echo "https://gist.github.com/someone/abc123" ;;
esac
"""


async def test_share_uploads_a_secret_gist_with_gh(
    repl_factory: Callable[..., Any],
    pi_llm_server: LoopbackLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uploaded = tmp_path / "uploaded.html"
    program = fake_program(tmp_path, monkeypatch, "gh", FAKE_GH.format(auth=1, copy=uploaded))
    monkeypatch.setenv("PI_SHARE_VIEWER_URL", "https://viewer.example/")
    repl = await repl_factory()
    await two_turns(repl, pi_llm_server)
    await repl.submit("/share")
    await repl.wait_for("GitHub CLI is not logged in")
    program.write_text(FAKE_GH.format(auth=0, copy=uploaded))
    await repl.submit("/share")
    await repl.wait_for("Share URL: https://viewer.example/#abc123")
    assert "Gist: https://gist.github.com/someone/abc123" in repl.output
    assert "second answer" in uploaded.read_text()  # the exported page went up
    assert await repl.quit() == 0


async def test_resume_list_renames_and_deletes_sessions(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    repl = await repl_factory()
    await two_turns(repl, pi_llm_server)
    old_file = repl.mode.host.session.session_file
    await repl.submit("/new")
    await repl.wait_for("New session started")
    await repl.submit("/resume")
    await repl.in_dialog()
    repl.send("\x12the old one\r")  # Ctrl+R on the only other session: a name in place
    await repl.until(lambda: "the old one" in old_file_text(old_file))
    repl.send("\x04")  # Ctrl+D: delete it, once Enter confirms
    await asyncio.sleep(0.2)
    repl.send("\r")
    await repl.until(lambda: not os.path.exists(old_file))
    repl.send("\x1b")
    await repl.wait_idle_editor()
    assert "Resume" not in repl.output.split("New session started")[-1]  # the selector echoes nothing
    assert await repl.quit() == 0


def old_file_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


async def test_changelog_shows_the_bundled_changelog(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.submit("/changelog")
    await repl.wait_for("1.6.0 — unreleased")
    assert "re-implementation of the TypeScript pi" in repl.output
    assert await repl.quit() == 0
