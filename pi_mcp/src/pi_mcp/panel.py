"""The ``/mcp`` panel: one component in the editor's place (``ctx.ui.custom``) that shows, in turn,
menus that redraw while servers connect, a status screen, and the sign-in screen where the
address a remote browser was redirected to can be pasted.

The panel is drawn from rows (``render(width)``) and fed raw key bytes (``handle_input``), the
component shape core accepts from plugins, so it works the same in both TUI modes.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Menu rows shown at once; longer menus scroll around the highlighted row.
MAX_VISIBLE_ITEMS = 12
#: Width of the label column (labels are cut two columns short of it).
LABEL_COLUMN = 32


@dataclass
class MenuItem:
    value: str
    label: str
    description: str = ""


@dataclass
class Menu:
    title: str
    items: list[MenuItem] = field(default_factory=list)
    #: Muted lines under the title (what the server is, where it is configured).
    details: str = ""
    #: Lines in the error colour under the details (the last connection error).
    error: str = ""
    #: What an empty menu says instead of rows.
    empty: str = "Nothing to show."
    #: The value highlighted when the menu opens.
    selected: str | None = None
    confirm: str = "select"
    cancel: str = "back"


async def copy_text(text: str) -> tuple[str, str]:
    """Put ``text`` on the clipboard as ``/copy`` does (a clipboard program, and OSC 52 on the
    terminal); what to say about it, with its colour."""
    import sys

    from pi_core.modes.interactive.clipboard import copy_to_clipboard

    terminal = sys.__stdout__ if sys.__stdout__ is not None and sys.__stdout__.isatty() else None
    try:
        used = await copy_to_clipboard(text, terminal)
    except OSError as error:
        return "error", f"Could not copy: {error}"
    if not used:
        return "error", "No clipboard here: install xclip, xsel or wl-copy, or use a terminal with OSC 52"
    return "success", "Copied URL to clipboard"


def wrap(text: str, width: int) -> list[str]:
    """``text`` broken into rows of at most ``width`` characters (long words are cut)."""
    rows: list[str] = []
    for line in text.splitlines() or [""]:
        rows.extend(textwrap.wrap(line, max(1, width), break_long_words=True, break_on_hyphens=False) or [""])
    return rows


class McpPanel:
    """What ``ctx.ui.custom`` shows for ``/mcp``; the dialogue in :mod:`pi_mcp.manage` drives it."""

    def __init__(self, tui: Any, theme: Any, keys: Any) -> None:
        self.tui = tui
        self.theme = theme
        self.keys = keys
        self._draw: Callable[[int], list[str]] = lambda width: self._frame(
            width, "MCP servers", [self._text("Loading…", "muted", width)], ""
        )
        self._key: Callable[[str], None] | None = None
        #: The copy of a sign-in address under way (kept so it is not collected).
        self._copying: asyncio.Future[None] | None = None

    # --- what the host calls --------------------------------------------------------------------

    def render(self, width: int) -> list[str]:
        return self._draw(width)

    def handle_input(self, data: str) -> None:
        if self._key is not None:
            self._key(data)
        self.redraw()

    def redraw(self) -> None:
        self.tui.invalidate()

    # --- screens --------------------------------------------------------------------------------

    async def menu(self, build: Callable[[], Menu]) -> str | None:
        """Show the menu ``build`` makes (again on every redraw, so it follows the servers) until
        an item is chosen (its value) or the menu is left (``None``)."""
        chosen: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        selected: str | None = None
        offset = 0

        def finish(value: str | None) -> None:
            if not chosen.done():
                chosen.set_result(value)

        def current() -> tuple[Menu, int]:
            nonlocal selected
            menu = build()
            wanted = selected if selected is not None else menu.selected
            values = [item.value for item in menu.items]
            index = values.index(wanted) if wanted in values else 0
            selected = values[index] if values else None
            return menu, index

        def draw(width: int) -> list[str]:
            nonlocal offset
            menu, index = current()
            inner = width - 2
            body = [self._text(menu.details, "muted", width)] if menu.details else []
            if menu.error:
                body.append(self._text(menu.error, "error", width))
            body.append([""])
            if not menu.items:
                body.append(self._text(menu.empty, "muted", width))
                return self._frame(width, menu.title, body, self._hint("tui.select.cancel", menu.cancel))
            shown = min(len(menu.items), MAX_VISIBLE_ITEMS)
            offset = max(0, min(index - shown // 2, len(menu.items) - shown))
            rows = [
                self._item(item, i == index, inner)
                for i, item in enumerate(menu.items[offset : offset + shown], start=offset)
            ]
            if shown < len(menu.items):
                rows.append(self.theme.fg("dim", f"  ({index + 1}/{len(menu.items)})"))
            body.append(rows)
            footer = (
                f"{self._hint('tui.select.confirm', menu.confirm)} • "
                f"{self._hint('tui.select.cancel', menu.cancel)}"
            )
            return self._frame(width, menu.title, body, footer)

        def key(data: str) -> None:
            nonlocal selected
            menu, index = current()
            values = [item.value for item in menu.items]
            if self.keys.matches(data, "tui.select.cancel"):
                finish(None)
            elif not values:
                return
            elif self.keys.matches(data, "tui.select.confirm"):
                finish(values[index])
            elif self.keys.matches(data, "tui.select.up"):
                selected = values[(index - 1) % len(values)]
            elif self.keys.matches(data, "tui.select.down"):
                selected = values[(index + 1) % len(values)]
            elif self.keys.matches(data, "tui.select.pageUp"):
                selected = values[max(0, index - MAX_VISIBLE_ITEMS)]
            elif self.keys.matches(data, "tui.select.pageDown"):
                selected = values[min(len(values) - 1, index + MAX_VISIBLE_ITEMS)]

        self._show(draw, key)
        return await chosen

    def status(self, title: str, message: str, on_cancel: Callable[[], None] | None = None) -> None:
        """A screen that only says what is going on; with ``on_cancel``, Esc calls it."""
        footer = self._hint("tui.select.cancel", "cancel") if on_cancel is not None else ""

        def draw(width: int) -> list[str]:
            return self._frame(width, title, [[""], self._text(message, "muted", width)], footer)

        def key(data: str) -> None:
            if on_cancel is not None and self.keys.matches(data, "tui.select.cancel"):
                on_cancel()

        self._show(draw, key)

    async def redirect_url(self, title: str, url: str, problem: str = "") -> str | None:
        """The sign-in screen: the authorization page's address and a field for the address the
        browser ended up on (``problem``: why the last one did not fit). The typed address, or
        ``None`` on Esc."""
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        typed = ""
        #: How the last copy went (colour, text); the key hint until then.
        copied: tuple[str, str] | None = None

        async def copy() -> None:
            nonlocal copied
            copied = await copy_text(url)
            self.redraw()

        def finish(value: str | None) -> None:
            if not answer.done():
                answer.set_result(value)

        def draw(width: int) -> list[str]:
            cursor = "\x1b[7m \x1b[27m"
            field_row = "> " + typed[-max(1, width - 4) :] + cursor
            body = [
                [""],
                self._text("Approve access in your browser. If it did not open, visit:", "muted", width),
                self._text(url, "accent", width),
                self._text(copied[1], copied[0], width)
                if copied is not None
                else self._text(self._hint("app.message.copy", "to copy"), "dim", width),
                [""],
                self._text(
                    "Signing in on a different machine? Paste the address its browser ended up at:",
                    "muted",
                    width,
                ),
                [field_row],
            ]
            if problem:
                body.append(self._text(problem, "error", width))
            footer = (
                f"{self._hint('tui.select.confirm', 'submit')} • {self._hint('tui.select.cancel', 'cancel')}"
            )
            return self._frame(width, title, body, footer)

        def key(data: str) -> None:
            nonlocal typed
            if self.keys.matches(data, "tui.select.confirm"):
                if typed.strip():
                    finish(typed.strip())
            elif self.keys.matches(data, "tui.select.cancel"):
                finish(None)
            elif self.keys.matches(data, "app.message.copy"):
                self._copying = asyncio.ensure_future(copy())
            elif data in ("\x7f", "\x08"):
                typed = typed[:-1]
            elif data == "\x15":  # Ctrl+U empties the field
                typed = ""
            elif data and all(ch.isprintable() for ch in data):
                typed += data

        self._show(draw, key)
        return await answer

    # --- drawing --------------------------------------------------------------------------------

    def _show(self, draw: Callable[[int], list[str]], key: Callable[[str], None]) -> None:
        self._draw = draw
        self._key = key
        self.redraw()

    def _frame(self, width: int, title: str, body: list[list[str]], footer: str) -> list[str]:
        border = self.theme.fg("accent", "─" * max(width, 1))
        rows = [border, " " + self.theme.fg("accent", self.theme.bold(title[: max(width - 2, 1)]))]
        for block in body:
            rows.extend(block)
        if footer:
            rows.extend(["", " " + self.theme.fg("dim", footer[: max(width - 2, 1)])])
        rows.append(border)
        return rows

    def _text(self, text: str, colour: str, width: int) -> list[str]:
        return [" " + self.theme.fg(colour, row) for row in wrap(text, width - 2)]

    def _item(self, item: MenuItem, selected: bool, width: int) -> str:
        prefix = "→ " if selected else "  "
        label = item.label[: LABEL_COLUMN - 2]
        if not item.description or width <= 40:
            row = prefix + item.label[: max(1, width - 2)]
            return self.theme.fg("accent", row) if selected else row
        gap = " " * max(1, LABEL_COLUMN - len(label))
        room = width - len(prefix) - len(label) - len(gap) - 1
        description = " ".join(item.description.split())[: max(room, 0)]
        if selected:
            return self.theme.fg("accent", prefix + label + gap + description)
        return prefix + label + self.theme.fg("muted", gap + description)

    def _hint(self, action: str, what: str) -> str:
        keys = "/".join(self.keys.get_keys(action)) or action
        return f"{keys} {what}" if what else keys
