"""The ``project_trust`` hook (pi 1.6.0): plugins from outside a project decide whether its code
runs, before it loads; how answers combine, what is recorded, and how the flags and ``pi trust``
interact with it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from pi_core.cli.options import PluginControl, trust_mode
from pi_core.cli.run import prepare_plugins_async
from pi_core.plugins import events as ev
from pi_core.plugins.context import ProjectTrustContext
from pi_core.plugins.manager import LoadOptions, PiPluginManager, load_plugins, load_plugins_async
from pi_core.plugins.trust import check_project_trust, trust_project, untrust_project
from pi_core.runtime.ui import HeadlessUI
from pi_core.testing.plugins import PluginHarness

PROJECT_PLUGIN = "from pi_core import hookimpl\n\n@hookimpl\ndef agent_start(event, ctx):\n    pass\n"

#: A global plugin that answers what ``answer.txt`` in the project says (``yes``, ``no``,
#: ``undecided``, optionally followed by ``remember``) and logs each question.
GATEKEEPER = """
from pathlib import Path

from pi_core import hookimpl


@hookimpl
def project_trust(event, ctx):
    with open(Path(event.cwd) / "asked.log", "a") as log:
        log.write(f"{ctx.cwd} {ctx.mode} {ctx.has_ui}\\n")
    trusted, _, remember = (Path(event.cwd) / "answer.txt").read_text().strip().partition(" ")
    return {"trusted": trusted, "remember": remember == "remember"}
