from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core._markers import hookimpl
from pi_core.agent.agent import UNKNOWN_MODEL
from pi_core.agent.events import AgentEndEvent
from pi_core.ai.messages import AssistantMessage, CustomMessage, UserMessage
from pi_core.ai.provider import THINKING_LEVELS
from pi_core.plugins.registry import CommandSpec
from pi_core.runtime.events import AgentSettledEvent, AutoRetryEndEvent, AutoRetryStartEvent, QueueUpdateEvent
from pi_core.runtime.session import ALREADY_STREAMING
from pi_core.testing.faux import text_message, tool_call_message

if TYPE_CHECKING:
    from conftest import Harness


def chat(session: Any) -> list[Any]:
    """The session's messages without the system messages (pi 1.6.0's prompt records)."""
    return [m for m in session.messages if m.role != "system"]


def _file_lines(session: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(session.session_file).read_text().splitlines()]


async def test_prompt_emits_pi_event_order_and_persists(harness: Harness) -> None:
    harness.provider.responses += [text_message("Hello world"), text_message("Hello again")]
    session = harness.build()
    await session.prompt("Say hi")
    assert [t for t in harness.types() if t != "message_update"] == [
        "agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end",
        "message_start", "message_end", "turn_end", "agent_end", "agent_settled",
    ]  # fmt: skip
    assert harness.events[-1].aborted is False and harness.events[-2].will_retry is False
    lines = _file_lines(session)
    assert lines[0]["type"] == "session"
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]
    assert roles == ["system", "user", "assistant"]  # pi 1.6.0 records the prompt first
    system = next(line["message"] for line in lines if line["type"] == "message")
    assert system["sections"] == session.system_prompt_sections
    assert [tool["name"] for tool in system["toolsAdded"]] == session.active_tool_names
    await session.prompt("Again")  # nothing changed: no second system message
    roles = [line["message"]["role"] for line in _file_lines(session) if line["type"] == "message"]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert session.get_last_assistant_text() == "Hello again"


async def test_tool_turn_writes_file_through_ctx_cwd(harness: Harness) -> None:
    harness.provider.responses += [
        tool_call_message(("c1", "write", {"path": "out.txt", "content": "hi\n"})),
        text_message("done"),
    ]
    session = harness.build()
    await session.prompt("write it")
    assert (harness.tmp / "out.txt").read_text() == "hi\n"
    roles = [m.role for m in chat(session)]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    stats = session.get_session_stats()
    assert (stats.user_messages, stats.tool_calls, stats.tool_results) == (1, 1, 1)


async def test_auto_retry_drops_failed_reply_from_context_but_keeps_it_in_file(harness: Harness) -> None:
    harness.provider.responses += [
        text_message("", stop_reason="error", error_message="503 Service Unavailable"),
        text_message("Recovered"),
    ]
    session = harness.build()
    await session.prompt("go")
    retry_events = [e for e in harness.events if isinstance(e, AutoRetryStartEvent | AutoRetryEndEvent)]
    assert retry_events == [
        AutoRetryStartEvent(attempt=1, max_attempts=3, delay_ms=1, error_message="503 Service Unavailable"),
        AutoRetryEndEvent(success=True, attempt=1),
    ]
    assert [m.role for m in chat(session)] == ["user", "assistant"]
    lines = _file_lines(session)
    stored = [line["message"].get("stopReason") for line in lines if line["type"] == "message"]
    assert stored == [None, None, "error", "stop"]
    failed = next(line for line in lines if line.get("message", {}).get("stopReason") == "error")
    edits = [line for line in lines if line["type"] == "context_edit"]
    assert [(e["targetId"], e["replacement"]) for e in edits] == [(failed["id"], None)]  # as pi 1.6.0


async def test_retry_gives_up_after_max_retries(harness: Harness) -> None:
    harness.settings.apply_overrides({"retry": {"maxRetries": 1}})
    failure = text_message("", stop_reason="error", error_message="overloaded_error")
    harness.provider.responses += [failure, failure.model_copy()]
    session = harness.build()
    await session.prompt("go")
    assert harness.events[-2] == AutoRetryEndEvent(success=False, attempt=1, final_error="overloaded_error")
    assert harness.events[-1] == AgentSettledEvent(aborted=False)
    will_retry = [e.will_retry for e in harness.events if isinstance(e, AgentEndEvent)]
    assert will_retry == [True, False]  # the budget of one retry is spent after the first


