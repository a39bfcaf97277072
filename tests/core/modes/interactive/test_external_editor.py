"""The external editor (Ctrl+G): which program, how it runs, what comes back — first on its own,
then from the REPL's editor in both modes, where a project's ``externalEditor`` waits for trust."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive.external_editor import edit_externally, editor_command

CTRL_G = "\x07"


def _script(folder: Path, name: str, body: str) -> Path:
    """A small program to stand in for an editor: ``$1`` is the file, ``$@`` ends with it."""
    path = folder / name
    path.write_text("#!/bin/sh\nfor last; do :; done\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_command_is_the_setting_then_visual_then_editor_then_nano() -> None:
    env = {"VISUAL": "vis", "EDITOR": "ed"}
    assert editor_command("code --wait", env) == "code --wait"
    assert editor_command("  ", env) == "vis"  # a blank setting counts as none, as in pi
    assert editor_command(None, {"EDITOR": "ed"}) == "ed"
    assert editor_command(None, {"VISUAL": "", "EDITOR": "ed"}) == "ed"
    assert editor_command(None, {}) == "nano"


def test_the_last_resort_on_windows_is_notepad(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert editor_command(None, {}) == "notepad"
    assert editor_command(None, {"EDITOR": "ed"}) == "ed"


async def test_the_file_comes_back_without_its_bom_and_final_newline(tmp_path: Path) -> None:
    args = tmp_path / "args"
    editor = _script(
        tmp_path,
        "edit",
        f'printf "%s\\n" "$@" > {args}\nold=$(cat "$last")\n'
        f'printf "\\357\\273\\277[%s] edited\\nline two\\n\\n" "$old" > "$last"\n',
    )
    edited = await edit_externally(f"'{editor}' --wait -n", "draft ünï")
    assert edited.text == "[draft ünï] edited\nline two\n" and edited.problem is None
    flag, wait, file = args.read_text().splitlines()
    # Split as a shell splits it, the file last: prompt.md in a directory removed afterwards.
    assert (flag, wait) == ("--wait", "-n") and Path(file).name == "prompt.md"
    assert Path(file).parent.name.startswith("pi-editor-") and not Path(file).parent.exists()


async def test_the_editor_runs_in_a_process_group_of_its_own_with_no_signal_blocked(tmp_path: Path) -> None:
    group, status = tmp_path / "group", tmp_path / "status"
    # The shell reads its own status with builtins: while it forks (for ps) it blocks every signal.
    editor = _script(
        tmp_path,
        "edit",
        f'while IFS= read -r row; do echo "$row"; done < /proc/$$/status > {status}\n'
        f"ps -o pgid= -p $$ > {group}\n",
    )
    edited = await edit_externally(str(editor), "text")
    assert edited.text == "text"
    assert int(group.read_text()) not in (os.getpgrp(), os.getpid())
    fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
    assert int(fields["SigBlk"], 16) == 0
    ignored = int(fields["SigIgn"], 16)
    assert not ignored & (1 << (signal.SIGTTIN - 1) | 1 << (signal.SIGTTOU - 1) | 1 << (signal.SIGTSTP - 1))


@pytest.mark.parametrize(
    ("body", "command", "problem"),
    [
        ("exit 3\n", None, "External editor exited with code 3; prompt unchanged"),
        ("kill -TERM $$\n", None, "External editor exited with SIGTERM; prompt unchanged"),
        ('rm "$last"\n', None, "The external editor left no file behind; prompt unchanged"),
        ("", "/nowhere/at/all --wait", "Failed to launch external editor: /nowhere/at/all --wait ("),
        ("", "vim 'open", "External editor command cannot be split (No closing quotation): vim 'open"),
        ("", "   ", "The external editor command is empty"),
    ],
)
async def test_an_editor_that_fails_leaves_the_text_and_says_why(
    tmp_path: Path, body: str, command: str | None, problem: str
) -> None:
    editor = _script(tmp_path, "edit", body)
    edited = await edit_externally(command or str(editor), "keep me")
    assert edited.text is None
    assert edited.problem is not None and edited.problem.startswith(problem), edited.problem


async def test_ctrl_g_edits_the_prompt_in_both_modes(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = _script(tmp_path, "edit", 'old=$(cat "$last")\nprintf "<%s> from outside\\n" "$old" > "$last"\n')
    failing = _script(tmp_path, "fail", "exit 4\n")
    monkeypatch.setenv("VISUAL", str(editor))
    for fullscreen in (False, True):
        await _edit_once(await repl_factory(fullscreen=fullscreen), "my draft", "<my draft> from outside")
    monkeypatch.setenv("VISUAL", str(failing))
    repl = await repl_factory()
    await repl.wait_idle_editor()
    repl.send("kept" + CTRL_G)
    await repl.wait_for("External editor exited with code 4; prompt unchanged")
    assert repl.mode.get_editor_text() == "kept"
    repl.send("\x15")
    await repl.quit()


async def test_a_projects_external_editor_waits_for_trust(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = _script(tmp_path, "ours", 'printf "from the user\'s editor" > "$last"\n')
    theirs = _script(tmp_path, "theirs", 'printf "from the project\'s editor" > "$last"\n')
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"externalEditor": str(ours)}))
    (tmp_path / "project" / ".pi").mkdir()
    (tmp_path / "project" / ".pi" / "settings.json").write_text(json.dumps({"externalEditor": str(theirs)}))
    monkeypatch.delenv("VISUAL", raising=False)
    withheld = "externalEditor choose programs that pi would run; ignored until you trust the project"
    for trusted, expected in ((False, "from the user's editor"), (True, "from the project's editor")):
        repl = await repl_factory(trust_project=trusted)
        warnings = [diagnostic.message for diagnostic in repl.mode.host.diagnostics]
        assert any(withheld in warning for warning in warnings) is not trusted, warnings
        await _edit_once(repl, "", expected)


async def _edit_once(repl: Any, typed: str, expected: str) -> None:
    """Ctrl+G after ``typed``: the editor holds ``expected`` once the editor program is done."""
    await repl.wait_idle_editor()
    repl.send(typed + CTRL_G)
    await repl.until(lambda: repl.mode.get_editor_text() == expected)
    repl.send("\x15")  # Ctrl+U: an empty editor for /quit
    await repl.until(lambda: repl.mode.get_editor_text() == "")
    await repl.quit()


async def test_ctrl_g_in_a_plugins_editor_dialog_edits_its_text_and_the_dialog_stays(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = _script(tmp_path, "edit", 'old=$(cat "$last")\nprintf "%s\\nstep two\\n" "$old" > "$last"\n')
    for fullscreen in (False, True):
        monkeypatch.setenv("VISUAL", str(editor))
        repl = await repl_factory(fullscreen=fullscreen)
        await repl.wait_idle_editor()
        edited = asyncio.ensure_future(repl.mode.ui.editor("Edit the plan", "step one"))
        await repl.in_dialog()
        repl.send(CTRL_G)
        await asyncio.sleep(0.3)
        assert not edited.done()  # the text came back into the dialog, which is still open
        repl.send("\r")
        assert await asyncio.wait_for(edited, 5) == "step one\nstep two"
        monkeypatch.setenv("VISUAL", str(_script(tmp_path, "fail", "exit 2\n")))
        edited = asyncio.ensure_future(repl.mode.ui.editor("Edit again", "as it was"))
        await repl.in_dialog()
        repl.send(CTRL_G)
        if fullscreen:
            await _drawn(repl, "External editor exited with code 2; prompt unchanged")
        else:
            await asyncio.sleep(0.3)
        repl.send("\r")
        assert await asyncio.wait_for(edited, 5) == "as it was"
        await repl.quit()


async def _drawn(repl: Any, text: str) -> None:
    """Until the fullscreen application has drawn ``text`` (it draws again after the editor)."""
    from tests.core.modes.interactive.test_fullscreen_dialogs import _screen

    app = repl.mode._app
    await repl.until(lambda: app.renderer._last_screen is not None and text in _screen(repl.mode))


async def test_the_editor_dialog_takes_the_external_editor_key_from_keybindings_json(
    repl_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "agent" / "keybindings.json").write_text(json.dumps({"app.editor.external": "alt+e"}))
    editor = _script(tmp_path, "edit", 'printf "rebound" > "$last"\n')
    monkeypatch.setenv("VISUAL", str(editor))
    repl = await repl_factory(fullscreen=True)
    await repl.wait_idle_editor()
    edited = asyncio.ensure_future(repl.mode.ui.editor("Edit the plan", "draft"))
    await repl.in_dialog()
    await _drawn(repl, "Alt+E external editor")
    repl.send(CTRL_G + "\x1be")  # Ctrl+G is no longer the key; Alt+E is
    await asyncio.sleep(0.3)
    repl.send("\r")
    assert await asyncio.wait_for(edited, 5) == "rebound"
    cancelled = asyncio.ensure_future(repl.mode.ui.editor("Edit again", "draft"))
    await repl.in_dialog()
    repl.send("\x1b")  # Esc alone still cancels, once no key follows it
    assert await asyncio.wait_for(cancelled, 5) is None
    await repl.quit()
