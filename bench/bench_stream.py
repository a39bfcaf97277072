"""Provider + loop overhead per streamed delta (budget: < 50 µs).

Two measurements for each wire API, with a long answer of N text deltas:

1. **overhead** — what pi adds per delta: the SDK's parsed events of a real loopback response are
   recorded once, then replayed (an in-memory async iterator) through the provider's event mapping,
   the event stream and the full agent loop (``run_agent_loop`` with an awaited emit). No HTTP and
   no SDK parsing are in this figure, so it is stable.
2. **end to end** — the real SDK against the loopback server (run in a child process so it does not
   compete for the GIL): bare SDK iteration vs. ``stream_simple`` vs. the full loop.

Run: ``uv run python bench/bench_stream.py [N]``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from pi_core.agent.events import AgentEvent
from pi_core.agent.loop import AgentContext, AgentLoopConfig, run_agent_loop
from pi_core.ai.builtin_providers import register_builtin_api_providers
from pi_core.ai.messages import AssistantMessage, UserMessage
from pi_core.ai.provider import AssistantMessageEvent, Context, Model, StartEvent, StreamOptions
from pi_core.ai.providers import anthropic as anthropic_provider
from pi_core.ai.providers import openai_completions, openai_responses
from pi_core.ai.providers._base import run_stream
from pi_core.ai.stream import stream_simple
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, Text, Turn

APIS = ("anthropic-messages", "openai-completions", "openai-responses")
REPEATS = 7


def turn(deltas: int) -> Turn:
    return Turn(blocks=[Text("tok " * deltas, chunks=deltas)])


def serve(deltas: int, conn: Any) -> None:
    """Child process: a loopback server with plenty of identical long turns."""
    with LoopbackLLMServer() as server:
        server.add(*[turn(deltas) for _ in range(200)])
        conn.send(server.url)
        conn.recv()  # wait until the parent is done


async def sdk_stream(api: str, model: Model) -> tuple[Any, Any]:
    if api == "anthropic-messages":
        from anthropic import AsyncAnthropic

        client: Any = AsyncAnthropic(api_key=LOOPBACK_API_KEY, base_url=model.base_url, max_retries=0)
        stream = await client.messages.create(
            model=model.id, max_tokens=100, messages=[{"role": "user", "content": "go"}], stream=True
        )
    else:
        from openai import AsyncOpenAI

        client = AsyncOpenAI(api_key=LOOPBACK_API_KEY, base_url=model.base_url, max_retries=0)
        if api == "openai-completions":
            stream = await client.chat.completions.create(
                model=model.id, messages=[{"role": "user", "content": "go"}], stream=True
            )
        else:
            stream = await client.responses.create(model=model.id, input="go", stream=True)
    return client, stream


async def sdk_only(api: str, model: Model) -> None:
    client, stream = await sdk_stream(api, model)
    async for _ in stream:
        pass
    await client.close()


async def record(api: str, model: Model) -> list[Any]:
    client, stream = await sdk_stream(api, model)
    events = [event async for event in stream]
    await client.close()
    return events


class Replay:
    def __init__(self, events: list[Any]) -> None:
        self._it = iter(events)

    def __aiter__(self) -> Replay:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self._it)
        except StopIteration:
            raise StopAsyncIteration from None


def replay_stream_fn(api: str, events: list[Any]) -> Callable[[Model, Context, StreamOptions], Any]:
    def stream_fn(model: Model, context: Context, options: StreamOptions) -> Any:
        async def body(output: AssistantMessage) -> AsyncIterator[AssistantMessageEvent]:
            yield StartEvent(partial=output)
            if api == "anthropic-messages":
                mapped = anthropic_provider._consume(Replay(events), model, context, False, output)
            elif api == "openai-completions":
                mapped = openai_completions._consume(Replay(events), model, output)
            else:
                mapped = openai_responses._consume(Replay(events), model, output)
            async for event in mapped:
                yield event

        return run_stream(model, options, body)

    return stream_fn


async def provider_only(model: Model) -> None:
    response = stream_simple(
        model,
        Context(messages=[UserMessage(content="go")]),
        StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0),
    )
    async for _ in response:
        pass
    message = await response.result()
    assert message.stop_reason == "stop", message.error_message


async def loop_run(model: Model, stream_fn: Any = None) -> None:
    async def emit(event: AgentEvent) -> None:
        return None

    config = AgentLoopConfig(model=model, api_key=LOOPBACK_API_KEY, max_retries=0)
    if stream_fn is not None:
        config.stream_fn = stream_fn
    added = await run_agent_loop([UserMessage(content="go")], AgentContext(), config, emit)
    assert added[-1].stop_reason == "stop", added[-1]  # type: ignore[union-attr]


async def median_time(run: Callable[[], Any]) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        await run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def model_for(url: str, api: str) -> Model:
    base = url if api == "anthropic-messages" else f"{url}/v1"
    return Model(id=f"bench-{api}", api=api, provider="bench", base_url=base)


async def main(deltas: int, url: str) -> None:
    register_builtin_api_providers()
    print(f"deltas per answer: {deltas}; median of {REPEATS} runs; µs per delta\n")
    print("1. overhead: recorded SDK events replayed through provider mapping + event stream + agent loop")
    for api in APIS:
        model = model_for(url, api)
        events = await record(api, model)
        fn = replay_stream_fn(api, events)
        seconds = await median_time(lambda model=model, fn=fn: loop_run(model, fn))
        print(f"   {api:<22}{1e6 * seconds / deltas:>8.1f} µs/delta   ({len(events)} SDK events)")
    print("\n2. end to end against the loopback server (separate process)")
    print(f"   {'api':<22}{'sdk':>10}{'provider':>10}{'loop':>10}")
    for api in APIS:
        model = model_for(url, api)
        sdk = await median_time(lambda api=api, model=model: sdk_only(api, model))
        prov = await median_time(lambda model=model: provider_only(model))
        loop = await median_time(lambda model=model: loop_run(model))
        print(f"   {api:<22}" + "".join(f"{1e6 * t / deltas:>10.1f}" for t in (sdk, prov, loop)))


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=serve, args=(n, child), daemon=True)
    process.start()
    try:
        asyncio.run(main(n, parent.recv()))
    finally:
        parent.send("done")
        process.join(timeout=5)