async def test_no_api_key_is_a_clear_prompt_error(harness: Harness) -> None:
    from pi_core.testing.faux import faux_model

    session = harness.build(model=faux_model(provider="keyless"))
    with pytest.raises(RuntimeError, match=r"^No API key found for keyless\.\n\nSave an API key with /login"):
        await session.prompt("hi")
    assert harness.events == []


async def test_second_prompt_while_streaming_needs_streaming_behavior(harness: Harness) -> None:
    harness.provider.delay = 0.02
    harness.provider.responses += [text_message("first answer is long enough"), text_message("second")]
    session = harness.build()
    run = asyncio.create_task(session.prompt("one"))
    await asyncio.sleep(0.01)
    with pytest.raises(RuntimeError, match="Specify streamingBehavior"):
        await session.prompt("two")
    assert ALREADY_STREAMING.startswith("Agent is already processing.")
    await session.prompt("queued", streaming_behavior="followUp")
    await run
    assert [m.content[0].text for m in chat(session) if isinstance(m, UserMessage)] == ["one", "queued"]  # type: ignore[union-attr]
    updates = [e for e in harness.events if isinstance(e, QueueUpdateEvent)]
    assert updates[0].follow_up == ["queued"] and updates[-1].follow_up == []


async def test_prompt_template_expansion(harness: Harness) -> None:
    prompts = harness.tmp / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "rev.md").write_text("Review $1 and also $@ / ${@:2} / $ARGUMENTS")
    harness.provider.responses.append(text_message("ok"))
    session = harness.build()
    await session.prompt('/rev a.ts "b c" d')
    first = chat(session)[0]
    assert isinstance(first, UserMessage)
    assert first.content[0].text == "Review a.ts and also a.ts b c d / b c d / a.ts b c d"  # type: ignore[union-attr]


async def test_extension_command_runs_instead_of_prompt_and_errors_are_isolated(harness: Harness) -> None:
    seen: list[str] = []

    async def hello(args: str, ctx: Any) -> None:
        seen.append(args)
        ctx.set_session_name("named")

    def broken(args: str, ctx: Any) -> None:
        raise ValueError("kaputt")

    commands = [
        CommandSpec("hello", "hello", hello, None, None, "greeter"),
        CommandSpec("broken", "broken", broken, None, None, "breaker"),
    ]
    errors: list[Any] = []
    session = harness.build(commands=commands)
    await session.bind_mode(on_error=errors.append)
    await session.prompt("/hello world")
    await session.prompt("/broken")
    assert seen == ["world"] and session.session_name == "named"
    assert [(e.extension_path, e.event, e.error) for e in errors] == [
        ("breaker", "command /broken", "kaputt")
    ]
    assert harness.provider.requests == []


class InputAndStartPlugin:
    @hookimpl
    def input(self, event: Any) -> dict[str, Any]:
        return {"action": "transform", "text": event.text.upper()}

    @hookimpl
    def before_agent_start(self, event: Any) -> dict[str, Any]:
        return {
            "message": {"customType": "note", "content": "injected"},
            "systemPrompt": event.system_prompt + "\nEXTRA",
        }


async def test_input_transform_and_before_agent_start_injection(harness: Harness) -> None:
    harness.provider.responses.append(text_message("ok"))
    session = harness.build(plugins=[InputAndStartPlugin()])
    base = session.system_prompt
    await session.prompt("shout")
    context, _ = harness.provider.requests[0]
    assert context.system_prompt == base + "\nEXTRA"
    assert session.system_prompt == base  # the replacement lasts one run
    sections = session.system_prompt_sections
    assert "\n\n".join(sections.values()) == base and next(iter(sections)) == "preamble"
    assert list(sections)[-1] == "cwd" and "EXTRA" not in base
    first, second = chat(session)[0], chat(session)[1]
    assert isinstance(first, UserMessage) and first.content[0].text == "SHOUT"  # type: ignore[union-attr]
    assert isinstance(second, CustomMessage) and second.content == "injected"
    custom = [line for line in _file_lines(session) if line["type"] == "custom_message"]
    assert custom and custom[0]["customType"] == "note"


