"""``ctx.events``: plugins talk to each other; replaced plugin instances hear nothing."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from pi_core.runtime.event_bus import EventBus

from .test_reload import bind, start_host, world  # noqa: F401 - the fixture

SENDER = """
from pi_core import hookimpl


async def ping(args, ctx):
    ctx.events.emit("demo:ping", {"text": args})


@hookimpl
def register_commands(register):
    register("ping", ping)
"""

LISTENER = """
from pathlib import Path
from pi_core import hookimpl

HEARD = Path(__file__).with_name("heard.txt")
GENERATION = "{generation}"


@hookimpl
def session_start(event, ctx):
    def heard(data):
        with HEARD.open("a") as f:
            f.write(f"{{GENERATION}}:{{data['text']}}\\n")

    ctx.events.on("demo:ping", heard)
"""


async def test_listeners_run_in_order_and_failures_are_contained(caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    heard: list[Any] = []

    def broken(data: Any) -> None:
        raise RuntimeError("listener bug")

    async def later(data: Any) -> None:
        heard.append(("async", data))

    bus.on("c", lambda data: heard.append(("first", data)))
    bus.on("c", broken)
    unsubscribe = bus.on("c", lambda data: heard.append(("gone", data)))
    bus.on("c", later)
    unsubscribe()
    with caplog.at_level(logging.ERROR, logger="pi.events"):
        bus.emit("c", 1)
        bus.emit("other", 2)
        await asyncio.sleep(0)
    assert heard == [("first", 1), ("async", 1)]
    assert "listener bug" in caplog.text
    bus.clear()
    bus.emit("c", 3)
    assert heard == [("first", 1), ("async", 1)]


async def test_plugins_share_the_bus_and_a_reload_starts_a_new_one(world: dict[str, Path]) -> None:  # noqa: F811
    from pi_core.plugins.trust import trust_project

    (world["ext"] / "sender.py").write_text(SENDER)
    (world["ext"] / "listener.py").write_text(LISTENER.format(generation="one"))
    trust_project(world["project"], world["agent"])
    host = await start_host(world)
    await bind(host)
    await host.session.prompt("/ping hello")
    (world["ext"] / "listener.py").write_text(LISTENER.format(generation="two"))
    trust_project(world["project"], world["agent"])
    await host.reload()
    await host.session.prompt("/ping again")
    heard = (world["ext"] / "heard.txt").read_text().splitlines()
    assert heard == ["one:hello", "two:again"]  # the old instance's listener is gone
