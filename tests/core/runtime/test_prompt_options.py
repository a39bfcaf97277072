"""``system_prompt_options``: filled on ``before_agent_start``, edits act for one run, and
``ctx.get_system_prompt_options()`` reads the default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_core.plugins import events as ev
from pi_core.testing import LoopbackLLMServer, text_turn
from pi_core.testing.session import PiSession

from pi_core import hookimpl


class Editor:
    def __init__(self) -> None:
        self.seen: list[ev.SystemPromptOptions] = []
        self.edit = True

    @hookimpl
    def before_agent_start(self, event: ev.BeforeAgentStartEvent) -> None:
        options = event.system_prompt_options
        assert options is not None
        self.seen.append(options.model_copy(deep=True))
        if self.edit:
            options.prompt_guidelines = [*(options.prompt_guidelines or []), "Run the tests after every edit"]
            options.selected_tools = [name for name in options.selected_tools or [] if name != "bash"]
            options.sections = {**(options.sections or {}), "team": "We ship on Fridays."}


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _system(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] in ("system", "developer")
    return str(first["content"])


async def test_edited_options_shape_one_run(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "AGENTS.md").write_text("Use tabs.\n")
    editor = Editor()
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[editor], builtin_tools=True) as pi:
        default_prompt = pi.session.system_prompt
        await pi.prompt("first")
        editor.edit = False
        await pi.prompt("second")
        messages = [e["message"] for e in pi.entries if e["type"] == "message"]
    systems = [m for m in messages if m["role"] == "system"]
    seen = editor.seen[0]
    assert seen.cwd == str(pi.project) and "bash" in (seen.selected_tools or [])
    assert seen.tool_snippets and seen.tool_snippets["bash"]
    assert [f["content"] for f in seen.context_files or []] == ["Use tabs.\n"]
    first, second = pi.requests[0].body, pi.requests[1].body
    assert "Run the tests after every edit" in _system(first)
    assert "<team>\nWe ship on Fridays.\n</team>" in _system(first)
    assert "bash" not in _tool_names(first) and "read" in _tool_names(first)
    # the next run is back to the default prompt and tools
    assert _system(second) == default_prompt and "bash" in _tool_names(second)
    # the transcript records what each run was sent: the edited head, then the way back
    assert len(systems) == 2
    assert systems[0]["sections"]["team"] == "<team>\nWe ship on Fridays.\n</team>"
    assert "bash" not in [t["name"] for t in systems[0]["toolsAdded"]]
    assert systems[1]["sections"]["team"] is None
    assert [t["name"] for t in systems[1]["toolsAdded"]] == ["bash"]


async def test_forced_prompt_and_a_bad_section_name(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    @hookimpl
    def before_agent_start(event: ev.BeforeAgentStartEvent) -> None:
        assert event.system_prompt_options is not None
        if event.prompt == "forced":
            event.system_prompt_options.force_system_prompt = "You are terse."
        else:
            event.system_prompt_options.sections = {"not a name!": "x"}

    class Plugin:
        pass

    plugin = Plugin()
    plugin.before_agent_start = before_agent_start  # type: ignore[attr-defined]
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[plugin], strict=False) as pi:
        await pi.prompt("forced")
        await pi.prompt("bad")
        default_prompt = pi.session.system_prompt
        notices = [str(e) for e in pi.events if getattr(e, "type", "") == "extension_error"]
    assert _system(pi.requests[0].body) == "You are terse."
    assert _system(pi.requests[1].body) == default_prompt  # the bad edit is dropped…
    assert any("Invalid system prompt section name" in n for n in notices)  # …and reported


async def test_send_user_message_expands_prompt_templates_when_asked(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    prompts = tmp_path / "project" / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("Review $1 carefully.\n")
    ran: list[str] = []

    class Sender:
        @hookimpl
        def register_commands(self, register: Any) -> None:
            async def mark(args: str, ctx: Any) -> None:
                ran.append(args)

            register("mark", mark)

    pi_llm_server.add(text_turn("one"), text_turn("two"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[Sender()]) as pi:
        ctx = pi.ctx()
        await ctx.send_user_message("/mark now", expand_prompt_templates=True)
        assert ran == ["now"] and not pi.requests  # the command ran; nothing went to the model
        await ctx.send_user_message("/review main.py", expand_prompt_templates=True)
        await ctx.send_user_message("/review main.py")
        sent = [r.body["messages"][-1]["content"] for r in pi.requests]
    assert "Review main.py carefully." in str(sent[0])
    assert "/review main.py" in str(sent[1])  # without the option: plain text, as pi
