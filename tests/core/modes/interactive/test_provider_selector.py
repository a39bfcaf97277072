"""/login's and /logout's provider list: pi's rows, fuzzy search, scrolling, keys through a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pi_core.modes.interactive.provider_selector import VISIBLE, ProviderList, ProviderSelector
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

UP, DOWN, ENTER, ESC, BACKSPACE, PAGE_DOWN = "\x1b[A", "\x1b[B", "\r", "\x1b", "\x7f", "\x1b[6~"
PROVIDERS = [(f"p{n:02d}", f"p{n:02d}  Provider {n:02d}  (P{n:02d}_API_KEY)") for n in range(20)] + [
    ("groq", "groq  Groq  (GROQ_API_KEY)")
]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def screen(selector: ProviderSelector) -> list[str]:
    return "".join(text for _, text, *_ in selector.fragments()).splitlines()


async def run(selector: ProviderSelector, pipe: PipeInput, keys: str) -> str | None:
    task = asyncio.create_task(selector.run(input=pipe, output=DummyOutput()))
    await asyncio.sleep(0.05)
    pipe.send_text(keys)
    result: str | None = await asyncio.wait_for(task, 5)
    return result


def test_rows_between_rules_eight_at_once_with_the_position() -> None:
    lines = screen(ProviderSelector(ProviderList(PROVIDERS), "Select provider to configure:"))
    assert lines[0] == "─" * 80 and lines[-1] == "─" * 80
    assert lines[1:6] == ["", " Select provider to configure:", "", " >  ", ""]
    assert lines[6] == " → p00  Provider 00  (P00_API_KEY)" and lines[7].startswith("   p01")
    assert len([line for line in lines if "Provider" in line]) == VISIBLE
    assert f"   (1/{len(PROVIDERS)})" in lines


def test_typing_filters_and_highlights_the_best_match() -> None:
    listed = ProviderList(PROVIDERS)
    listed.move(3)
    listed.query = "groq"
    listed.refilter()
    assert listed.selected == "groq" and listed.shown[0][0] == "groq"
    listed.query = "no such provider anywhere"
    listed.refilter()
    assert listed.selected is None
    assert "   No matching providers" in screen(ProviderSelector(listed, "t"))
    listed.query = ""
    listed.refilter()
    assert listed.shown == PROVIDERS


def test_the_window_follows_the_highlight() -> None:
    listed = ProviderList(PROVIDERS)
    listed.move(15)
    shown = listed.window()
    assert listed.index in shown and len(shown) == VISIBLE and shown.start == 15 - VISIBLE // 2
    listed.move(100)  # clamped at the end, as pi's list (no wrap)
    assert listed.selected == "groq" and listed.window().stop == len(PROVIDERS)


async def test_keys_pick_search_and_cancel(pipe: PipeInput) -> None:
    assert await run(ProviderSelector(ProviderList(PROVIDERS), "t"), pipe, "groq" + ENTER) == "groq"
    assert await run(ProviderSelector(ProviderList(PROVIDERS), "t"), pipe, DOWN + DOWN + UP + ENTER) == "p01"
    assert (
        await run(ProviderSelector(ProviderList(PROVIDERS), "t"), pipe, PAGE_DOWN + ENTER)
        == f"p{VISIBLE:02d}"
    )
    typed_back = "gx" + BACKSPACE + BACKSPACE + ENTER  # the search emptied: every row, the first
    assert await run(ProviderSelector(ProviderList(PROVIDERS), "t"), pipe, typed_back) == "p00"
    assert await run(ProviderSelector(ProviderList(PROVIDERS), "t"), pipe, ESC) is None


async def test_login_and_logout_choose_from_the_list(
    repl_factory: Callable[..., Any], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GROQ_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    repl = await repl_factory()
    await repl.submit("/login")
    await asyncio.sleep(0.2)  # the list is up
    repl.send("groq" + ENTER)
    await asyncio.sleep(0.2)
    repl.send("gsk-test-key" + ENTER)
    await repl.wait_for("Saved the API key for groq")
    auth = (tmp_path / "agent" / "auth.json").read_text()
    assert "gsk-test-key" in auth
    await repl.submit("/logout")
    await asyncio.sleep(0.2)
    repl.send(ENTER)  # the only saved provider
    await repl.wait_for("Removed the credentials of groq")
    assert "gsk-test-key" not in (tmp_path / "agent" / "auth.json").read_text()
    assert await repl.quit() == 0
