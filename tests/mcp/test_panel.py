"""The ``/mcp`` panel's screens driven by the raw key bytes the REPL hands a component, with core's
key table and theme (the tmux tests in tests/e2e/test_mcp_panel_tmux.py show it in the real pi)."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from pi_core.modes.interactive.custom import ComponentKeys, TerminalSize
from pi_core.runtime.ui import Theme
from pi_mcp.panel import McpPanel, Menu, MenuItem

DOWN, UP, ENTER, ESC, CTRL_X = "\x1b[B", "\x1b[A", "\r", "\x1b", "\x18"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def plain(panel: McpPanel, width: int = 80) -> list[str]:
    return [SGR.sub("", row) for row in panel.render(width)]


def make_panel() -> tuple[McpPanel, list[int]]:
    redraws: list[int] = []
    tui = TerminalSize(lambda: (80, 24), lambda: redraws.append(1))
    return McpPanel(tui, Theme(), ComponentKeys()), redraws


async def test_a_menu_moves_wraps_and_follows_its_items() -> None:
    panel, redraws = make_panel()
    items = [MenuItem("a", "alpha", "first"), MenuItem("b", "beta"), MenuItem("c", "gamma", "third")]
    menu = Menu(title="Things", items=items, details="about them", error="it broke", confirm="pick")
    chosen = asyncio.ensure_future(panel.menu(lambda: menu))
    await asyncio.sleep(0)
    rows = plain(panel)
    assert rows[0] == "─" * 80 and rows[-1] == "─" * 80
    assert rows[1:4] == [" Things", " about them", " it broke"]
    assert rows[5].startswith("→ alpha") and rows[5][34:] == "first"
    assert rows[6] == "  beta"
    assert rows[-2] == " enter pick • escape/ctrl+c back"
    panel.handle_input(UP)  # wraps to the last row
    assert plain(panel)[7].startswith("→ gamma")
    # The items change under the highlight (a server moved up): it stays on the same value.
    menu.items = [items[2], items[0], items[1]]
    assert plain(panel)[5].startswith("→ gamma")
    panel.handle_input(DOWN)
    panel.handle_input(ENTER)
    assert await chosen == "a"
    assert redraws


async def test_escape_leaves_and_an_empty_menu_says_so() -> None:
    panel, _ = make_panel()
    left = asyncio.ensure_future(
        panel.menu(lambda: Menu(title="None", empty="Nothing here.", cancel="close"))
    )
    await asyncio.sleep(0)
    rows = plain(panel)
    assert " Nothing here." in rows and rows[-2] == " escape/ctrl+c close"
    panel.handle_input(ENTER)  # nothing to choose
    assert not left.done()
    panel.handle_input(ESC)
    assert await left is None


async def test_long_menus_scroll_and_long_text_wraps() -> None:
    panel, _ = make_panel()
    items = [MenuItem(str(i), f"item{i}") for i in range(30)]
    chosen = asyncio.ensure_future(panel.menu(lambda: Menu(title="T", items=items, details="x" * 100)))
    await asyncio.sleep(0)
    rows = plain(panel, 40)
    assert rows[2:4] == [" " + "x" * 38, " " + "x" * 38]
    assert sum(row.startswith(("→ item", "  item")) for row in rows) == 12
    assert "  (1/30)" in rows
    for _ in range(20):
        panel.handle_input(DOWN)
    rows = plain(panel, 40)
    assert "→ item20" in rows and "  (21/30)" in rows and "  item0" not in rows
    panel.handle_input(ENTER)
    assert await chosen == "20"


async def test_the_sign_in_screen_takes_a_typed_address() -> None:
    panel, _ = make_panel()
    answer = asyncio.ensure_future(panel.redirect_url("Sign in to s", "http://as/authorize?x=1", "bad one"))
    await asyncio.sleep(0)
    rows = plain(panel)
    assert " http://as/authorize?x=1" in rows and " bad one" in rows
    panel.handle_input(ENTER)  # nothing typed yet
    assert not answer.done()
    panel.handle_input("http://127.0.0.1:5/callback?code=1x")
    panel.handle_input("\x7f")
    assert "> http://127.0.0.1:5/callback?code=1 " in plain(panel)
    panel.handle_input(ENTER)
    assert await answer == "http://127.0.0.1:5/callback?code=1"
    cancelled = asyncio.ensure_future(panel.redirect_url("Sign in to s", "http://as/authorize"))
    await asyncio.sleep(0)
    panel.handle_input(ESC)
    assert await cancelled is None


async def test_ctrl_x_copies_the_sign_in_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    panel, _ = make_panel()
    address = "http://as/authorize?client_id=pi&state=" + "s" * 90
    answer = asyncio.ensure_future(panel.redirect_url("Sign in to s", address))
    await asyncio.sleep(0)
    assert " ctrl+x to copy" in plain(panel)
    # No clipboard program and no terminal: it says so where the hint was.
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    for name in ("WAYLAND_DISPLAY", "DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    panel.handle_input(CTRL_X)
    await _copied(panel)
    assert any(row.startswith(" No clipboard here") for row in plain(panel, 200))
    # pbcopy (first on the PATH) gets the whole address, the field is left as it was.
    clipboard = tmp_path / "clipboard.txt"
    program = tmp_path / "bin" / "pbcopy"
    program.parent.mkdir()
    program.write_text(f"#!/bin/sh\ncat > {clipboard}\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{program.parent}{os.pathsep}/usr/bin:/bin")
    panel.handle_input(CTRL_X)
    await _copied(panel)
    assert clipboard.read_text() == address
    assert " Copied URL to clipboard" in plain(panel)
    panel.handle_input(ESC)
    assert await answer is None


async def _copied(panel: McpPanel) -> None:
    copying = panel._copying
    assert copying is not None
    await asyncio.wait_for(copying, 10)
