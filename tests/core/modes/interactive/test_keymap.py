"""``keybindings.json``: pi's action ids and key names, defaults kept for what is not listed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_core.modes.interactive.keymap import ACTION_IDS, ACTIONS, conflicts, default_keymap, load_keymap
from pi_core.modes.interactive.keys import extended_sequence
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
                "tui.editor.cursorUp": ["up", "alt+p"],
                "app.thinking.cycle": 5,
                "app.thinking.toggle": ["ctrl+t", "hyper+t"],
            }
        )
    )
    keymap = load_keymap(tmp_path)
    assert keymap.sequences("app.model.select") == [("c-k",), ("f3",)]
    assert keymap.sequences("app.session.tree") == [("f2",)]
    # A plain terminal cannot report shift+enter: only its extended reports reach it.
    assert keymap.sequences("tui.input.newLine") == [extended_sequence("shift+enter"), ("c-j",)]
    assert keymap.keys["app.model.cycleForward"] == ["ctrl+p"]  # not listed: the default stays
    assert keymap.keys["app.thinking.cycle"] == ["shift+tab"]
    problems = "\n".join(keymap.warnings)
    assert "cannot report shift+enter" in problems and "'app.nonsense'" in problems
    assert "'app.thinking.cycle' needs a key" in problems and "not a key: hyper+t" in problems
    assert keymap.keys["app.thinking.toggle"] == ["ctrl+t"]  # a malformed entry is skipped whole
    assert keymap.sequences("tui.editor.cursorUp") == [("up",), ("escape", "p")]
    # Ctrl+K was the editor's erase-to-the-end key: the clash is reported.
    assert "ctrl+k is a key of tui.editor.deleteToLineEnd and app.model.select" in problems


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


def test_every_action_of_pis_table_has_pis_default_keys() -> None:
    keymap = default_keymap()
    assert len(ACTIONS) == len(ACTION_IDS) == 90  # pi 1.6.0's docs/keybindings.md lists 90 ids
    assert keymap.keys["tui.editor.cursorWordLeft"] == ["alt+left", "ctrl+left", "alt+b"]
    assert keymap.keys["tui.altScreen.searchPrevious"] == ["shift+enter", "ctrl+shift+g"]
    assert keymap.keys["tui.altScreen.halfPageUp"] == [] and keymap.keys["app.exit"] == ["ctrl+d"]
    assert keymap.keys["app.tree.filter.cycleBackward"] == ["shift+ctrl+o"]
    assert conflicts(keymap) == []  # the keys pi's defaults share are shared on purpose
    assert keymap.sequences("tui.editor.undo") == [("c-_",)]  # what a terminal sends for Ctrl+-
    assert keymap.sequences("tui.editor.jumpBackward") == [("escape", "c-]")]
    assert keymap.sequences("tui.altScreen.top") == [("c-home",)]
    # prompt-toolkit calls xterm's Ctrl+Shift+Up c-s-down.
    assert keymap.sequences("tui.altScreen.previousPrompt") == [("c-s-down",), ("c-up",)]
    # A plain terminal sends Ctrl+Shift+F as Ctrl+F, which no other transcript key has ...
    assert keymap.sequences("tui.altScreen.search") == [("c-f",), extended_sequence("ctrl+shift+f")]
    # ... but Ctrl+Shift+G as Ctrl+G, searchNext's: only extended key reports tell them apart.
    reports = [extended_sequence("shift+enter"), extended_sequence("ctrl+shift+g")]
    assert keymap.sequences("tui.altScreen.searchPrevious") == reports
    assert keymap.sequences("app.model.cycleBackward") == [extended_sequence("shift+ctrl+p")]


def test_an_empty_list_disables_and_old_names_are_read(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text(
        json.dumps(
            {
                "$schema": "https://pi.dev/schemas/keybindings.schema.json",
                "tui.altScreen.pageUp": [],
                "expandTools": "f4",  # pi's old name of app.tools.expand
                "selectModel": "f5",
                "app.model.select": "f6",  # the current name wins over the old one
                "tui.editor.cursorLineStart": ["home", "home"],
            }
        )
    )
    keymap = load_keymap(tmp_path)
    assert keymap.warnings == []
    assert keymap.keys["tui.altScreen.pageUp"] == [] and keymap.sequences("tui.altScreen.pageUp") == []
    assert keymap.keys["app.tools.expand"] == ["f4"] and keymap.keys["app.model.select"] == ["f6"]
    assert keymap.keys["tui.editor.cursorLineStart"] == ["home"]
    assert keymap.configured == {
        "tui.altScreen.pageUp",
        "app.tools.expand",
        "app.model.select",
        "tui.editor.cursorLineStart",
    }


def test_clashes_are_reported_within_one_part_of_the_repl(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text(
        json.dumps(
            {
                "app.session.new": "f2",
                "app.session.fork": "F2",  # one key, spelt otherwise
                "app.tree.editLabel": "ctrl+l",  # /tree's own ctrl+l filter: a clash there
                "app.models.clearAll": "ctrl+d",  # ctrl+d quits at the editor: another part
                "app.session.resume": "shift+ctrl+n",  # sent as ctrl+n, which the editor leaves free
            }
        )
    )
    keymap = load_keymap(tmp_path)
    path = tmp_path / "keybindings.json"
    assert keymap.warnings == [
        f"{path}: f2 is a key of app.session.new and app.session.fork; only one of them gets it",
        f"{path}: ctrl+l is a key of app.tree.editLabel and app.tree.filter.labeledOnly; "
        "only one of them gets it",
    ]
    assert keymap.sequences("app.session.resume") == [("c-n",), extended_sequence("ctrl+shift+n")]
