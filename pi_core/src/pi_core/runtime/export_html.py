"""Export a session to one self-contained HTML file (``pi --export``, RPC ``export_html``).

The page shows the active branch (root → leaf) of the session tree: user and assistant messages,
thinking, tool calls with their results, user bash runs, custom messages and summaries. It needs
no network and no script: styles are inline, every text is escaped, and the raw session data is
embedded as JSON (``<script type="application/json" id="pi-session">``) for tools that want it.
Works on raw JSONL entries, so any session file pi can read exports, unknown entry types included.

The page is drawn in a theme's colours, as pi 1.6.0's export is: a ``:root`` block declares every
role as ``--<role>`` (``#rrggbb``; a role left to the terminal takes its reported default colour
or the usual guess, a faint one its colour mixed toward the background) and the page, card and
info backgrounds — the theme file's ``export`` colours, or for what it leaves out colours derived
from ``userMessageBg`` by pi's rule. ``/export`` uses the theme the REPL draws with; RPC's
``export_html`` the ``theme`` setting when it names a theme, else ``system``; ``pi --export``
the ``system`` theme of a terminal that reported nothing, as pi's do.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_core.runtime.themes import Theme

_CSS = """
body{margin:0;background:var(--body-bg);color:var(--text);
font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
main{max-width:960px;margin:0 auto;padding:24px}
header{border-bottom:1px solid var(--borderMuted);margin-bottom:16px}
h1{font-size:18px;margin:0 0 4px;color:var(--mdHeading)}
.meta{color:var(--dim);font-size:12px}
.entry{border-radius:6px;margin:12px 0;padding:10px 14px;background:var(--container-bg)}
.user{background:var(--userMessageBg);color:var(--userMessageText)}
.toolResult{background:var(--toolSuccessBg);color:var(--toolOutput);border-left:3px solid var(--success)}
.toolResult.error{background:var(--toolErrorBg);border-left-color:var(--error)}
.bashExecution{border-left:3px solid var(--bashMode)}
.custom,.summary{background:var(--customMessageBg);color:var(--customMessageText);
border-left:3px solid var(--customMessageLabel)}
.system{background:var(--info-bg);border-left:3px solid var(--borderAccent)}
.role{color:var(--muted);font-size:12px;text-transform:uppercase;margin-bottom:4px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0}
.thinking{color:var(--thinkingText);font-style:italic}
.toolCall{color:var(--toolTitle)}
.error-text{color:var(--error)}
img{max-width:100%}
details summary{cursor:pointer;color:var(--muted)}
"""


def theme_variables(theme: Theme | None = None) -> dict[str, str]:
    """The CSS variables of the page for ``theme`` (default: ``system`` as the terminal left it):
    ``--<role>`` for every role, then ``--exportPageBg``/``CardBg``/``InfoBg`` and the
    ``--body-bg``/``--container-bg``/``--info-bg`` the page is drawn with (the same three)."""
    from pi_core.runtime import themes

    theme = theme if theme is not None else themes.load(themes.SYSTEM, [])
    variables = {role: theme.color(role) for role in themes.TOKENS}
    derived = dict(zip(("pageBg", "cardBg", "infoBg"), _derived(variables["userMessageBg"]), strict=True))
    chosen = {key: theme.export.get(key) or derived[key] for key in derived}
    variables.update(
        exportPageBg=chosen["pageBg"], exportCardBg=chosen["cardBg"], exportInfoBg=chosen["infoBg"]
    )
    variables.update(
        {"body-bg": chosen["pageBg"], "container-bg": chosen["cardBg"], "info-bg": chosen["infoBg"]}
    )
    return variables


def _derived(base: str) -> tuple[str, str, str]:
    """Page, card and info backgrounds from ``userMessageBg`` (pi's rule: on a light colour the
    page a little darker and the card the colour itself; on a dark one both darker)."""
    from pi_core.runtime.colors import _round

    try:
        red, green, blue = (int(base[index : index + 2], 16) for index in (1, 3, 5))
    except ValueError:
        return "rgb(24, 24, 30)", "rgb(30, 30, 36)", "rgb(60, 55, 40)"

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    def scaled(factor: float) -> str:
        return "rgb({}, {}, {})".format(*(min(255, max(0, _round(c * factor))) for c in (red, green, blue)))

    luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    if luminance > 0.5:
        info = f"rgb({min(255, red + 10)}, {min(255, green + 5)}, {max(0, blue - 20)})"
        return scaled(0.96), base, info
    return scaled(0.7), scaled(0.85), f"rgb({min(255, red + 20)}, {min(255, green + 15)}, {blue})"


def _root_css(theme: Theme | None) -> str:
    declarations = "".join(f"--{name}:{value};" for name, value in theme_variables(theme).items())
    return f":root{{{declarations}}}"


def default_export_path(session_file: str | Path) -> Path:
    """pi's default name: ``pi-session-<session file stem>.html`` in the current directory."""
    return Path(f"pi-session-{Path(session_file).stem}.html")


def read_session_file(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The header and entries of a JSONL session file; unparseable lines are skipped as pi skips them."""
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("type") == "session" and header is None:
            header = record
        else:
            entries.append(record)
    return header, entries


def active_branch(entries: Sequence[dict[str, Any]], leaf_id: str | None) -> list[dict[str, Any]]:
    """Entries from the root to ``leaf_id`` (default: the last entry), following ``parentId``."""
    by_id = {entry["id"]: entry for entry in entries if isinstance(entry.get("id"), str)}
    if leaf_id is None:
        leaf_id = next((entry["id"] for entry in reversed(entries) if "id" in entry), None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id else None
    while current is not None and current["id"] not in seen:
        seen.add(current["id"])
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(parent) if isinstance(parent, str) else None
    path.reverse()
    return path


def _pre(text: str, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f"<pre{cls}>{html.escape(text)}</pre>"


def _blocks(content: Any) -> str:
    if isinstance(content, str):
        return _pre(content)
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(_pre(str(block.get("text", ""))))
        elif kind == "thinking":
            parts.append(_pre(str(block.get("thinking", "")), "thinking"))
        elif kind == "toolCall":
            args = json.dumps(block.get("arguments", {}), indent=2, ensure_ascii=False)
            parts.append(_pre(f"→ {block.get('name')}({args})", "toolCall"))
        elif kind == "image":
            mime = html.escape(str(block.get("mimeType", "image/png")), quote=True)
            data = html.escape(str(block.get("data", "")), quote=True)
            parts.append(f'<img alt="image" src="data:{mime};base64,{data}">')
    return "".join(parts)


def _message_html(message: dict[str, Any]) -> str:
    role = str(message.get("role", "message"))
    body: str
    css = role
    if role == "assistant":
        body = _blocks(message.get("content"))
        if message.get("errorMessage"):
            body += _pre(str(message["errorMessage"]), "error-text")
        label = f"assistant · {message.get('provider', '')}/{message.get('model', '')}"
    elif role == "toolResult":
        body = _blocks(message.get("content"))
        css += " error" if message.get("isError") else ""
        label = f"tool result · {message.get('toolName', '')}"
    elif role == "bashExecution":
        body = _pre(f"$ {message.get('command', '')}\n{message.get('output', '')}")
        if message.get("exitCode") not in (None, 0):
            body += _pre(f"exit code {message['exitCode']}", "error-text")
        label = "bash"
    elif role in ("compactionSummary", "branchSummary"):
        body, css, label = _pre(str(message.get("summary", ""))), "summary", role
    elif role == "custom":
        body, label = _blocks(message.get("content")), f"custom · {message.get('customType', '')}"
    else:
        body, label = _blocks(message.get("content")), role
    return f'<div class="entry {html.escape(css)}"><div class="role">{html.escape(label)}</div>{body}</div>'


def _is_system(entry: dict[str, Any]) -> bool:
    message = entry.get("message")
    return entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "system"


def _tool_names(tools: Any) -> list[str]:
    return (
        [str(tool.get("name")) for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []
    )


def _system_html(message: dict[str, Any], leading: bool) -> str:
    """A recorded prompt (pi 1.6.0's ``role: "system"`` message): the first one of the branch as
    the prompt and its tools, a later one as what it changes (sections set or dropped, tools
    added and removed) with the new section text. Nothing for a message that changes nothing."""
    content = message.get("content")
    text = _blocks(content) if content else ""
    raw_sections = message.get("sections")
    sections: dict[str, Any] = raw_sections if isinstance(raw_sections, dict) else {}
    shown = "\n\n".join(str(value) for value in sections.values() if isinstance(value, str) and value)
    added, removed = _tool_names(message.get("toolsAdded")), _tool_names(message.get("toolsRemoved"))
    if leading:
        label = "system prompt"
    else:
        changes = ["instructions"] if content else []
        changes += [name if value is not None else f"-{name}" for name, value in sections.items()]
        tools = [f"+{name}" for name in added] + [f"-{name}" for name in removed]
        if tools:
            changes.append("tools " + " ".join(tools))
        label = "system prompt update" + (f": {', '.join(changes)}" if changes else "")
    body = text + (f"<details><summary>prompt</summary>{_pre(shown)}</details>" if shown else "")
    if added:
        title = "tools" if leading else "tools added"
        body += f'<div class="meta">{title}: {html.escape(", ".join(added))}</div>'
    if removed:
        body += f'<div class="meta">tools removed: {html.escape(", ".join(removed))}</div>'
    if not body:
        return ""
    return f'<div class="entry system"><div class="role">{html.escape(label)}</div>{body}</div>'


def _entry_html(entry: dict[str, Any], leading_system: bool = False) -> str:
    kind = entry.get("type")
    if _is_system(entry):
        return _system_html(entry["message"], leading_system)
    if kind == "message" and isinstance(entry.get("message"), dict):
        return _message_html(entry["message"])
    if kind == "custom_message":
        return _message_html({**entry, "role": "custom"})
    if kind in ("compaction", "branch_summary"):
        label = "compaction summary" if kind == "compaction" else "branch summary"
        summary = _pre(str(entry.get("summary", "")))
        return f'<div class="entry summary"><div class="role">{label}</div>{summary}</div>'
    if kind == "model_change":
        model = f"{entry.get('provider')}/{entry.get('modelId')}"
        return f'<div class="meta">model: {html.escape(model)}</div>'
    if kind == "thinking_level_change":
        return f'<div class="meta">thinking: {html.escape(str(entry.get("thinkingLevel")))}</div>'
    return ""  # labels, session info, plugin entries: state, not conversation


def render_session_html(
    header: dict[str, Any] | None,
    entries: Sequence[dict[str, Any]],
    leaf_id: str | None = None,
    *,
    system_prompt: str | None = None,
    tools: Iterable[dict[str, Any]] | None = None,
    theme: Theme | None = None,
) -> str:
    """The whole page for a session's active branch, in ``theme``'s colours (see the module)."""
    header = header or {}
    title = f"pi session {header.get('id', '')}".strip()
    branch = active_branch(entries, leaf_id)
    name = next((e.get("name") for e in reversed(entries) if e.get("type") == "session_info"), None)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(str(name or title))}</title>",
        f"<style>{_root_css(theme)}{_CSS}</style></head><body><main>",
        f"<header><h1>{html.escape(str(name or title))}</h1>",
        f'<div class="meta">{html.escape(str(header.get("timestamp", "")))} · '
        f"{html.escape(str(header.get('cwd', '')))}</div></header>",
    ]
    first_system = next((entry for entry in branch if _is_system(entry)), None)
    if first_system is None:  # a session without recorded prompts (pi 0.73.1): the live one
        if system_prompt:
            parts.append(f"<details><summary>System prompt</summary>{_pre(system_prompt)}</details>")
        tool_list = list(tools or [])
        if tool_list:
            names = ", ".join(str(tool.get("name")) for tool in tool_list)
            parts.append(f'<div class="meta">tools: {html.escape(names)}</div>')
    parts.extend(_entry_html(entry, entry is first_system) for entry in branch)
    data = {"header": header, "entries": list(entries), "leafId": leaf_id, "systemPrompt": system_prompt}
    # "</" inside a script element would end it early; JSON allows escaping the slash.
    embedded = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    parts.append(f'<script type="application/json" id="pi-session">{embedded}</script>')
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def export_file_to_html(input_path: str | Path, output_path: str | Path | None = None) -> Path:
    """Render a session file to HTML and write it; returns the written path (``pi --export``)."""
    source = Path(input_path)
    if not source.is_file():
        raise FileNotFoundError(f"File not found: {input_path}")
    header, entries = read_session_file(source)
    target = Path(output_path) if output_path else default_export_path(source)
    target.write_text(render_session_html(header, entries), encoding="utf-8")
    return target
