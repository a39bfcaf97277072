"""Text that plugins, the user's ``!`` commands and errors put on screen carries no terminal
control sequences, in both TUI modes — a plugin's question often quotes the model (the command a
permission gate asks about) — and none of it is read as rich markup."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer
from rich.console import Console

MODES = pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])

EVIL = "\x1b]0;EVIL-TITLE\x07\x1b[2J\x9b1;1H"

EXTENSION = """
from pi_core import hookimpl


async def fail(args, ctx):
    raise ValueError("bad \\x1b]0;EVIL-TITLE\\x07\\x1b[2J\\x9b1;1H thing")


@hookimpl
def register_commands(register):
    register("fail", fail, description="raises")
"""


def _clean(out: str) -> None:
    for leaked in ("EVIL-TITLE", "\x1b]", "\x1b[2J", "\x9b", "1;1H"):
        assert leaked not in out, (leaked, out)


@MODES
async def test_notify_dialogs_and_picks_show_plugin_text_without_escapes(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    ui = repl.mode.ui
    ui.notify(f"NOTE {EVIL}[/x] " + ui.theme.fg("success", "coloured") + " end")
    await repl.wait_for("[/x] coloured end")
    shown: list[tuple[str, list[str]]] = []  # what the lists are drawn with
    show_picker = repl.mode.show_picker

    async def spy(title: str, rows: list[str], **options: Any) -> int | None:
        shown.append((title, list(rows)))
        return await show_picker(title, rows, **options)

    repl.mode.show_picker = spy  # type: ignore[method-assign]
    asked = asyncio.ensure_future(ui.confirm(f"Run{EVIL} this?", f"rm -rf [/tmp]{EVIL} now", timeout=300))
    assert await asyncio.wait_for(asked, 10) is False
    # pi's Yes/No list, the message under the title
    assert shown[-1] == ("Run this?\nrm -rf [/tmp] now", ["Yes", "No"])
    option = f"Yes{EVIL}"
    picked = asyncio.ensure_future(ui.select(f"Allow{EVIL}?", [option, "No"]))
    await repl.in_dialog()
    repl.send("\r")
    assert await asyncio.wait_for(picked, 10) == option  # the plugin gets its own string back
    assert shown[-1] == ("Allow?", ["Yes", "No"])
    typed = asyncio.ensure_future(ui.input(f"Name{EVIL}", f"hint{EVIL}", timeout=300))
    assert await asyncio.wait_for(typed, 10) is None
    await repl.wait_idle_editor()
    _clean(repl.output)
    await repl.quit()


@MODES
async def test_user_bash_output_and_plugin_errors_without_escapes(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    plugin = tmp_path / "failing.py"
    plugin.write_text(EXTENSION)
    repl = await repl_factory(extensions=(str(plugin),), fullscreen=fullscreen)
    await repl.submit(r"!printf 'before\033]0;EVIL-TITLE\007\033[2Jafter\n'")
    await repl.wait_for("beforeafter")
    await repl.idle()
    await repl.submit("/fail")
    await repl.wait_for("bad  thing")
    await repl.idle()
    _clean(repl.output.split("'\n", 1)[1])  # what the command printed (not the line typed)
    await repl.submit("/name [/x] name")
    await repl.wait_for("Session name: [/x] name")
    await repl.submit("/session")
    await repl.wait_for("Messages")
    assert "Error" not in repl.output.split("/session")[-1]
    await repl.quit()


async def test_set_title_cannot_carry_other_sequences(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.wait_idle_editor()
    terminal = io.StringIO()
    repl.mode.console = Console(file=terminal, force_terminal=True)
    repl.mode.ui.set_title("pi\x07\x1b[2J\x1b]0;EVIL-TITLE\x07 work\nmore")
    assert terminal.getvalue() == "\x1b]0;pi work more\x07"
