from __future__ import annotations

from pi_core.runtime.tool_selection import MIXED_ENTRIES, apply_entries, default_tools, select_tools

BUILTIN = ["read", "bash", "edit", "write", "grep", "find", "ls"]
DEFAULTS = ("read", "bash", "edit", "write")


def _select(**kwargs: object) -> tuple[list[str], list[str], list[str]]:
    selection = select_tools(
        available=[*BUILTIN, "plan"],
        builtin=BUILTIN,
        builtin_defaults=DEFAULTS,
        **kwargs,  # type: ignore[arg-type]
    )
    return selection.names, selection.warnings, selection.errors


def test_setting_layers_replace_then_change() -> None:
    assert apply_entries(DEFAULTS, ["-bash", "+powershell", "+grep"]) == [
        "read",
        "edit",
        "write",
        "powershell",
        "grep",
    ]
    assert apply_entries(DEFAULTS, ["ls", "+grep", "-ls"]) == ["grep"]  # plain names first, then in order
    assert default_tools(DEFAULTS, [["read", "ls"], ["+grep"]]) == ["read", "ls", "grep"]
    assert default_tools(DEFAULTS, [["+grep"], ["bash"]]) == ["bash"]  # a plain project list replaces
    assert default_tools(DEFAULTS, [[], ["+ls"]]) == ["ls"]
    assert default_tools(DEFAULTS, ["not a list"]) == list(DEFAULTS)


def test_plugin_tools_stay_unless_an_allowlist_or_no_tools() -> None:
    assert _select(setting_layers=[[]]) == (["plan"], [], [])
    assert _select(tools=["*a*"]) == (["read", "bash", "plan"], [], [])
    assert _select(no_tools=True) == ([], [], [])
    assert _select(no_builtin_tools=True) == (["plan"], [], [])
    assert _select(tools=["-write"], exclude=["p*"]) == (["read", "bash", "edit"], [], [])


def test_what_cannot_be_applied_is_said() -> None:
    assert _select(tools=["read", "+grep"]) == ([], [], [MIXED_ENTRIES])
    names, warnings, _ = _select(tools=["+nope"], exclude=["x*"], setting_layers=[["-gone"]])
    assert names == [*DEFAULTS, "plan"]
    assert warnings == [
        'defaultTools: no tool is named "gone"',
        '--tools: no tool is named "nope"',
        '--exclude-tools: no tool matches "x*"',
    ]
