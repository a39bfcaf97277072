"""REPL renderers for the built-in tools, returning rich renderables.

Signatures follow ``AgentTool``: ``render_call(args, ctx)`` and ``render_result(result, options, ctx)``
where ``options`` carries ``expanded`` and ``isPartial`` (attribute or key). rich is imported inside
each function so that loading the plugin never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_core.agent.tools import AgentToolResult
    from rich.console import RenderableType
    from rich.text import Text

_COLLAPSED_LINES = {"read": 10, "grep": 15, "find": 20, "ls": 20, "write": 10}
_BASH_PREVIEW_LINES = 5
#: What a cut preview says after how much it left out: the key that shows it all.
_EXPAND_HINT = "Ctrl+O expands"


def _option(options: Any, name: str, default: bool = False) -> bool:
    if isinstance(options, dict):
        return bool(options.get(name, default))
    return bool(getattr(options, name, default))


def _arg(args: Any, name: str) -> Any:
    return args.get(name) if isinstance(args, dict) else getattr(args, name, None)


def _result_text(result: AgentToolResult) -> str:
    parts: list[str] = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "image":
            parts.append(f"[image {block.mime_type}]")
    return "\n".join(parts)


def _title(name: str, rest: str = "", style: str = "cyan") -> Text:
    from rich.text import Text

    text = Text()
    text.append(name, style="bold")
    if rest:
        text.append(" ")
        text.append(rest, style=style)
    return text


def _head(output: str, max_lines: int, expanded: bool) -> Text:
    from rich.text import Text

    lines = output.rstrip("\n").split("\n") if output else []
    shown = lines if expanded else lines[:max_lines]
    text = Text("\n".join(shown), style="dim")
    hidden = len(lines) - len(shown)
    if hidden > 0:
        text.append(f"\n... ({hidden} more lines, {_EXPAND_HINT})", style="italic dim")
    return text


def render_read_call(args: Any, ctx: Any = None) -> RenderableType:
    path = _arg(args, "path") or "..."
    offset, limit = _arg(args, "offset"), _arg(args, "limit")
    text = _title("read", str(path))
    if offset is not None or limit is not None:
        start = int(offset or 1)
        end = f"-{start + int(limit) - 1}" if limit is not None else ""
        text.append(f":{start}{end}", style="yellow")
    return text


def render_read_result(result: AgentToolResult, options: Any = None, ctx: Any = None) -> RenderableType:
    return _head(_result_text(result), _COLLAPSED_LINES["read"], _option(options, "expanded"))


def render_bash_call(args: Any, ctx: Any = None) -> RenderableType:
    text = _title(f"$ {_arg(args, 'command') or '...'}")
    timeout = _arg(args, "timeout")
    if timeout:
        text.append(f" (timeout {timeout}s)", style="dim")
    return text


def render_bash_result(result: AgentToolResult, options: Any = None, ctx: Any = None) -> RenderableType:
    from rich.text import Text

    output = _result_text(result).strip()
    lines = output.split("\n") if output else []
    text = Text()
    if _option(options, "expanded") or len(lines) <= _BASH_PREVIEW_LINES:
        text.append("\n".join(lines), style="dim")
    else:
        text.append(
            f"... ({len(lines) - _BASH_PREVIEW_LINES} earlier lines, {_EXPAND_HINT})\n", style="italic dim"
        )
        text.append("\n".join(lines[-_BASH_PREVIEW_LINES:]), style="dim")
    details = result.details if isinstance(result.details, dict) else {}
    truncation = details.get("truncation") or {}
    warnings = []
    if details.get("fullOutputPath"):
        warnings.append(f"Full output: {details['fullOutputPath']}")
    if truncation.get("truncated"):
        if truncation.get("truncatedBy") == "lines":
            warnings.append(
                f"Truncated: showing {truncation['outputLines']} of {truncation['totalLines']} lines"
            )
        else:
            warnings.append(f"Truncated: {truncation['outputLines']} lines shown")
    if warnings:
        text.append(f"\n[{'. '.join(warnings)}]", style="yellow")
    return text


def render_edit_call(args: Any, ctx: Any = None) -> RenderableType:
    return _title("edit", str(_arg(args, "path") or "..."))


def render_edit_result(result: AgentToolResult, options: Any = None, ctx: Any = None) -> RenderableType:
    details = result.details if isinstance(result.details, dict) else {}
    diff = details.get("diff")
    if not isinstance(diff, str):
        from rich.text import Text

        return Text(_result_text(result), style="red" if _option(options, "isError") else "dim")
    return render_diff(diff)


def render_diff(diff: str) -> Text:
    """pi's numbered diff coloured: removed lines red, added lines green, context dim."""
    from rich.text import Text

    text = Text()
    for index, line in enumerate(diff.split("\n")):
        if index:
            text.append("\n")
        style = {"+": "green", "-": "red"}.get(line[:1], "dim")
        text.append(line, style=style)
    return text


def render_write_call(args: Any, ctx: Any = None) -> RenderableType:
    from rich.console import Group
    from rich.syntax import Syntax

    path = str(_arg(args, "path") or "...")
    content = _arg(args, "content")
    title = _title("write", path)
    if not isinstance(content, str) or not content:
        return title
    lines = content.split("\n")
    preview = "\n".join(lines[: _COLLAPSED_LINES["write"]])
    lexer = Syntax.guess_lexer(path, code=preview)
    parts: list[RenderableType] = [
        title,
        Syntax(preview, lexer, theme="ansi_dark", background_color="default"),
    ]
    if len(lines) > _COLLAPSED_LINES["write"]:
        parts.append(_head("", 0, False).append(f"... ({len(lines) - 10} more lines)", style="italic dim"))
    return Group(*parts)


def render_write_result(result: AgentToolResult, options: Any = None, ctx: Any = None) -> RenderableType:
    from rich.text import Text

    return Text(_result_text(result), style="red" if _option(options, "isError") else "dim")


def render_grep_call(args: Any, ctx: Any = None) -> RenderableType:
    text = _title("grep", f"/{_arg(args, 'pattern') or ''}/")
    text.append(f" in {_arg(args, 'path') or '.'}", style="dim")
    if _arg(args, "glob"):
        text.append(f" ({_arg(args, 'glob')})", style="dim")
    if _arg(args, "limit") is not None:
        text.append(f" limit {_arg(args, 'limit')}", style="dim")
    return text


def render_find_call(args: Any, ctx: Any = None) -> RenderableType:
    text = _title("find", str(_arg(args, "pattern") or ""))
    text.append(f" in {_arg(args, 'path') or '.'}", style="dim")
    if _arg(args, "limit") is not None:
        text.append(f" (limit {_arg(args, 'limit')})", style="dim")
    return text


def render_ls_call(args: Any, ctx: Any = None) -> RenderableType:
    text = _title("ls", str(_arg(args, "path") or "."))
    if _arg(args, "limit") is not None:
        text.append(f" (limit {_arg(args, 'limit')})", style="dim")
    return text


def render_search_result(result: AgentToolResult, options: Any = None, ctx: Any = None) -> RenderableType:
    return _head(_result_text(result), _COLLAPSED_LINES["find"], _option(options, "expanded"))