"""


def _ctx() -> ProjectTrustContext:
    return ProjectTrustContext("/p", "print", False, HeadlessUI())


async def test_hook_project_trust() -> None:
    h = PluginHarness(strict=False, ctx=_ctx())
    asked: list[str] = []

    def undecided(event: ev.ProjectTrustEvent) -> dict[str, str]:
        asked.append("undecided")
        return {"trusted": "undecided"}

    def passes(event: ev.ProjectTrustEvent) -> None:
        asked.append("passes")

    def explodes(event: ev.ProjectTrustEvent) -> None:
        asked.append("explodes")
        raise RuntimeError("no idea")

    def typo(event: ev.ProjectTrustEvent) -> dict[str, str]:
        asked.append("typo")
        return {"trust": "yes"}

    async def decides(event: ev.ProjectTrustEvent, ctx: ProjectTrustContext) -> ev.ProjectTrustResult:
        asked.append(f"decides {ctx.mode} {ctx.has_ui}")
        return ev.ProjectTrustResult(trusted="no", remember=True)

    for name, handler in [
        ("a", undecided),
        ("b", passes),
        ("c", explodes),
        ("d", typo),
        ("e", decides),
        ("f", lambda event: asked.append("too late")),
    ]:
        h.add(name, project_trust=handler)
    result = await h.hooks.project_trust(ev.ProjectTrustEvent(cwd="/p"), h.ctx)
    assert result == ev.ProjectTrustResult(trusted="no", remember=True)
    assert asked == ["undecided", "passes", "explodes", "typo", "decides print False"]
    assert [(e.plugin, e.hook) for e in h.errors] == [("c", "project_trust"), ("d", "project_trust")]
    assert "unknown key 'trust'" in str(h.errors[1].error)
    lone = PluginHarness(ctx=_ctx())
    lone.add("a", project_trust=undecided)
    assert await lone.hooks.project_trust(ev.ProjectTrustEvent(cwd="/p"), lone.ctx) is None


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    project, agent = tmp_path / "project", tmp_path / "agent"
    (project / ".pi" / "extensions").mkdir(parents=True)
    (project / ".pi" / "extensions" / "proj.py").write_text(PROJECT_PLUGIN)
    (agent / "extensions").mkdir(parents=True)
    (agent / "extensions" / "gatekeeper.py").write_text(textwrap.dedent(GATEKEEPER))
    return {"project": project, "agent": agent}


def _options(world: dict[str, Path], **kwargs: Any) -> LoadOptions:
    return LoadOptions(
        cwd=world["project"],
        agent_dir=world["agent"],
        entry_points=False,
        env={},
        builtin_modules=(),
        **kwargs,
    )


async def _ask_gatekeeper(pm: PiPluginManager, cwd: Path) -> bool | None:
    from pi_core.plugins.dispatch import Dispatcher, Hooks

    result = await Hooks(Dispatcher(pm)).project_trust(ev.ProjectTrustEvent(cwd=str(cwd)), _ctx())
    return None if result is None else result.trusted == "yes"


def _answer(world: dict[str, Path], text: str) -> None:
    (world["project"] / "answer.txt").write_text(text)


def _asked(world: dict[str, Path]) -> int:
    log = world["project"] / "asked.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


async def test_a_global_plugin_trusts_the_project_and_its_code_keeps_its_place(
    world: dict[str, Path],
) -> None:
    _answer(world, "yes")
    pm = await load_plugins_async(_options(world), ask_trust=_ask_gatekeeper)
    assert pm.load_errors == [] and pm.untrusted_project is None and pm.project_allowed
    assert pm.trust_decision is True
    # Registered after the decision, the project's plugin still comes first, as in load order.
    assert [name for name, _ in pm.plugins_in_load_order()] == ["proj", "gatekeeper"]
    assert list(pm.records) == ["proj", "gatekeeper"]
    # Only for this process: nothing was recorded.
    assert check_project_trust(world["project"], world["agent"]).status == "untrusted"


async def test_a_global_plugin_refuses_and_the_run_goes_on_without_asking(world: dict[str, Path]) -> None:
    _answer(world, "no")
    trust_project(world["project"], world["agent"])  # its no wins over a recorded trust, as in pi
    pm = await load_plugins_async(_options(world), ask_trust=_ask_gatekeeper)
    assert pm.records["proj"].status == "untrusted"
    assert pm.untrusted_project is None  # nobody is asked and a print run is not stopped
    assert not pm.project_allowed and pm.trust_decision is False


async def test_undecided_falls_back_to_the_recorded_trust(world: dict[str, Path]) -> None:
    _answer(world, "undecided")
    pm = await load_plugins_async(_options(world), ask_trust=_ask_gatekeeper)
    assert pm.untrusted_project is not None and pm.records["proj"].status == "untrusted"
    trust_project(world["project"], world["agent"])
    pm = await load_plugins_async(_options(world), ask_trust=_ask_gatekeeper)
    assert pm.untrusted_project is None and pm.records["proj"].status == "active"


async def test_remembered_answers_are_recorded_until_pi_trust_or_untrust(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, agent = world["project"], world["agent"]
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    _answer(world, "no remember")
    await prepare_plugins_async(PluginControl(), cwd=project)
    assert check_project_trust(project, agent).status == "declined"
    _answer(world, "undecided")
    pm = load_plugins(_options(world))  # no plugin asked: the recorded no holds, silently
    assert pm.records["proj"].status == "untrusted" and pm.untrusted_project is None
    trust_project(project, agent)  # `pi trust` replaces the refusal
    assert load_plugins(_options(world)).records["proj"].status == "active"
    _answer(world, "yes remember")
    untrust_project(project, agent)
    await prepare_plugins_async(PluginControl(), cwd=project)
    assert check_project_trust(project, agent).status == "trusted"
    assert untrust_project(project, agent)  # `pi untrust` forgets it
    assert check_project_trust(project, agent).status == "untrusted"


async def test_approve_no_approve_and_an_earlier_answer_ask_nobody(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(world["agent"]))
    project = world["project"]
    _answer(world, "no")
    approved = await prepare_plugins_async(PluginControl(trust_project=True), cwd=project)
    assert approved.pm.records["proj"].status == "active"
    _answer(world, "yes")
    skipped = await prepare_plugins_async(PluginControl(no_approve=True), cwd=project)
    assert skipped.pm.records["proj"].status == "untrusted"
    assert _asked(world) == 0
    # Asked once per directory and process: the setups of reloads share the answers.
    first = await prepare_plugins_async(PluginControl(), cwd=project)
    assert first.pm.records["proj"].status == "active" and _asked(world) == 1
    _answer(world, "no")
    again = await prepare_plugins_async(PluginControl(), cwd=project, trust_decisions=first.trust_decisions)
    assert again.pm.records["proj"].status == "active" and _asked(world) == 1
    assert (project / "asked.log").read_text() == f"{project} tui False\n"


async def test_no_project_code_asks_nobody(world: dict[str, Path]) -> None:
    (world["project"] / ".pi" / "extensions" / "proj.py").unlink()
    _answer(world, "no")
    pm = await load_plugins_async(_options(world), ask_trust=_ask_gatekeeper)
    assert pm.trust_decision is None and pm.project_allowed and _asked(world) == 0


def test_trust_mode_follows_the_command_line() -> None:
    assert trust_mode([]) == "tui"
    assert trust_mode(["-p", "hi"]) == "print"
    assert trust_mode(["--mode", "json", "hi"]) == "json"
    assert trust_mode(["--mode=rpc"]) == "rpc"
    assert trust_mode(["--help"]) == "print"
    assert trust_mode(["--", "-p"]) == "tui"


async def test_terminal_dialogs_answer_a_project_trust_handler_before_the_repl() -> None:
    import asyncio
    import io

    from pi_core.modes.interactive.trust import TerminalTrustDialogs
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    buffer = io.StringIO()
    with create_pipe_input() as pipe:
        ui = TerminalTrustDialogs(Console(file=buffer, width=80), input=pipe, output=DummyOutput())
        h = PluginHarness(ctx=ProjectTrustContext("/p", "tui", True, ui))

        async def asks(event: ev.ProjectTrustEvent, ctx: ProjectTrustContext) -> dict[str, Any]:
            where = await ctx.ui.select("Where does this come from?", ["mine", "a stranger's"])
            sure = await ctx.ui.confirm("Run its plugins?", event.cwd)
            return {"trusted": "yes" if sure and where == "mine" else "no"}

        h.add("asker", project_trust=asks)
        decision = asyncio.create_task(h.hooks.project_trust(ev.ProjectTrustEvent(cwd="/p"), h.ctx))
        await asyncio.sleep(0.2)
        pipe.send_text("\r")  # the arrow-key list: Enter takes the first option
        await asyncio.sleep(0.2)
        pipe.send_text("y\r")  # Yes/No: typing filters to Yes
        result = await asyncio.wait_for(decision, 5)
    assert result is not None and result.trusted == "yes"
