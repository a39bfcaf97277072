from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core.ai.messages import CustomMessage, UserMessage
from pi_core.runtime.extension_context import RuntimeCommandContext, RuntimeContext, StaleContextError
from pi_core.testing.faux import text_message

if TYPE_CHECKING:
    from conftest import Harness


def _records(path: str | None) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path or "").read_text().splitlines()]


async def test_context_reads_live_state(harness: Harness) -> None:
    session = harness.build()
    ctx = RuntimeContext(session)
    assert ctx.cwd == str(harness.tmp) and ctx.model is session.model and ctx.is_idle()
    assert ctx.has_ui is False and await ctx.ui.confirm("sure?", "x") is False
    assert ctx.get_active_tools() == ["write"] and ctx.get_all_tools() == ["write"]
    ctx.set_active_tools([])
    assert session.active_tool_names == [] and "<tools>\n(none)\n" in ctx.get_system_prompt()
    assert ctx.get_thinking_level() == "off"


async def test_thinking_level_and_scoped_models(harness: Harness) -> None:
    thinker = harness.add_model("faux-think", reasoning=True)
    session = harness.build()
    first = session.model
    assert first is not None
    session.services.scoped_models = [(thinker, "high"), (first, None)]
    ctx = RuntimeContext(session)
    scoped = [(entry.model.id, entry.thinking_level) for entry in ctx.scoped_models]
    assert scoped == [("faux-think", "high"), ("faux-1", None)]
    assert ctx.scoped_models[0].model_dump(by_alias=True)["thinkingLevel"] == "high"
    await session.set_model(thinker)
    session.set_thinking_level("max")
    assert ctx.thinking_level == "high" == ctx.get_thinking_level()  # clamped to the model


async def test_send_message_next_turn_and_trigger_turn(harness: Harness) -> None:
    harness.provider.responses += [text_message("one"), text_message("two")]
    session = harness.build()
    ctx = RuntimeContext(session)
    await ctx.send_message("note", "remember this", deliver_as="nextTurn")
    await session.prompt("hi")
    roles = [m.role for m in session.messages if m.role != "system"]
    assert roles == ["user", "custom", "assistant"]
    await ctx.send_message("alarm", "wake up", trigger_turn=True)
    last_custom = session.messages[-2]
    assert isinstance(last_custom, CustomMessage) and last_custom.custom_type == "alarm"
    assert session.get_last_assistant_text() == "two"
    await ctx.send_message("quiet", "just recorded")
    assert session.messages[-1].role == "custom" and len(harness.provider.requests) == 2


async def test_entries_labels_and_names_are_persisted(harness: Harness) -> None:
    harness.provider.responses.append(text_message("ok"))
    session = harness.build()
    ctx = RuntimeContext(session)
    await session.prompt("hi")
    entry_id = ctx.append_entry("my-plugin", {"count": 1})
    ctx.set_label(entry_id, "checkpoint")
    ctx.set_session_name("work")
    lines = _records(session.session_file)
    kinds = [line["type"] for line in lines]
    assert kinds[-3:] == ["custom", "label", "session_info"]
    assert lines[-3]["data"] == {"count": 1} and ctx.get_session_name() == "work"


async def test_exec_runs_without_a_shell(harness: Harness) -> None:
    ctx = RuntimeContext(harness.build())
    result = await ctx.exec("printf", ["%s-%s", "a", "b"])
    assert (result.stdout, result.code, result.killed) == ("a-b", 0, False)
    slow = await ctx.exec("sleep", ["5"], timeout=0.2)
    assert (slow.killed, slow.code, slow.truncated) == (True, 143, False)  # SIGTERM, as a shell says


async def test_exec_max_buffer_cuts_both_streams_together(harness: Harness) -> None:
    ctx = RuntimeContext(harness.build())
    script = "printf 'ab' >&2; sleep 0.2; printf 'cdefgh'; sleep 5"
    cut = await ctx.exec("sh", ["-c", script], max_buffer=5, timeout=10)
    assert (cut.stderr, cut.stdout, cut.truncated, cut.killed) == ("ab", "cde", True, True)
    assert cut.code == 143
    whole = await ctx.exec("sh", ["-c", "printf 12345"], max_buffer=5)
    assert (whole.stdout, whole.truncated, whole.code) == ("12345", False, 0)
    # a cut through a character drops the partial tail (no replacement character)
    split = await ctx.exec("sh", ["-c", "printf 'a\\303\\251b'; sleep 5"], max_buffer=2)
    assert (split.stdout, split.truncated) == ("a", True)
    # a program that finishes at the moment it overflows still never reads as success
    quick = await ctx.exec("printf", ["123456"], max_buffer=3)
    assert quick.truncated and quick.code != 0 and quick.stdout == "123"
    with pytest.raises(ValueError, match="max_buffer must be a whole number"):
        await ctx.exec("true", max_buffer=-1)


async def test_exec_reports_a_signal_death_as_128_plus_the_signal(harness: Harness) -> None:
    ctx = RuntimeContext(harness.build())
    died = await ctx.exec("sh", ["-c", "kill -9 $$"])
    assert (died.code, died.killed) == (137, False)  # not pi's doing


async def test_send_user_message_prompts_without_templates(harness: Harness) -> None:
    harness.provider.responses.append(text_message("ok"))
    session = harness.build()
    await RuntimeContext(session).send_user_message("/not-a-template")
    first = next(m for m in session.messages if m.role != "system")
    assert isinstance(first, UserMessage) and first.content[0].text == "/not-a-template"  # type: ignore[union-attr]


async def test_stale_context_raises_after_session_replacement(harness: Harness) -> None:
    session = harness.build()
    ctx = RuntimeCommandContext(session)
    await session.dispose("new")
    with pytest.raises(StaleContextError):
        _ = ctx.cwd
    with pytest.raises(StaleContextError):
        ctx.set_session_name("x")


async def test_command_context_wait_for_idle_and_navigate_tree(harness: Harness) -> None:
    harness.provider.responses += [text_message("one"), text_message("two")]
    session = harness.build()
    await session.prompt("first")
    await session.prompt("second")
    ctx: Any = RuntimeCommandContext(session)
    await ctx.wait_for_idle()
    first_user = next(e for e in session.session_manager.get_branch() if e.type == "message")
    result = await ctx.navigate_tree(first_user.id)
    assert result.cancelled is False
    # the leaf moved before the first message: only the recorded prompt is left
    assert [m.role for m in session.messages] == ["system"]
