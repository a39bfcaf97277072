from __future__ import annotations

from importlib.metadata import entry_points


def test_builtin_plugins_are_registered_as_pi_entry_points() -> None:
    names = {ep.name: ep.value for ep in entry_points(group="pi")}
    assert names["tools"] == "pi_builtin_tools.plugin"
    assert names["compaction"] == "pi_builtin_compaction.plugin"
