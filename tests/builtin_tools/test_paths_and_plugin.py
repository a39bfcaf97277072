from __future__ import annotations

import os
import subprocess
import sys

from pi_builtin_tools.plugin import register_tools
from pi_core.agent.tools import AgentTool

from pi_builtin_tools import BUILTIN_TOOL_NAMES, DEFAULT_ACTIVE_TOOLS, expand_path, resolve_to_cwd


def test_expand_path_rules() -> None:
    home = os.path.expanduser("~")
    assert expand_path("@src/a.py") == "src/a.py"
    assert expand_path("~") == home
    assert expand_path("~/x") == home + "/x"
    assert expand_path("my\u00a0file") == "my file"
    assert resolve_to_cwd("a/../b.txt", "/work") == "/work/b.txt"
    assert resolve_to_cwd("/abs", "/work") == "/abs"


def test_plugin_registers_all_seven_in_pi_order() -> None:
    registered: list[AgentTool] = []
    register_tools(registered.append)
    assert [t.name for t in registered] == list(BUILTIN_TOOL_NAMES)
    assert DEFAULT_ACTIVE_TOOLS == ("read", "bash", "edit", "write")
    snippets = {t.name: t.prompt_snippet for t in registered}
    assert snippets["grep"] == "Search file contents for patterns (respects .gitignore)"
    assert snippets["edit"] == (
        "Change files by exact text replacement; one call can carry several separate replacements"
    )
    guidelines = {t.name: t.prompt_guidelines for t in registered}
    assert guidelines["read"] == ["Look at files with read rather than with cat or sed."]
    assert len(guidelines["edit"]) == 2 and len(guidelines["bash"]) == 1 and "PI_*" in guidelines["bash"][0]
    for tool in registered:
        assert tool.label == tool.name and tool.render_call and tool.render_result


def test_schemas_have_pis_shape() -> None:
    registered: list[AgentTool] = []
    register_tools(registered.append)
    schemas = {t.name: t.json_schema() for t in registered}
    edit = schemas["edit"]
    assert edit["additionalProperties"] is False and edit["required"] == ["path", "edits"]
    item = edit["properties"]["edits"]["items"]
    assert item["additionalProperties"] is False and set(item["properties"]) == {"oldText", "newText"}
    read = schemas["read"]
    assert read["required"] == ["path"] and read["properties"]["offset"]["type"] == "number"
    assert "title" not in read and "additionalProperties" not in read
    assert schemas["grep"]["properties"]["ignoreCase"]["type"] == "boolean"


def test_importing_the_plugin_does_not_import_rich() -> None:
    code = "import sys, pi_builtin_tools.plugin; print('rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
