"""pi's built-in tools: read, bash, edit, write, grep, find, ls.

Each ``create_<name>_tool()`` returns a fresh ``pi_core.agent.tools.AgentTool``; the plugin entry
module (``pi_builtin_tools.plugin``) registers all of them through ``register_tools``.
"""

from __future__ import annotations

from pi_builtin_tools.bash import create_bash_tool
from pi_builtin_tools.edit import create_edit_tool
from pi_builtin_tools.find import create_find_tool
from pi_builtin_tools.grep import create_grep_tool
from pi_builtin_tools.ls import create_ls_tool
from pi_builtin_tools.mutation_queue import file_mutation_queue
from pi_builtin_tools.paths import expand_path, resolve_read_path, resolve_to_cwd
from pi_builtin_tools.read import create_read_tool
from pi_builtin_tools.registry import BUILTIN_TOOL_NAMES, DEFAULT_ACTIVE_TOOLS, create_all_tools
from pi_builtin_tools.write import create_write_tool

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_ACTIVE_TOOLS",
    "create_all_tools",
    "create_bash_tool",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_write_tool",
    "expand_path",
    "file_mutation_queue",
    "resolve_read_path",
    "resolve_to_cwd",
]