class BlockingPlugin:
    @hookimpl
    def tool_call(self, event: Any) -> dict[str, Any] | None:
        return {"block": True, "reason": "no writing"} if event.tool_name == "write" else None


async def test_tool_call_hook_blocks_the_tool(harness: Harness) -> None:
    harness.provider.responses += [
        tool_call_message(("c1", "write", {"path": "x.txt", "content": "x"})),
        text_message("ok"),
    ]
    session = harness.build(plugins=[BlockingPlugin()])
    await session.prompt("write")
    assert not (harness.tmp / "x.txt").exists()
    result = chat(session)[2]
    assert result.role == "toolResult" and result.is_error  # type: ignore[union-attr]
    assert result.content[0].text == "no writing"  # type: ignore[union-attr]


async def test_user_bash_is_recorded_for_the_next_prompt(harness: Harness) -> None:
    harness.provider.responses.append(text_message("seen"))
    session = harness.build()
    outcome = await session.execute_bash("echo hi; exit 3")
    assert (outcome.output, outcome.exit_code, outcome.cancelled) == ("hi\n", 3, False)
    await session.prompt("what happened?")
    context, _ = harness.provider.requests[0]
    first = context.messages[0]
    assert isinstance(first, UserMessage)
    assert "Ran `echo hi; exit 3`" in first.content[0].text  # type: ignore[union-attr]


