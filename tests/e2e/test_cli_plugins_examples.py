"""The examples in plugins-example/, loaded through the real machinery."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from pi_core.cli.options import PluginControl
from pi_core.cli.run import prepare_plugins_async
from pi_core.plugins.events import BeforeAgentStartEvent, ToolCallEvent
from pi_core.plugins.manager import LoadOptions, load_plugins
from pi_core.plugins.registry import collect_registrations
from pi_core.testing.plugins import fake_distribution

from tests.e2e.example_plugins import EXAMPLES, disabled_plugins


class NoUI:
    has_ui = False


async def test_sample_project_extensions_gate_and_prompt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    # The example distributions may be installed (uv sync --all-packages); this is about the sample.
    monkeypatch.setenv("PI_DISABLED_PLUGINS", disabled_plugins())
    setup = await prepare_plugins_async(PluginControl(trust_project=True), cwd=EXAMPLES / "sample-project")
    assert setup.problems == []
    assert {"pirate", "protected_paths"} <= {n for n, r in setup.pm.records.items() if r.status == "active"}
    hooks = setup.build_hooks()
    blocked = await hooks.tool_call(
        ToolCallEvent(tool_call_id="1", tool_name="write", input={"path": "app/.env"}),
        NoUI(),  # type: ignore[arg-type]
    )
    assert blocked is not None and blocked.block and ".env" in (blocked.reason or "")
    allowed = await hooks.tool_call(
        ToolCallEvent(tool_call_id="2", tool_name="write", input={"path": "app/main.py"}),
        NoUI(),  # type: ignore[arg-type]
    )
    assert allowed is None
    outcome = await hooks.before_agent_start(BeforeAgentStartEvent(prompt="hi", system_prompt="base"), NoUI())  # type: ignore[arg-type]
    assert outcome.system_prompt is not None and outcome.system_prompt.endswith("like a pirate would.")


async def test_pi_ext_hello_through_a_real_dist_info(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_distribution(
        tmp_path / "site",
        "pi-ext-hello",
        version="0.1.0",
        entry_points={"hello": "pi_ext_hello.plugin"},
        source_roots=[EXAMPLES / "pi-ext-hello" / "src"],
    ).activate(monkeypatch)
    pm = load_plugins(LoadOptions(cwd=tmp_path, agent_dir=tmp_path / "agent", env={}))
    assert pm.records["hello"].where == "pi-ext-hello==0.1.0"
    regs = await collect_registrations(pm)
    tool = regs.tools["hello"].item
    result = await tool.execute("c1", {"name": "Ada"}, None, None, None)
    assert result.content[0].text == "Hello, Ada!"
    assert [c.invocation_name for c in regs.commands if c.plugin == "hello"] == ["hello"]
    assert regs.flags["hello-name"].type == "string"


def test_package_extension_imports_its_own_submodules(tmp_path: Path) -> None:
    pkg = tmp_path / "proj" / ".pi" / "extensions" / "rules"
    pkg.mkdir(parents=True)
    (pkg / "data.py").write_text("BLOCKED = ('rm',)\n")
    (pkg / "__init__.py").write_text(
        textwrap.dedent(
            """
            from pi_core import hookimpl
            from .data import BLOCKED

            @hookimpl
            def tool_call(event):
                return {"block": event.input.get("command") in BLOCKED}
            """
        )
    )
    pm = load_plugins(
        LoadOptions(
            cwd=tmp_path / "proj",
            agent_dir=tmp_path / "agent",
            env={},
            trust_project=True,
            entry_points=False,
        )
    )
    assert pm.load_errors == [] and pm.hooks_of("rules") == ["tool_call"]
