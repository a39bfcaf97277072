"""Code blocks in answers take the theme's ``syntax*`` colours (and ``mdCodeBlock`` without a
language), from the console's theme when laid out, with no background of their own."""

from __future__ import annotations

import io

from pi_core.modes.interactive.code_blocks import ThemedMarkdown
from pi_core.modes.interactive.styles import styles_for
from pi_core.runtime.themes import Theme
from rich.console import Console


def _lay_out(markdown: str, theme: str) -> str:
    console = Console(file=io.StringIO(), width=60, force_terminal=True, color_system="truecolor")
    console.push_theme(styles_for(Theme(theme, mode="truecolor")).rich)
    console.print(ThemedMarkdown(markdown))
    return console.file.getvalue()  # type: ignore[attr-defined]


def _sgr(theme: str, role: str) -> str:
    red, green, blue = (int(Theme(theme).color(role)[i : i + 2], 16) for i in (1, 3, 5))
    return f"38;2;{red};{green};{blue}"


def test_a_python_block_is_coloured_by_the_syntax_roles_of_the_theme() -> None:
    source = "```python\ndef go():\n    return 'hi'  # note\n```\n"
    for theme in ("dark", "light"):
        out = _lay_out(source, theme)
        for role in ("syntaxKeyword", "syntaxFunction", "syntaxString", "syntaxComment"):
            assert _sgr(theme, role) in out, (theme, role)
        assert "48;2;" not in out  # no background: not monokai's


def test_a_block_without_a_language_is_in_the_code_block_colour() -> None:
    out = _lay_out("```\nplain words\n```\n", "dark")
    assert _sgr("dark", "mdCodeBlock") in out and "plain words" in out