async def test_abort_during_streaming_keeps_the_partial_reply(harness: Harness) -> None:
    harness.provider.delay = 0.05
    harness.provider.responses.append(text_message("a long answer that streams slowly"))
    session = harness.build()
    run = asyncio.create_task(session.prompt("go"))
    await asyncio.sleep(0.08)
    await session.abort()
    await run
    last = chat(session)[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"


async def test_thinking_level_and_model_changes_are_recorded(harness: Harness) -> None:
    thinker = harness.add_model("faux-think", reasoning=True)
    session = harness.build()
    await session.set_model(thinker)
    session.set_thinking_level("high")
    assert session.thinking_level == "high"
    assert session.cycle_thinking_level() is not None
    changes = [e.type for e in session.session_manager.get_entries()]
    # the switch keeps "off" (no saved default, as pi 1.6.0): only high and the cycle are changes
    assert changes.count("model_change") == 1 and changes.count("thinking_level_change") == 2
    # As pi 1.6.0: switching records the change in the session but leaves the defaults alone.
    settings = harness.settings.settings
    assert (settings.default_model, settings.default_thinking_level) == (None, None)


async def test_defaults_are_saved_only_when_asked(harness: Harness) -> None:
    thinker = harness.add_model("faux-think", reasoning=True)
    session = harness.build()
    first = session.model
    assert first is not None
    session.services.scoped_models = [(first, None)]
    harness.settings.set("enabledModels", ["faux/faux-1"])
    await session.set_model(thinker, persist=True)
    session.set_thinking_level("xhigh", persist=True)
    settings = harness.settings.settings
    assert (settings.default_provider, settings.default_model) == ("faux", "faux-think")
    assert settings.default_thinking_level == "xhigh"  # the level asked for, clamped or not
    # A default outside a non-empty scope joins it, so Ctrl+P still reaches it.
    assert [m.id for m, _ in session.services.scoped_models] == ["faux-1", "faux-think"]
    assert settings.enabled_models == ["faux/faux-1", "faux/faux-think"]


async def test_available_thinking_levels_follow_the_model(harness: Harness) -> None:
    deep = harness.add_model("faux-deep", reasoning=True, thinkingLevelMap={"max": "max", "minimal": None})
    session = harness.build()
    assert session.available_thinking_levels() == ["off"]  # no reasoning
    session.set_thinking_level("off", persist=True)
    assert harness.settings.settings.default_thinking_level == "off"  # saved all the same, as pi
    await session.set_model(deep)
    assert session.available_thinking_levels() == ["off", "low", "medium", "high", "max"]
    session.agent.state.model = UNKNOWN_MODEL  # before a model is chosen: every level
    assert session.available_thinking_levels() == list(THINKING_LEVELS)


class _KeepLastUserStrategy:
    """A compaction strategy for tests: keep everything from the last user message on."""

    def __init__(self) -> None:
        self.calls = 0

    def prepare(self, branch: Any, settings: Any) -> Any:
        from pi_core.runtime.compaction import CompactionPreparation

        users = [e for e in branch if e.type == "message" and e.message.role == "user"]
        if not users or branch[-1].type == "compaction":
            return None
        return CompactionPreparation(first_kept_entry_id=users[-1].id, tokens_before=1234)

    async def compact(self, preparation: Any, *, complete: Any, signal: Any, custom_instructions: Any) -> Any:
        from pi_core.runtime.compaction import CompactionResult

        self.calls += 1
        return CompactionResult(
            summary="SUMMARY", first_kept_entry_id=preparation.first_kept_entry_id, tokens_before=1234
        )


def _with_strategy(harness: Harness, session: Any) -> _KeepLastUserStrategy:
    from pi_core.runtime.compaction import CompactionStrategyRegistry

    strategy = _KeepLastUserStrategy()
    registry = CompactionStrategyRegistry()
    registry.register("default", strategy, owner="tests")
    session.services.compaction = registry
    return strategy


async def test_context_overflow_compacts_and_continues_once(harness: Harness) -> None:
    from pi_core.runtime.events import CompactionEndEvent, CompactionStartEvent

    overflow = "prompt is too long: 213462 tokens > 200000 maximum"
    harness.provider.responses += [
        text_message("first"),
        text_message("", stop_reason="error", error_message=overflow),
        text_message("after compaction"),
    ]
    session = harness.build()
    strategy = _with_strategy(harness, session)
    await session.prompt("one")
    await session.prompt("two")
    assert strategy.calls == 1
    starts = [e for e in harness.events if isinstance(e, CompactionStartEvent)]
    ends = [e for e in harness.events if isinstance(e, CompactionEndEvent)]
    assert [e.reason for e in starts] == ["overflow"]
    assert ends[0].will_retry and ends[0].result is not None and ends[0].result["summary"] == "SUMMARY"
    roles = [m.role for m in chat(session)]
    assert roles == ["compactionSummary", "user", "assistant"]
    assert session.get_last_assistant_text() == "after compaction"


async def test_threshold_compaction_after_a_large_reply(harness: Harness) -> None:
    from pi_core.ai.messages import Usage
    from pi_core.runtime.events import CompactionEndEvent

    big = text_message("big", usage=Usage(input=95_000, output=100, total_tokens=95_100))
    harness.provider.responses += [text_message("small"), big]
    session = harness.build()
    _with_strategy(harness, session)
    await session.prompt("one")
    await session.prompt("two")
    ends = [e for e in harness.events if isinstance(e, CompactionEndEvent)]
    assert [(e.reason, e.will_retry) for e in ends] == [("threshold", False)]
    assert chat(session)[0].role == "compactionSummary"


async def test_without_a_compaction_plugin_a_needed_compaction_is_reported_once(harness: Harness) -> None:
    from pi_core.ai.messages import Usage

    big = Usage(input=95_000, output=100, total_tokens=95_100)
    harness.provider.responses += [text_message("a", usage=big), text_message("b", usage=big)]
    errors: list[Any] = []
    session = harness.build()
    await session.bind_mode(on_error=errors.append)
    await session.prompt("one")
    await session.prompt("two")
    assert len(errors) == 1 and "no compaction strategy is installed" in errors[0].error
    assert session.get_last_assistant_text() == "b"


async def test_abort_cancels_a_pending_retry(harness: Harness) -> None:
    harness.settings.apply_overrides({"retry": {"baseDelayMs": 60_000}})
    harness.provider.responses.append(text_message("", stop_reason="error", error_message="429 rate limited"))
    session = harness.build()
    run = asyncio.create_task(session.prompt("go"))
    for _ in range(100):
        await asyncio.sleep(0.01)
        if any(isinstance(e, AutoRetryStartEvent) for e in harness.events):
            break
    assert not session.is_idle
    await session.abort()
    await asyncio.wait_for(run, 5)
    assert harness.events[-2] == AutoRetryEndEvent(success=False, attempt=1, final_error="Retry cancelled")
    assert harness.events[-1] == AgentSettledEvent(aborted=True)
    assert session.is_idle


async def test_block_images_setting_replaces_images_on_every_call(harness: Harness) -> None:
    from pi_core.ai.messages import ImageContent, TextContent
    from pi_core.session.convert import IMAGES_BLOCKED

    pixel = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    harness.provider.responses += [text_message("seen"), text_message("not seen")]
    session = harness.build()
    await session.prompt("look", images=[pixel, pixel])
    harness.settings.set("images.blockImages", True)  # takes effect on the next call, mid-session
    await session.prompt("and now?")
    first, second = (context.messages for context, _ in harness.provider.requests)
    assert [b.type for b in first[0].content] == ["text", "image", "image"]
    assert second[0].content == [TextContent(text="look"), TextContent(text=IMAGES_BLOCKED)]  # one notice
    assert [b.type for b in chat(session)[0].content] == ["text", "image", "image"]  # kept in the session


async def test_a_full_disk_does_not_stop_the_run_and_the_user_is_told(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from pi_core.runtime.ui import HeadlessUI
    from pi_core.session.storage import SessionWriter

    real_append = SessionWriter.append
    disk = {"full": True}

    def append(self: SessionWriter, lines: list[str]) -> None:
        if disk["full"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_append(self, lines)

    monkeypatch.setattr(SessionWriter, "append", append)
    notes: list[tuple[str, str]] = []
    harness.provider.responses += [text_message("first"), text_message("second")]
    session = harness.build()
    await session.bind_mode(ui=HeadlessUI(lambda message, kind: notes.append((message, kind))))
    await session.prompt("one")
    assert [m.role for m in chat(session)] == ["user", "assistant"]  # no error reply: the run went on
    assert "turn_end" in harness.types() and harness.types()[-2:] == ["agent_end", "agent_settled"]
    [(note, kind)] = notes
    assert kind == "error" and "No space left on device" in note and "goes on" in note

    disk["full"] = False
    await session.prompt("two")
    assert notes[-1] == (notes[-1][0], "info") and "nothing was lost" in notes[-1][0]
    lines = _file_lines(session)
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]
    assert roles == ["system", "user", "assistant", "user", "assistant"]


async def test_leaving_with_unsaved_entries_says_how_many(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from pi_core.runtime.ui import HeadlessUI
    from pi_core.session.storage import SessionWriter

    def full(self: SessionWriter, lines: list[str]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(SessionWriter, "append", full)
    notes: list[str] = []
    harness.provider.responses.append(text_message("answer"))
    session = harness.build()
    await session.bind_mode(ui=HeadlessUI(lambda message, kind: notes.append(message)))
    await session.prompt("one")
    await session.dispose()
    assert notes[-1].startswith("3 entries could not be written to ")  # system, user, assistant


async def test_session_stats_count_only_the_entries_appended_since_the_last_call(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_core.ai.messages import Usage
    from pi_core.runtime.stats import compute_session_stats

    def costly(text: str, tokens: int) -> AssistantMessage:
        reply = text_message(text)
        reply.usage = Usage(input=tokens, output=1)
        reply.usage.cost.total = tokens / 1000
        return reply

    harness.provider.responses += [
        tool_call_message(("c1", "write", {"path": "a.txt", "content": "a\n"})),
        costly("one", 10),
        costly("two", 200),
        costly("three", 3000),
    ]
    session = harness.build()
    manager = session.session_manager
    starts: list[int] = []
    real = manager.iter_counted

    def recording(start: int = 0) -> Any:
        starts.append(start)
        return real(start)

    monkeypatch.setattr(manager, "iter_counted", recording)

    def full() -> Any:
        return compute_session_stats(
            real(), session_file=session.session_file, session_id=session.session_id, context_usage=None
        )

    await session.prompt("write")
    first = session.get_session_stats()
    assert first.model_dump(exclude={"context_usage"}) == full().model_dump(exclude={"context_usage"})
    assert (first.tool_calls, first.tool_results, first.tokens.input) == (1, 1, 10)
    counted = manager.entry_count
    await session.prompt("again")
    session.get_session_stats()  # nothing appended in between: nothing read
    second = session.get_session_stats()
    assert starts == [0, counted]
    assert second.model_dump(exclude={"context_usage"}) == full().model_dump(exclude={"context_usage"})
    assert (second.assistant_messages, second.tokens.input) == (3, 210)
    assert second.cost == pytest.approx(0.21)
    manager.new_session()  # the entries are replaced: counted again from the start
    await session.prompt("fresh")
    third = session.get_session_stats()
    assert starts[-1] == 0
    assert (third.user_messages, third.tokens.input, third.cost) == (1, 3000, 3.0)
