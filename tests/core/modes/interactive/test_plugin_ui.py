"""Plugin commands in the REPL: ctx.ui dialogs pause the editor, argument completion, the trust question."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.cli.options import PluginControl
from pi_core.cli.run import prepare_plugins_async
from pi_core.modes.interactive.completion import SlashCompleter
from pi_core.modes.interactive.trust import confirm_project_trust
from pi_core.plugins.trust import check_project_trust
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

ESC = "\x1b"

EXTENSION = """
from pi_core import hookimpl


async def quiz(args, ctx):
    colour = await ctx.ui.select("Pick a colour", ["red", "green", "blue"])
    ctx.ui.notify(f"COLOUR {colour}")
    sure = await ctx.ui.confirm("Really?", f"You picked {colour}")
    name = await ctx.ui.input("Your name", "someone")
    ctx.ui.notify(f"RESULT colour={colour} sure={sure} name={name}")
    ctx.ui.set_status("quiz", "quizzed")


def bye(args, ctx):
    ctx.shutdown()


async def announce(args, ctx):
    await ctx.send_message("banner", "plain banner text", display=True)


def on_key(ctx):
    ctx.ui.notify("SHORTCUT FIRED in " + ctx.cwd.rsplit("/", 1)[-1])


def render_banner(message, options, theme):
    from rich.text import Text

    return Text("*** BANNER: " + message.content + " ***")


@hookimpl
def register_shortcuts(register):
    register("ctrl+t", on_key, description="say something")
    register("ctrl+shift+q", on_key, description="not reportable by terminals")


@hookimpl
def register_message_renderers(register):
    register("banner", render_banner)


def complete(prefix):
    return [c for c in ("alpha", "beta", "gamma") if c.startswith(prefix)]


@hookimpl
def register_commands(register):
    register("quiz", quiz, description="ask questions", get_argument_completions=complete)
    register("bye", bye, description="leave")
    register("announce", announce, description="show a banner")
