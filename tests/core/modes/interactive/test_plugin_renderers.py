"""Plugin display parts in both REPL modes: ``register_tool_renderers`` resolvers draw tool calls
and results, ``register_markdown_transformers`` rewrite Markdown before it is drawn, and a part
that raises is reported once as its plugin's error while the default drawing stands in."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn

RENDERERS = """
from pi_core import hookimpl


class Loud:
    def render_call(self, args, ctx):
        return ctx.ui.theme.fg("accent", "LOUD-CALL " + args["command"])

    def render_result(self, result, options, ctx):
        return "LOUD-RESULT " + result.content[0].text.strip().upper()


def resolve(tool_name, next):
    if tool_name == "bash":
        return Loud()
    return next()


def arrows(markdown, context):
    return markdown.replace("-->", "ARROW(" + context.message_type + ")")


@hookimpl
def register_tool_renderers(register):
    register(resolve)


@hookimpl
def register_markdown_transformers(register):
    register(arrows, message_types=["assistant", "user"])
"""

BROKEN = """
from pi_core import hookimpl


class Exploding:
    def render_call(self, args, ctx):
        raise RuntimeError("call renderer exploded")

    def render_result(self, result, options, ctx):
        raise RuntimeError("result renderer exploded")


def resolve(tool_name, next):
    if tool_name == "read":
        return Exploding()
    return next()


def broken(markdown, context):
    raise ValueError("transformer exploded")


@hookimpl
def register_tool_renderers(register):
    register(resolve)


@hookimpl
def register_markdown_transformers(register):
    register(broken)
"""


def _write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return str(path)


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_plugin_tool_renderer_and_markdown_transformer_draw_in_the_repl(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path, fullscreen: bool
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": "echo quiet-words"})), text_turn("a --> b"))
    repl = await repl_factory(extensions=(_write(tmp_path, "loud", RENDERERS),), fullscreen=fullscreen)
    await repl.submit("x --> y")
    await repl.wait_for("ARROW(assistant)")
    await repl.idle()
    out = repl.output
    assert "LOUD-CALL echo quiet-words" in out  # the plugin's render_call, not the bash tool's
    assert "$ echo quiet-words" not in out
    assert "LOUD-RESULT QUIET-WORDS" in out  # its render_result
    assert "a ARROW(assistant) b" in out and "x ARROW(user) y" in out
    assert "-->" not in out
    # Display only: the session and the model keep the original text.
    assert "x --> y" in json.dumps(pi_llm_server.requests[0].body)
    assert "a --> b" in json.dumps(pi_llm_server.requests[-1].body) or len(pi_llm_server.requests) == 2
    assert "Extension error" not in out
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_raising_renderer_is_its_plugins_error_and_the_default_drawing_stands_in(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path, fullscreen: bool
) -> None:
    (tmp_path / "project" / "notes.txt").write_text("hello-notes\n")
    pi_llm_server.add(
        tool_turn(ToolUse("read", {"path": "notes.txt"})),
        tool_turn(ToolUse("read", {"path": "notes.txt"})),
        text_turn("plain **answer**"),
    )
    repl = await repl_factory(extensions=(_write(tmp_path, "exploding", BROKEN),), fullscreen=fullscreen)
    await repl.submit("list")
    await repl.wait_for("plain answer")
    await repl.idle()
    await repl.until(lambda: repl.output.count("Extension error") >= 3)
    out = repl.output
    assert out.count('read {"path": "notes.txt"}') == 2  # the default drawing of the calls
    assert out.count("hello-notes") == 2  # and of the results
    assert "Extension error (exploding, render_call): call renderer exploded" in out
    assert "Extension error (exploding, render_result): result renderer exploded" in out
    assert "Extension error (exploding, markdown_transformer): transformer exploded" in out
    # Once per plugin and part, however often the blocks are drawn.
    assert out.count("call renderer exploded") == 1 and out.count("result renderer exploded") == 1
    assert out.count("transformer exploded") == 1
    assert await repl.quit() == 0


CARDS = """
from pi_core import hookimpl


def card(entry, options, theme):
    if entry.data.get("hidden"):
        return None
    if entry.data.get("broken"):
        raise KeyError("no such field")
    return theme.fg("accent", f"CARD after {entry.data['after']}")


@hookimpl
def register_entry_renderers(register):
    register("card", card)


@hookimpl
def agent_end(event, ctx):
    last = event.messages[-1].content[0].text
    ctx.append_entry("card", {"after": last})
    ctx.append_entry("card", {"hidden": True})
    if last == "second":
        ctx.append_entry("card", {"broken": True})
"""


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_plugin_entry_renderer_draws_custom_entries_live_and_when_resumed(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, tmp_path: Path, fullscreen: bool
) -> None:
    pi_llm_server.add(text_turn("first"), text_turn("second"))
    extension = _write(tmp_path, "cards", CARDS)
    repl = await repl_factory(extensions=(extension,), fullscreen=fullscreen)
    await repl.submit("one")
    await repl.wait_for("CARD after first")
    await repl.idle()
    await repl.submit("two")
    await repl.until(lambda: "Extension error (cards, render_entry): 'no such field'" in repl.output)
    out = repl.output
    assert "CARD after second" in out and out.index("CARD after first") < out.index("> two")
    assert "hidden" not in out and "[card]" not in out  # None draws nothing; entries are not messages
    assert await repl.quit() == 0
    again = await repl_factory(extensions=(extension,), fullscreen=fullscreen, continue_recent=True)
    await again.wait_for("CARD after second")
    replayed = again.output
    # Each card where it was appended: after the answer it followed, before the next prompt.
    assert replayed.index("first") < replayed.index("CARD after first") < replayed.index("> two")
    assert replayed.index("second") < replayed.index("CARD after second")
    assert await again.quit() == 0


FAILING_MESSAGE_RENDERER = """
from pi_core import hookimpl


def render_alarm(message, options, theme):
    raise KeyError("no such field")


async def alarm(args, ctx):
    await ctx.send_message("alarm", "first alarm text", display=True)
    await ctx.send_message("alarm", "second alarm text", display=True)


@hookimpl
def register_message_renderers(register):
    register("alarm", render_alarm)


@hookimpl
def register_commands(register):
    register("alarm", alarm, description="show two alarms")
"""


@pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])
async def test_a_raising_message_renderer_is_its_plugins_error_and_the_message_still_shows(
    repl_factory: Callable[..., Any], tmp_path: Path, fullscreen: bool
) -> None:
    extension = _write(tmp_path, "alarms", FAILING_MESSAGE_RENDERER)
    repl = await repl_factory(extensions=(extension,), fullscreen=fullscreen)
    await repl.submit("/alarm")
    await repl.wait_for("second alarm text")
    out = repl.output
    assert "[alarm] first alarm text" in out and "[alarm] second alarm text" in out
    assert "Extension error (alarms, render_message): 'no such field'" in out
    assert out.count("no such field") == 1  # once, however many messages it fails on
    assert await repl.quit() == 0
