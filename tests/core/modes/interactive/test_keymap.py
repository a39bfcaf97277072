"""``keybindings.json``: pi's action ids and key names, defaults kept for what is not listed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_core.modes.interactive.keymap import load_keymap
from pi_core.testing import LoopbackLLMServer, text_turn


def test_defaults_without_a_file(tmp_path: Path) -> None:
    keymap = load_keymap(tmp_path)
    assert keymap.keys["app.model.select"] == ["ctrl+l"] and keymap.warnings == []
    assert keymap.sequences("app.message.followUp") == [("escape", "enter")]
    assert keymap.sequences("app.session.tree") == []


def test_the_file_overrides_listed_actions_and_reports_problems(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text(
        json.dumps(
            {
                "app.model.select": ["ctrl+k", "f3"],
                "app.session.tree": "f2",
                "tui.input.newLine": ["shift+enter", "ctrl+j"],
                "app.nonsense": "ctrl+x",
                "tui.editor.cursorUp": ["up", "ctrl+p"],  # prompt-toolkit's own editing keys: skipped
                "app.thinking.cycle": 5,
            }
        )
    )
    keymap = load_keymap(tmp_path)
    assert keymap.sequences("app.model.select") == [("c-k",), ("f3",)]
    assert keymap.sequences("app.session.tree") == [("f2",)]
    assert keymap.sequences("tui.input.newLine") == [("c-j",)]  # shift+enter cannot be reported
    assert keymap.keys["app.model.cycleForward"] == ["ctrl+p"]  # not listed: the default stays
    assert keymap.keys["app.thinking.cycle"] == ["shift+tab"]
    problems = "\n".join(keymap.warnings)
    assert "cannot report shift+enter" in problems and "'app.nonsense'" in problems
    assert "'app.thinking.cycle' needs a key" in problems and "cursorUp" not in problems


def test_a_broken_file_keeps_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text("{not json")
    keymap = load_keymap(tmp_path)
    assert keymap.keys["app.model.select"] == ["ctrl+l"]
    assert "the default keys apply" in keymap.warnings[0]


async def test_rebound_keys_work_in_the_repl_and_reload_rereads_them(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer
) -> None:
    pi_llm_server.add(text_turn("an answer"))
    repl = await repl_factory()
    (repl.agent / "keybindings.json").write_text(json.dumps({"app.model.select": "ctrl+k"}))
    await repl.submit("/reload")
    await repl.wait_for("Reloaded settings")
    await repl.submit("/hotkeys")
    await repl.wait_for("ctrl+k")
    await repl.wait_idle_editor()
    repl.send("\x0b")  # Ctrl+K now opens the model list
    await repl.in_dialog()
    repl.send("other\r")
    await repl.wait_for("Model: loop/other-model")
    assert await repl.quit() == 0


def test_the_selectors_ids_are_kept_for_them(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text(
        json.dumps(
            {"app.session.toggleSort": "ctrl+o", "app.models.save": ["ctrl+w"], "app.tree.editLabel": "f2"}
        )
    )
    keymap = load_keymap(tmp_path)
    assert keymap.warnings == []
    assert keymap.keys["app.session.toggleSort"] == ["ctrl+o"] and keymap.keys["app.models.save"] == [
        "ctrl+w"
    ]
    assert keymap.keys["app.tree.editLabel"] == ["f2"]
