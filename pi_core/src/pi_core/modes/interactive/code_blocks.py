"""Code blocks in answers coloured by the theme's ``syntax*`` roles (pi's code highlighting).

:class:`ThemedMarkdown` is rich's ``Markdown`` whose fenced and indented code blocks take their
colours from the console's theme at the moment they are laid out (the ``pi.syntax*`` styles
:mod:`.styles` defines), so a theme change recolours them when the block is laid out again. A
block without a language is drawn in ``mdCodeBlock``, as pi does; there is no background.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markdown import CodeBlock, Markdown, MarkdownElement
from rich.syntax import ANSISyntaxTheme, Syntax

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.style import Style

#: Pygments token types (as tuples of their names) and the role that colours each, after the
#: classes pi's highlighter colours with these roles; a more specific type wins.
_TOKEN_ROLES: dict[tuple[str, ...], str] = {
    ("Text",): "text",
    ("Name",): "text",
    ("Comment",): "syntaxComment",
    ("Keyword",): "syntaxKeyword",
    ("Keyword", "Type"): "syntaxType",
    ("Keyword", "Constant"): "syntaxNumber",
    ("Name", "Builtin"): "syntaxType",
    ("Name", "Class"): "syntaxType",
    ("Name", "Function"): "syntaxFunction",
    ("Name", "Decorator"): "syntaxFunction",
    ("Name", "Variable"): "syntaxVariable",
    ("Name", "Attribute"): "syntaxVariable",
    ("Name", "Tag"): "syntaxKeyword",
    ("Name", "Constant"): "syntaxNumber",
    ("Literal", "String"): "syntaxString",
    ("Literal", "String", "Regex"): "syntaxString",
    ("Literal", "Number"): "syntaxNumber",
    ("Operator",): "syntaxOperator",
    ("Operator", "Word"): "syntaxKeyword",
    ("Punctuation",): "syntaxPunctuation",
    ("Generic", "Inserted"): "toolDiffAdded",
    ("Generic", "Deleted"): "toolDiffRemoved",
    ("Generic", "Emph"): "text",
    ("Generic", "Strong"): "text",
}


def syntax_theme(console: Console, plain: bool) -> ANSISyntaxTheme:
    """The console's current ``syntax*`` colours as a rich syntax theme (``plain``: one colour,
    ``mdCodeBlock``, for a block without a language)."""

    def style(role: str) -> Style:
        return console.get_style(f"pi.{role}", default="none")

    if plain:
        code = style("mdCodeBlock")
        return ANSISyntaxTheme({(): code, ("Text",): code})
    return ANSISyntaxTheme({token: style(role) for token, role in _TOKEN_ROLES.items()})


class ThemedCodeBlock(CodeBlock):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        plain = self.lexer_name in ("", "text")
        theme = syntax_theme(console, plain)
        yield Syntax(
            code, self.lexer_name, theme=theme, word_wrap=True, padding=1, background_color="default"
        )


class ThemedMarkdown(Markdown):
    """rich's Markdown with code blocks in the theme's colours."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "fence": ThemedCodeBlock,
        "code_block": ThemedCodeBlock,
    }
