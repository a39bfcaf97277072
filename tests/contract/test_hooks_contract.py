from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pi_core.plugins import events, hookspecs
from pi_core.plugins.combine import EVENT_HOOKS, Combine
from pi_core.plugins.dispatch import Hooks

ROOT = Path(__file__).resolve().parents[2]
V0731_EVENTS = {
    "session_start", "resources_discover", "session_before_switch", "session_before_fork",
    "session_before_compact", "session_compact", "session_before_tree", "session_tree", "session_shutdown",
    "input", "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end", "message_start",
    "message_update", "message_end", "context", "before_provider_request", "after_provider_response",
    "tool_execution_start", "tool_call", "tool_execution_update", "tool_result", "tool_execution_end",
    "model_select", "thinking_level_select", "user_bash",
}  # fmt: skip
#: pi 1.6.0's new events that apply here (cache_warming_decision is not implemented:
#: docs/porting.md says why).
V16_EVENTS = {
    "agent_before_settle", "agent_settled", "session_compact_failed", "session_info_changed",
    "ui_prompt_start", "ui_prompt_end", "before_provider_headers", "provider_stream_event",
    "mcp_servers_change", "project_trust", "context_with_system",
}  # fmt: skip
PI_EVENTS = V0731_EVENTS | V16_EVENTS
SPEC_FUNCTIONS = [
    obj for _, obj in inspect.getmembers(hookspecs, inspect.isfunction) if hasattr(obj, "pi_spec")
]


def test_event_hooks_are_pis_events() -> None:
    assert len(V0731_EVENTS) == 29
    assert set(EVENT_HOOKS) == PI_EVENTS


def test_registration_hooks_are_declared() -> None:
    names = {f.__name__ for f in SPEC_FUNCTIONS} - PI_EVENTS
    assert names == set(hookspecs.REGISTRATION_HOOKS)
    for name in hookspecs.REGISTRATION_HOOKS:
        assert list(inspect.signature(getattr(hookspecs, name)).parameters) == ["register"]


def test_facade_covers_exactly_the_event_hooks() -> None:
    methods = {
        name
        for name, fn in inspect.getmembers(Hooks, inspect.iscoroutinefunction)
        if not name.startswith("_")
    }
    assert methods == set(EVENT_HOOKS)
    for name in methods:
        assert list(inspect.signature(getattr(Hooks, name)).parameters) == ["self", "event", "ctx"]


@pytest.mark.parametrize("spec", SPEC_FUNCTIONS, ids=lambda f: f.__name__)
def test_hookspec_docstring_follows_the_template(spec: object) -> None:
    doc = inspect.getdoc(spec) or ""
    for section in ("Combine:", ":param", ":returns:", "Errors:", "Example::", ".. versionadded::"):
        assert section in doc, f"{spec.__name__} lacks {section!r}"  # type: ignore[attr-defined]
    info = EVENT_HOOKS.get(spec.__name__)  # type: ignore[attr-defined]
    if info is not None:
        assert list(inspect.signature(spec).parameters) == ["event", "ctx"]  # type: ignore[arg-type]
        assert f"Combine: {info.combine.name}" in doc


def test_event_hooks_never_use_pluggy_call_options() -> None:
    for spec in SPEC_FUNCTIONS:
        options = spec.pi_spec  # type: ignore[attr-defined]
        assert not options.get("firstresult") and not options.get("historic")


def test_combination_rules_match_spec_table() -> None:
    expected = {
        "tool_call": Combine.BLOCK_OR_LAST,
        "user_bash": Combine.FIRST,
        "tool_result": Combine.PATCH_CHAIN,
        "context": Combine.CHAIN,
        "message_end": Combine.CHAIN,
        "before_provider_request": Combine.CHAIN,
        "resources_discover": Combine.ACCUMULATE,
        **{f"session_before_{x}": Combine.CANCEL_OR_LAST for x in ("switch", "fork", "compact", "tree")},
    }
    for name, combine in expected.items():
        assert EVENT_HOOKS[name].combine is combine
    assert EVENT_HOOKS["agent_before_settle"].combine is Combine.BOUNDARY
    assert EVENT_HOOKS["turn_end"].combine is Combine.BOUNDARY
    for name in ("thinking_level_select", "agent_settled", "ui_prompt_start", "ui_prompt_end"):
        assert EVENT_HOOKS[name].fire_and_forget


def test_every_event_hook_has_a_test_hook_function() -> None:
    text = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    missing = [name for name in EVENT_HOOKS if not re.search(rf"def test_hook_{name}\b", text)]
    assert missing == []


def test_event_models_are_typed_and_camel_cased() -> None:
    for name, info in EVENT_HOOKS.items():
        model = info.event_type
        assert model.model_fields["type"].default == name
        for models in (model, info.result_type):
            if models is None:
                continue
            for field_name, field in models.model_fields.items():
                if "_" in field_name:
                    assert field.alias and "_" not in field.alias, (models.__name__, field_name)
    dumped = events.ToolCallEvent(tool_call_id="1", tool_name="bash", input={}).to_json_dict()
    assert dumped == {"type": "tool_call", "toolCallId": "1", "toolName": "bash", "input": {}}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_plugins_layer_imports_only_layers_above_it() -> None:
    forbidden = ("pi_core.runtime", "pi_core.modes", "pi_core.cli", "pi_builtin_")
    for path in (ROOT / "pi_core" / "src" / "pi_core" / "plugins").rglob("*.py"):
        bad = [m for m in _imports(path) if m.startswith(forbidden)]
        assert bad == [], f"{path.name} imports {bad}"


HEAVY = ("pydantic", "anthropic", "openai", "prompt_toolkit")


def _heavy_modules_after(argv: list[str], agent: Path, cwd: Path) -> tuple[list[str], str]:
    """Modules of the heavy kind loaded by ``pi ARGV`` in a fresh interpreter, and its stdout."""
    code = (
        "import sys\n"
        "from pi_core.cli.app import cli\n"
        f"try:\n    cli.main({argv!r}, prog_name='pi')\n"
        "except SystemExit:\n    pass\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}\n"
        "    or m == 'rich.markdown' or m == 'pi_core.plugins' or m.startswith('pi_core.plugins.'))\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "COLUMNS": "80"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=cwd
    )
    return ast.literal_eval(result.stderr), result.stdout


def test_version_imports_no_heavy_modules(tmp_path: Path) -> None:
    heavy, out = _heavy_modules_after(["--version"], tmp_path / "agent", tmp_path)
    from pi_core import __version__

    assert heavy == [] and out == f"{__version__}\n"  # the bare number, as pi prints it


def test_help_from_the_flag_cache_imports_no_heavy_modules(tmp_path: Path) -> None:
    ext = tmp_path / "flagger.py"
    ext.write_text(
        "from pi_core import hookimpl\n\n\n@hookimpl\ndef register_flags(register):\n"
        "    register('plan-file', type='string', description='a plugin flag')\n"
    )
    argv = ["-e", str(ext), "--help"]
    # First --help in a fresh agent dir loads the plugins (and so the heavy modules) to fill the cache.
    heavy, first = _heavy_modules_after(argv, tmp_path / "agent", tmp_path)
    assert "pi_core.plugins.manager" in heavy and "--plan-file VALUE" in first
    heavy, second = _heavy_modules_after(argv, tmp_path / "agent", tmp_path)
    assert heavy == []
    assert second == first
