from __future__ import annotations

from io import StringIO
from typing import Any

from pi_core.agent.tools import AgentToolResult
from pi_core.ai.messages import TextContent
from rich.console import Console

from pi_builtin_tools import create_all_tools


def render(renderable: Any) -> Console:
    console = Console(file=StringIO(), width=100, record=True, color_system="truecolor")
    console.print(renderable)
    return console


def test_every_tool_renders_its_call_and_result() -> None:
    args = {
        "read": {"path": "a.py", "offset": 3, "limit": 2},
        "bash": {"command": "ls -la", "timeout": 5},
        "edit": {"path": "a.py", "edits": []},
        "write": {"path": "a.py", "content": "print('hi')\n"},
        "grep": {"pattern": "x", "glob": "*.py", "limit": 3},
        "find": {"pattern": "*.py"},
        "ls": {"path": "src"},
    }
    result = AgentToolResult(content=[TextContent(text="line\n" * 30)])
    for tool in create_all_tools():
        assert tool.render_call is not None and tool.render_result is not None
        call = render(tool.render_call(args[tool.name], None)).export_text()
        assert call.strip()
        shown = render(tool.render_result(result, {"expanded": False}, None)).export_text()
        assert "line" in shown
    read = next(t for t in create_all_tools() if t.name == "read")
    assert read.render_call is not None
    assert "a.py:3-4" in render(read.render_call(args["read"], None)).export_text()


def test_edit_result_is_a_coloured_diff() -> None:
    edit = next(t for t in create_all_tools() if t.name == "edit")
    assert edit.render_result is not None
    result = AgentToolResult(
        content=[TextContent(text="Successfully replaced 1 block(s) in a.py.")],
        details={"diff": "-1 old\n+1 new\n 2 same", "firstChangedLine": 1},
    )
    console = render(edit.render_result(result, {}, None))
    html = console.export_html(inline_styles=True, clear=False)
    assert "-1 old" in console.export_text() and "#800000" in html and "#008000" in html


def test_bash_result_shows_tail_and_truncation_warning() -> None:
    bash = next(t for t in create_all_tools() if t.name == "bash")
    assert bash.render_result is not None
    result = AgentToolResult(
        content=[TextContent(text="\n".join(str(i) for i in range(20)))],
        details={
            "fullOutputPath": "/tmp/pi-bash-x.log",
            "truncation": {"truncated": True, "truncatedBy": "lines", "outputLines": 20, "totalLines": 3001},
        },
    )
    text = render(bash.render_result(result, {"expanded": False}, None)).export_text()
    assert "15 earlier lines" in text and "19" in text and "Full output: /tmp/pi-bash-x.log" in text