"""


def _extension(tmp_path: Path) -> str:
    path = tmp_path / "quiz_ext.py"
    path.write_text(EXTENSION)
    return str(path)


async def test_dialogs_take_the_terminal_and_give_the_editor_back(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    repl = await repl_factory(extensions=(_extension(tmp_path),))
    await repl.submit("/quiz")
    await repl.in_dialog()
    repl.send("j\r")  # j moves down, as in pi's list
    await repl.wait_for("COLOUR green")  # the list closed; the confirm comes next
    await repl.in_dialog()
    repl.send("\r")  # pi's Yes/No list starts on Yes
    await repl.wait_for("Your name")
    await repl.in_dialog()
    repl.send("Ada\r")
    await repl.wait_for("RESULT colour=green sure=True name=Ada")
    assert repl.mode.ui.statuses == {"quiz": "quizzed"}
    assert "Pick a colour →" not in repl.output  # as pi, an answered list leaves no line behind
    assert "quizzed" in (repl.mode._toolbar() or "")
    # the editor works again afterwards
    await repl.submit("/name after-dialogs")
    await repl.wait_for("Session name: after-dialogs")
    assert await repl.quit() == 0


async def test_escape_cancels_a_dialog(repl_factory: Callable[..., Any], tmp_path: Path) -> None:
    repl = await repl_factory(extensions=(_extension(tmp_path),))
    await repl.submit("/quiz")
    await repl.in_dialog()
    repl.send(ESC)
    await repl.wait_for("COLOUR None")
    await repl.in_dialog()
    repl.send(ESC)
    await repl.wait_for("Your name")
    await repl.in_dialog()
    repl.send(ESC)
    await repl.wait_for("RESULT colour=None sure=False name=None")
    assert await repl.quit() == 0


async def test_completion_of_commands_models_and_plugin_arguments(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    repl = await repl_factory(extensions=(_extension(tmp_path),))
    completer = SlashCompleter(repl.mode)

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert "quiz" in complete("/q") and "quit" in complete("/q")
    assert complete("/model other") == ["loop/other-model"]
    assert complete("/quiz b") == ["beta"]
    assert complete("plain text") == []
    (repl.project / "src").mkdir()
    (repl.project / "src" / "main.py").write_text("")
    (repl.project / "setup.cfg").write_text("")
    (repl.project / "my notes.txt").write_text("")
    completer.index.build_now()
    assert complete("look at @s")[:3] == ["src/", "setup.cfg", '"my notes.txt"']  # name hits first
    assert complete("look at @smn") == ["src/main.py"]  # in order, anywhere in the path
    assert complete("look at @notes") == ['"my notes.txt"']
    assert await repl.quit() == 0


async def test_skill_commands_complete_unless_the_setting_hides_them(
    repl_factory: Callable[..., Any],
) -> None:
    repl = await repl_factory()
    skill = repl.agent / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship it\n---\nRun make deploy.")
    await repl.submit("/reload")
    await repl.wait_for("Reloaded settings")
    completer = SlashCompleter(repl.mode)

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("/skill:d") == ["skill:deploy"]
    repl.mode.host.session.settings.set("enableSkillCommands", False)
    assert complete("/skill:d") == []
    assert await repl.quit() == 0


async def _answer_trust(tmp_path: Path, keys: str) -> tuple[Any, str, Any]:
    """The trust question answered with ``keys``: the setup to run with, what was printed, and
    the setup before (its ``trust_decisions`` last for the process)."""
    agent, project = tmp_path / "agent", tmp_path / "project"
    (project / ".pi" / "extensions").mkdir(parents=True)
    agent.mkdir(exist_ok=True)
    (project / ".pi" / "extensions" / "quiz_ext.py").write_text(EXTENSION)
    setup = await prepare_plugins_async(PluginControl(), cwd=project)
    assert setup.pm.untrusted_project is not None
    assert "quiz" not in {c.name for c in setup.registrations.commands}
    buffer = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        result = await confirm_project_trust(
            setup,
            str(agent),
            console=Console(file=buffer, width=200, color_system=None),
            input=pipe,
            output=DummyOutput(),
        )
    return result, buffer.getvalue(), setup


DOWN = "\x1b[B"


def test_the_trust_question_is_pi_selector_with_the_files() -> None:
    from pi_core.modes.interactive.trust import TRUST_CHOICES, trust_question
    from pi_core.plugins.trust import TrustCheck

    check = TrustCheck(Path("/p"), "untrusted", "f", (Path("/p/.pi/extensions/a.py"),), ("shellPath",))
    assert trust_question(check).splitlines() == [
        "Trust project folder?",
        "/p",
        "",
        "It has plugin code that is not trusted yet. Trusting it lets pi run:",
        "  /p/.pi/extensions/a.py",
        "  .pi/settings.json: shellPath (programs pi would run)",
    ]
    assert "changed since you trusted it" in trust_question(TrustCheck(Path("/p"), "changed", "f", ()))
    assert TRUST_CHOICES == (
        "Trust",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    )


async def test_trust_records_trust_and_loads_project_plugins(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    result, out, _ = await _answer_trust(tmp_path, "\r")  # the first choice: Trust
    assert "its plugins are loaded" in out and "for this session" not in out
    assert "quiz" in {c.name for c in result.registrations.commands}
    check = check_project_trust(tmp_path / "project", tmp_path / "agent")
    assert check.status == "trusted"


async def test_trust_for_this_session_only_records_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    result, out, before = await _answer_trust(tmp_path, DOWN + "\r")
    assert "for this session; its plugins are loaded" in out
    assert "quiz" in {c.name for c in result.registrations.commands}
    assert check_project_trust(tmp_path / "project", tmp_path / "agent").status == "untrusted"
    # A /reload in this process (the same decisions) loads them again without asking.
    again = await prepare_plugins_async(
        PluginControl(), cwd=tmp_path / "project", trust_decisions=before.trust_decisions
    )
    assert again.pm.untrusted_project is None and "quiz" in {c.name for c in again.registrations.commands}


async def test_do_not_trust_records_the_refusal(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    result, out, _ = await _answer_trust(tmp_path, DOWN * 2 + "\r")
    assert "its plugins stay off" in out
    assert "quiz" not in {c.name for c in result.registrations.commands}
    assert check_project_trust(tmp_path / "project", tmp_path / "agent").status == "declined"


@pytest.mark.parametrize("keys", [DOWN * 3 + "\r", "\x1b"], ids=["this-session-only", "escape"])
async def test_not_trusting_for_now_goes_on_without_project_plugins(
    tmp_path: Path, monkeypatch: Any, keys: str
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    result, out, _ = await _answer_trust(tmp_path, keys)
    assert "Going on without the project's plugins" in out
    assert "quiz" not in {c.name for c in result.registrations.commands}
    assert check_project_trust(tmp_path / "project", tmp_path / "agent").status == "untrusted"


async def test_plugin_shutdown_ends_the_repl(repl_factory: Callable[..., Any], tmp_path: Path) -> None:
    repl = await repl_factory(extensions=(_extension(tmp_path),))
    await repl.submit("/bye")
    assert await asyncio.wait_for(repl.task, 5) == 0


async def test_plugin_shortcuts_and_message_renderers(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    repl = await repl_factory(extensions=(_extension(tmp_path),))
    await repl.wait_for("Shortcut 'ctrl+shift+q' of plugin quiz_ext cannot be used in this terminal")
    await repl.wait_idle_editor()
    repl.send("\x14")  # Ctrl+T
    await repl.wait_for("SHORTCUT FIRED in project")
    await repl.submit("/announce")
    await repl.wait_for("*** BANNER: plain banner text ***")
    assert "[banner]" not in repl.output
    assert await repl.quit() == 0


RELOADABLE = """
from pi_core import hookimpl

VERSION = "{version}"


@hookimpl
def session_start(event, ctx):
    ctx.ui.notify(f"STARTED {{VERSION}} ({{event.reason}})")
    ctx.ui.set_status("ver", "status " + VERSION)


def on_key(ctx):
    ctx.ui.notify("KEY OF " + VERSION)


@hookimpl
def register_shortcuts(register):
    register("{key}", on_key, description="which version")
"""


async def test_plugins_start_with_the_repl_ui_and_reload_picks_up_edits(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    path = tmp_path / "reloadable.py"
    path.write_text(RELOADABLE.format(version="one", key="ctrl+t"))
    repl = await repl_factory(extensions=(str(path),))
    await repl.wait_for("STARTED one (startup)")  # session_start sees the REPL's UI, not a headless one
    assert repl.output.index("/help for commands") < repl.output.index("STARTED one")
    assert "status one" in repl.mode.ui.toolbar_lines()
    await repl.wait_idle_editor()
    repl.send("\x14")  # Ctrl+T
    await repl.wait_for("KEY OF one")

    path.write_text(RELOADABLE.format(version="two", key="ctrl+y"))
    await repl.submit("/reload")
    await repl.wait_for("STARTED two (reload)")
    assert repl.mode.ui.toolbar_lines() == ["status two"]  # the old instance's status is gone
    await repl.wait_idle_editor()
    repl.send("\x19")  # Ctrl+Y: the new shortcut is bound
    await repl.wait_for("KEY OF two")
    repl.send("\x14")  # Ctrl+T no longer belongs to the plugin
    await asyncio.sleep(0.2)
    assert "KEY OF one" in repl.output and repl.output.count("KEY OF") == 2
    assert await repl.quit() == 0
