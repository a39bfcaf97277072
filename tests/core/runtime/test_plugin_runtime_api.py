"""What ports of pi's extensions rely on: trigger_turn from agent_end, tools registered at any time,
nested tool calls through validation and hooks. Real sessions against the scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.messages import TextContent
from pi_core.plugins.events import AgentEndEvent, ToolCallEvent, ToolCallResult, ToolResultEvent
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession

from pi_core import hookimpl

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def declared(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.body.get("tools", [])]


def echo_tool(name: str = "echo", **fields: Any) -> AgentTool:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
        return f"{name}: {params['text']}"

    return AgentTool(
        name=name, label=name, description=f"{name} tool", parameters=SCHEMA, execute=execute, **fields
    )


class PlanExecutor:
    """Like pi's plan-mode example: after the run, ask for one more turn that executes the plan."""

    def __init__(self) -> None:
        self.sent = False

    @hookimpl
    async def agent_end(self, event: AgentEndEvent, ctx: Any) -> None:
        if not self.sent:
            self.sent = True
            await ctx.send_message("plan-execute", "Execute the plan.", trigger_turn=True)


async def test_trigger_turn_from_agent_end_starts_the_run(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(text_turn("1. do it"), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[PlanExecutor()]) as pi:
        await pi.prompt("make a plan")
        assert len(pi.requests) == 2
        last = pi.requests[1].body["messages"][-1]
        assert last["role"] == "user" and "Execute the plan." in str(last["content"])
        assert pi.session.get_last_assistant_text() == "done"
        assert pi.session.is_idle


class Registrar:
    """Registers tools from a command, from a tool, and withdraws them again."""

    @hookimpl
    def register_commands(self, register: Any) -> None:
        async def add(args: str, ctx: Any) -> None:
            ctx.register_tool(echo_tool(args))

        async def drop(args: str, ctx: Any) -> None:
            assert ctx.unregister_tool(args)

        register("add-tool", add)
        register("drop-tool", drop)

    @hookimpl
    def register_tools(self, register: Any) -> None:
        async def grow(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
            ctx.register_tool(echo_tool("grown"))
            ctx.register_tool(echo_tool("quiet", default_active=False))
            ctx.register_tool(echo_tool("secret", exposure="hidden"))
            return "grown"

        register(
            AgentTool(name="grow", label="grow", description="adds tools", parameters=SCHEMA, execute=grow)
        )


async def test_tools_registered_at_any_time_are_in_the_next_request(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(
        tool_turn(ToolUse("grow", {"text": "x"})), text_turn("grew"), text_turn("two"), text_turn("three")
    )
    async with PiSession(pi_llm_server, tmp_path, plugins=[Registrar()]) as pi:
        await pi.prompt("grow")  # the tool registers during the run: the very next request has it
        assert declared(pi.requests[0]) == ["grow"]
        assert declared(pi.requests[1]) == ["grow", "grown"]
        assert set(pi.ctx().get_all_tools()) == {"grow", "grown", "quiet", "secret"}
        await pi.prompt("/add-tool extra")
        await pi.prompt("hi")
        assert declared(pi.requests[2]) == ["grow", "grown", "extra"]
        await pi.prompt("/drop-tool grown")
        await pi.prompt("again")
        assert declared(pi.requests[3]) == ["grow", "extra"]
        pi.ctx().set_active_tools(["grow", "quiet", "secret"])  # hidden stays unreachable
        assert pi.ctx().get_active_tools() == ["grow", "quiet"]


async def test_registering_another_plugins_tool_name_is_refused(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    class Thief:
        @hookimpl
        def register_commands(self, register: Any) -> None:
            async def steal(args: str, ctx: Any) -> None:
                ctx.register_tool(echo_tool("grow"))

            register("steal", steal)

    async with PiSession(pi_llm_server, tmp_path, plugins=[Registrar(), Thief()], strict=False) as pi:
        await pi.prompt("/steal")
        errors = [e for e in pi.events if getattr(e, "type", "") == "extension_error"]
        assert [(e.extension_path, e.event) for e in errors] == [("Thief-1", "command /steal")]
        assert "already registered by plugin 'Registrar-0'" in errors[0].error


class Nester:
    """A tool that calls other tools, and a gate that sees nested calls."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str | None]] = []
        self.results: list[tuple[str, str | None]] = []

    @hookimpl
    def register_tools(self, register: Any) -> None:
        async def orchestrate(
            call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
        ) -> AgentToolResult:
            assert "echo" in ctx.tools and "orchestrate" in ctx.tools
            outcomes = [
                await ctx.execute_tool("echo", {"text": "one"}),
                await ctx.execute_tool("echo", {"text": "blocked"}),
                await ctx.execute_tool("echo", {"wrong": 1}),
                await ctx.execute_tool("nope", {}),
            ]
            lines = [f"{bool(r.is_error)}:{r.content[0].text.splitlines()[0]}" for r in outcomes]
            return AgentToolResult(content=[TextContent(text="\n".join(lines))])

        register(echo_tool())
        register(
            AgentTool("orchestrate", "orchestrate", "calls tools", parameters=SCHEMA, execute=orchestrate)
        )

    @hookimpl
    def tool_call(self, event: ToolCallEvent) -> ToolCallResult | None:
        self.seen.append((event.tool_call_id, event.tool_name, event.parent_tool_call_id))
        if event.input.get("text") == "blocked":
            return ToolCallResult(block=True, reason="not this one")
        return None

    @hookimpl
    def tool_result(self, event: ToolResultEvent) -> None:
        self.results.append((event.tool_call_id, event.parent_tool_call_id))


async def test_nested_tool_calls_go_through_validation_and_hooks(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    nester = Nester()
    pi_llm_server.add(tool_turn(ToolUse("orchestrate", {"text": "go"})), text_turn("ok"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[nester]) as pi:
        await pi.prompt("go")
        parent = nester.seen[0][0]
        assert nester.seen == [
            (parent, "orchestrate", None),
            (f"{parent}/1", "echo", parent),
            (f"{parent}/2", "echo", parent),
        ]  # the invalid call and the unknown tool never reach tool_call
        assert nester.results == [(f"{parent}/1", parent), (parent, None)]
        result = [m for m in pi.session.messages if m.role == "toolResult"]
        assert len(result) == 1  # nested calls add nothing to the transcript
        lines = result[0].content[0].text.splitlines()  # type: ignore[union-attr]
        assert lines[0] == "False:echo: one"
        assert lines[1] == "True:not this one"
        assert lines[2].startswith('True:Validation failed for tool "echo"')
        assert lines[3] == "True:Tool nope not found"
        nested = [e for e in pi.events if getattr(e, "parent_tool_call_id", None) == parent]
        assert {e.type for e in nested} == {"tool_execution_start", "tool_execution_end"}
        # the session keeps a bounded record of the nested calls on the caller's result (pi 1.6.0)
        entry = next(e for e in pi.entries if e["type"] == "message" and e["message"]["role"] == "toolResult")
        record = entry["message"]["nestedCalls"]
        assert record["complete"] is True
        assert [(c["id"], c["name"], c["status"]) for c in record["calls"]] == [
            (f"{parent}/1", "echo", "ok"),
            (f"{parent}/2", "echo", "error"),
            (f"{parent}/3", "echo", "error"),
            (f"{parent}/4", "nope", "error"),
        ]
        assert record["calls"][0]["arguments"] == {"text": "one"} and "error" not in record["calls"][0]
        assert record["calls"][1]["error"] == "not this one" and "result" not in record["calls"][1]
        assert all(isinstance(c["durationMs"], int) for c in record["calls"])
        ends = [e for e in pi.events if getattr(e, "type", "") == "tool_execution_end"]
        top = next(e for e in ends if e.tool_call_id == parent)
        assert isinstance(top.duration_ms, int) and isinstance(entry["message"]["durationMs"], int)
        blocked = next(e for e in ends if e.tool_call_id == f"{parent}/2")
        assert blocked.duration_ms is None  # it never ran


async def test_nested_call_record_is_bounded(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    class Flood:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            async def flood(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
                await ctx.execute_tool("echo", {"text": "x" * 9000})  # over 8 KiB: arguments left out
                for _ in range(260):
                    await ctx.execute_tool("echo", {"text": "y"})
                return "done"

            register(echo_tool())
            register(AgentTool("flood", "flood", "many calls", parameters=SCHEMA, execute=flood))

    pi_llm_server.add(tool_turn(ToolUse("flood", {"text": "go"})), text_turn("ok"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[Flood()]) as pi:
        await pi.prompt("go")
        entry = next(e for e in pi.entries if e["type"] == "message" and e["message"]["role"] == "toolResult")
    record = entry["message"]["nestedCalls"]
    assert record["complete"] is False and len(record["calls"]) == 256
    first = record["calls"][0]
    assert "arguments" not in first and first["argumentsBytes"] == len('{"text":""}') + 9000
    assert record["calls"][1]["arguments"] == {"text": "y"}


async def test_a_tool_registered_mid_run_is_recorded_before_the_next_request(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("grow", {"text": "x"})), text_turn("grew"), text_turn("again"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[Registrar()]) as pi:
        await pi.prompt("grow")
        messages = [e["message"] for e in pi.entries if e["type"] == "message"]
        roles = [m["role"] for m in messages]
        # pi 1.6.0: the prompt's system message, then one declaring what the tool registered,
        # after the tool's result and before the reply the next request brought
        assert roles == ["system", "user", "assistant", "toolResult", "system", "assistant"]
        update = messages[4]
        assert [t["name"] for t in update["toolsAdded"]] == ["grown"]
        assert "toolsRemoved" not in update and update.get("sections") is None
        await pi.prompt("again")  # nothing changed since: no further system message
        roles = [e["message"]["role"] for e in pi.entries if e["type"] == "message"]
        assert roles[6:] == ["user", "assistant"]


class LateRegistrar:
    """A tool that registers another tool on its second call only."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def register_tools(self, register: Any) -> None:
        async def step(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
            self.calls += 1
            if self.calls == 2:
                ctx.register_tool(echo_tool("late"))
            return f"step {self.calls}"

        register(AgentTool(name="step", label="step", description="steps", parameters=SCHEMA, execute=step))


async def test_the_mid_run_tool_check_replays_the_transcript_once_per_run(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, monkeypatch: Any
) -> None:
    import pi_core.runtime.session as runtime_session

    replays: list[int] = []
    real = runtime_session.current_system_message

    def counting(messages: Any) -> Any:
        replays.append(len(messages))
        return real(messages)

    monkeypatch.setattr(runtime_session, "current_system_message", counting)
    step = tool_turn(ToolUse("step", {"text": "x"}))
    pi_llm_server.add(step, step, step, step, text_turn("done"), step, step, text_turn("again"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[LateRegistrar()]) as pi:
        await pi.prompt("go")
        # the prompt's update replays once, the four checks before requests 2-5 once between them
        assert len(replays) == 2
        assert [declared(r) for r in pi.requests[:5]] == [
            ["step"],
            ["step"],
            ["step", "late"],
            *[["step", "late"]] * 2,
        ]
        messages = [e["message"] for e in pi.entries if e["type"] == "message"]
        updates = [m for m in messages if m["role"] == "system"][1:]
        assert [[t["name"] for t in m["toolsAdded"]] for m in updates] == [["late"]]
        roles = [m["role"] for m in messages]
        # recorded after the second tool result, before the request that first declares it
        assert roles[:8] == [
            "system",
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "toolResult",
            "system",
            "assistant",
        ]
        replays.clear()
        pi.ctx().set_active_tools(["step"])  # between runs: the next run starts from the transcript
        await pi.prompt("again")
        assert len(replays) == 2
        removed = [
            m for m in (e["message"] for e in pi.entries if e["type"] == "message") if m["role"] == "system"
        ][-1]
        assert removed["toolsRemoved"] == [{"name": "late"}]
        assert [declared(r) for r in pi.requests[5:]] == [["step"]] * 3


class Narrower:
    """A tool that leaves only ``read`` and itself active when called."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        async def narrow(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
            ctx.set_active_tools(["read", "narrow"])
            return "narrowed"

        register(
            AgentTool(name="narrow", label="narrow", description="narrows", parameters=SCHEMA, execute=narrow)
        )


def _system_text(request: Any) -> str:
    return str(request.body["messages"][0]["content"])


async def test_the_prompt_follows_a_mid_run_tool_change(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    # pi 1.6.0 rebuilds the prompt before the next turn when the active tools changed, and records
    # its changed sections with the tool changes in one system message.
    pi_llm_server.add(tool_turn(ToolUse("narrow", {"text": "x"})), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[Narrower()], builtin_tools=True) as pi:
        await pi.prompt("go")
        first, second = pi.requests
        assert "bash" in declared(first) and declared(second) == ["read", "narrow"]
        assert "bash" in _system_text(first) and "bash" not in _system_text(second)
        assert _system_text(second) == pi.session.system_prompt
        messages = [e["message"] for e in pi.entries if e["type"] == "message"]
        update = [m for m in messages if m["role"] == "system"][-1]
        assert {t["name"] for t in update["toolsRemoved"]} == set(declared(first)) - {"read", "narrow"}
        assert update["sections"] and set(update["sections"]) <= set(messages[0]["sections"])
        # The transcript's prompt, replayed, is the one the second request was sent.
        from pi_core.ai.messages import current_system_message
        from pi_core.runtime.resources.system_prompt import render_system_prompt

        replayed = current_system_message(pi.session.messages)
        assert replayed is not None and render_system_prompt(replayed.sections or {}) == _system_text(second)
