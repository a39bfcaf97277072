"""The theme as the REPL draws with it: rich styles and prompt-toolkit styles named by pi's roles.

Everything the REPL prints names a role (``pi.warning``, ``pi.toolOutput``, …), never a colour,
so a :class:`ReplStyles` made once per theme turns the roles into colours: rich resolves the
names when it lays a block out (the fullscreen transcript lays its blocks out again after a
theme change, so old output takes the new colours too), and prompt-toolkit's classes
(``class:footer``, …) are looked up in the style made here. Markdown takes the ``md*`` roles.
On a 256-colour terminal each colour is already its palette entry (pi's approximation), so
neither library converts it again.
"""

from __future__ import annotations

import weakref
from typing import Any

from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style as ToolkitStyle
from rich.style import Style
from rich.theme import Theme as RichTheme

from pi_core.runtime.colors import Color
from pi_core.runtime.themes import TOKENS, Theme

#: The prefix of the rich style names of roles: ``pi.accent`` is the ``accent`` role.
PREFIX = "pi."

#: rich's markdown parts and the role (and attributes) each takes, as pi colours its markdown.
_MARKDOWN = {
    "markdown.h1": ("mdHeading", "bold underline"),
    "markdown.h2": ("mdHeading", "bold"),
    "markdown.h3": ("mdHeading", "bold"),
    "markdown.h4": ("mdHeading", "bold"),
    "markdown.h5": ("mdHeading", "bold"),
    "markdown.h6": ("mdHeading", "bold"),
    "markdown.code": ("mdCode", ""),
    "markdown.code_block": ("mdCodeBlock", ""),
    "markdown.block_quote": ("mdQuote", "italic"),
    "markdown.hr": ("mdHr", ""),
    "markdown.item.bullet": ("mdListBullet", ""),
    "markdown.item.number": ("mdListBullet", ""),
    "markdown.link": ("mdLink", "underline"),
    "markdown.link_url": ("mdLinkUrl", ""),
    "markdown.table.border": ("border", ""),
}
#: Roles with attributes the REPL uses as one name.
_COMBINED = {
    "pi.thinking": ("thinkingText", "italic"),
    "pi.userPrompt": ("userMessageText", "bold"),
    "pi.toolName": ("toolTitle", "bold"),
    "pi.title": ("text", "bold"),
    "pi.warning.bold": ("warning", "bold"),
    "pi.hint": ("dim", "italic"),
}


def rich_colour(colour: Color | None) -> str:
    """A colour as rich names it (``default``: the terminal's own)."""
    if colour is None:
        return "default"
    return f"color({colour.index})" if colour.index is not None else colour.hex


def toolkit_colour(colour: Color | None) -> str:
    """A colour as prompt-toolkit names it (``""``: the terminal's own, so nothing is set)."""
    if colour is None:
        return ""
    return colour.hex if colour.index is None or colour.index >= 16 else _ANSI_NAMES[colour.index]


_ANSI_NAMES = (
    "ansiblack", "ansired", "ansigreen", "ansiyellow", "ansiblue", "ansimagenta", "ansicyan", "ansigray",
    "ansibrightblack", "ansibrightred", "ansibrightgreen", "ansibrightyellow", "ansibrightblue",
    "ansibrightmagenta", "ansibrightcyan", "ansiwhite",
)  # fmt: skip


class ReplStyles:
    """One theme's styles for rich (``rich``), prompt-toolkit (``toolkit``, and ``fg``/``bg`` per
    role for fragments built by hand) and the colour depth both draw with."""

    def __init__(self, theme: Theme) -> None:
        self.theme = theme
        shown = {role: theme.shown(role) for role in TOKENS}
        styles: dict[str, Style] = {}
        faint: frozenset[str] = theme.dim  # roles drawn faint (SGR 2) over their colour
        for role, colour in shown.items():
            if theme.slot(role) == "background":
                styles[PREFIX + role] = Style(bgcolor=rich_colour(colour))
            else:
                styles[PREFIX + role] = Style(color=rich_colour(colour), dim=role in faint or None)
        for name, (role, attributes) in {**_MARKDOWN, **_COMBINED}.items():
            extra = " dim" if role in faint else ""
            styles[name] = Style.parse(f"{attributes}{extra} {rich_colour(shown[role])}".strip())
        self.rich = RichTheme(styles, inherit=True)
        self.fg = {
            role: " ".join(part for part in (_toolkit("", colour), "dim" if role in faint else "") if part)
            for role, colour in shown.items()
        }
        self.bg = {role: _toolkit("bg:", colour) for role, colour in shown.items()}
        self.toolkit = ToolkitStyle.from_dict(
            {
                "footer": self.fg["dim"],
                "status": self.fg["dim"],
                "warning": self.fg["warning"],
                "working": self.fg["muted"],
                "prompt": f"bold {self.fg['accent']}",
                "search": f"bold {self.fg['accent']}",
                "separator": self.fg["borderMuted"],
                "overlay": self.bg["toolPendingBg"],
                # the list picker, as pi's select: the highlighted row in the accent colour,
                # the keys under it dim with muted words
                "title": f"bold {self.fg['accent']}",
                "picker.selected": self.fg["accent"],
                "picker.rule": self.fg["border"],
                "picker.key": self.fg["dim"],
                "picker.hint": self.fg["muted"],
                "picker.counter": self.fg["muted"],
                "selected": f"noreverse bold {self.fg['accent']} {self.bg['selectedBg']}",
                "query": f"bold {self.fg['warning']}",
                # the regular mode's toolbar: plain rows under the editor, as pi's footer
                "bottom-toolbar": f"noreverse {self.fg['text']}",
                "bottom-toolbar.text": "",
            }
        )
        self.truecolor = theme.mode == "truecolor"
        self.color_system: Any = "truecolor" if self.truecolor else "256"
        self.color_depth = ColorDepth.TRUE_COLOR if self.truecolor else ColorDepth.DEPTH_8_BIT

    def thinking_border(self, level: str) -> str:
        """The prompt-toolkit colour of a thinking level (pi colours the editor's edge by it)."""
        return self.fg.get(f"thinking{level[:1].upper()}{level[1:]}", self.fg["thinkingOff"])


def _toolkit(prefix: str, colour: Color | None) -> str:
    named = toolkit_colour(colour)
    return f"{prefix}{named}" if named else ""


_MADE: weakref.WeakKeyDictionary[Theme, ReplStyles] = weakref.WeakKeyDictionary()


def styles_for(theme: Theme) -> ReplStyles:
    """The styles of ``theme``, made the first time it is drawn with and kept while it lives."""
    made = _MADE.get(theme)
    if made is None:
        made = _MADE[theme] = ReplStyles(theme)
    return made
