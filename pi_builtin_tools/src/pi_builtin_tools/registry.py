"""The catalogue of built-in tools and which of them are active by default, as in pi."""

from __future__ import annotations

from pi_core.agent.tools import AgentTool

from pi_builtin_tools.bash import create_bash_tool
from pi_builtin_tools.edit import create_edit_tool
from pi_builtin_tools.find import create_find_tool
from pi_builtin_tools.grep import create_grep_tool
from pi_builtin_tools.ls import create_ls_tool
from pi_builtin_tools.read import create_read_tool
from pi_builtin_tools.write import create_write_tool

#: Every built-in tool name, in pi's order.
BUILTIN_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
#: The tools sent to the model when neither ``--tools`` nor ``--no-builtin-tools`` says otherwise.
DEFAULT_ACTIVE_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")


def create_all_tools(
    *,
    auto_resize_images: bool = True,
    shell_path: str | None = None,
    shell_command_prefix: str | None = None,
) -> list[AgentTool]:
    """Fresh instances of all seven tools, configured with pi's settings of the same meaning."""
    return [
        create_read_tool(auto_resize_images=auto_resize_images),
        create_bash_tool(shell_path=shell_path, command_prefix=shell_command_prefix),
        create_edit_tool(),
        create_write_tool(),
        create_grep_tool(),
        create_find_tool(),
        create_ls_tool(),
    ]
