"""Entry renderers, tool-renderer resolvers and Markdown transformers: registration and the
rules that combine them (pi 1.6.0)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from pi_core.plugins.manager import PluginRecord
from pi_core.plugins.registry import collect_registrations
from pi_core.plugins.renderers import (
    MarkdownContext,
    ToolRendererResolver,
    resolve_owned_tool_renderer,
    resolve_tool_renderer,
    transform_markdown,
)
from pi_core.testing.plugins import PluginHarness, make_plugin


def add(h: PluginHarness, name: str, **hooks: Any) -> None:
    h.pm.add_plugin(make_plugin(**hooks), PluginRecord(name, "project", f"/x/{name}.py"))


async def test_entry_renderers_first_plugin_wins() -> None:
    h = PluginHarness()
    add(h, "a", register_entry_renderers=lambda register: register("card", repr))
    add(h, "b", register_entry_renderers=lambda register: register("card", str))
    regs = await collect_registrations(h.pm)
    assert regs.errors == [] and regs.entry_renderers["card"].plugin == "a"


async def test_tool_renderer_resolvers_chain_in_load_order() -> None:
    h = PluginHarness()
    mine = SimpleNamespace(render_call=lambda args, theme: "mcp call")

    def fill_mcp(tool_name: str, next: Any) -> Any:
        return (next() or mine) if tool_name.startswith("mcp__") else next()

    def loud_bash(tool_name: str, next: Any) -> Any:
        return SimpleNamespace(render_call=lambda args, theme: "BASH") if tool_name == "bash" else next()

    add(h, "a", register_tool_renderers=lambda register: register(fill_mcp))
    add(h, "b", register_tool_renderers=lambda register: register(loud_bash))
    regs = await collect_registrations(h.pm)
    resolvers = [r.resolve for r in regs.tool_renderers]
    assert [r.plugin for r in regs.tool_renderers] == ["a", "b"]
    own = SimpleNamespace(render_call=lambda args, theme: "own")
    assert resolve_tool_renderer(resolvers, "mcp__fs__read").render_call({}, None) == "mcp call"
    assert resolve_tool_renderer(resolvers, "mcp__fs__read", own) is own  # next() came first
    assert resolve_tool_renderer(resolvers, "bash", own).render_call({}, None) == "BASH"
    assert resolve_tool_renderer(resolvers, "read", own) is own
    assert resolve_tool_renderer([], "read") is None


async def test_markdown_transformers_chain_per_surface_and_one_per_plugin() -> None:
    h = PluginHarness()

    def a(register: Any) -> None:
        register(lambda text, ctx: text + " [first]")
        register(lambda text, ctx: text.replace("-->", "→"))  # replaces a's first transformer

    def b(register: Any) -> None:
        register(lambda text, ctx: text.upper(), message_types=["assistant", "changelog"])

    def broken(register: Any) -> None:
        register(lambda text, ctx: 1 / 0)

    add(h, "a", register_markdown_transformers=a)
    add(h, "broken", register_markdown_transformers=broken)
    add(h, "b", register_markdown_transformers=b)
    regs = await collect_registrations(h.pm)
    chain = regs.markdown_transformers
    assert [t.plugin for t in chain] == ["a", "broken", "b"]
    failures: list[str] = []
    out = transform_markdown(
        chain, "x --> y", MarkdownContext("assistant"), on_error=lambda p, e: failures.append(p)
    )
    assert out == "X → Y" and failures == ["broken"]  # the broken one is skipped, the chain goes on
    assert transform_markdown(chain, "x --> y", MarkdownContext("user")) == "x → y"
    assert transform_markdown(chain, "notes", MarkdownContext("changelog")) == "NOTES"
    assert transform_markdown(chain, "kept", MarkdownContext("summary")) == "kept"


@pytest.mark.parametrize(
    ("hook", "call"),
    [
        ("register_markdown_transformers", lambda register: register(str.upper, message_types=["tables"])),
        ("register_markdown_transformers", lambda register: register("not callable")),
        ("register_tool_renderers", lambda register: register(None)),
        ("register_entry_renderers", lambda register: register("card", 42)),
    ],
)
async def test_bad_renderer_registrations_are_load_errors(hook: str, call: Any) -> None:
    h = PluginHarness()
    add(h, "bad", **{hook: call})
    regs = await collect_registrations(h.pm)
    assert [e.plugin for e in regs.errors] == ["bad"] and hook in str(regs.errors[0])


def test_owned_tool_renderer_names_the_plugin_whose_renderer_won() -> None:
    own = SimpleNamespace(render_call=lambda args, ctx: "own")
    loud = SimpleNamespace(render_call=lambda args, ctx: "loud")
    asked: list[str] = []

    def passes(tool_name: str, next: Any) -> Any:
        asked.append("passes")
        return next() or next()  # the later ones are asked once however often next() runs

    def claims_bash(tool_name: str, next: Any) -> Any:
        asked.append("claims_bash")
        return loud if tool_name == "bash" else next()

    def explodes(tool_name: str, next: Any) -> Any:
        raise RuntimeError("resolver exploded")

    failures: list[tuple[str, str]] = []
    chain = [
        ToolRendererResolver("a", passes),
        ToolRendererResolver("b", explodes),
        ToolRendererResolver("c", claims_bash),
    ]

    def resolve(name: str, mine: Any = None) -> tuple[Any, str | None]:
        return resolve_owned_tool_renderer(
            chain, name, mine, "tools", lambda plugin, error: failures.append((plugin, str(error)))
        )

    assert resolve("bash", own) == (loud, "c")
    assert asked == ["passes", "claims_bash"]
    assert failures == [("b", "resolver exploded")]  # and it counted as next()
    assert resolve("read", own) == (own, "tools")
    assert resolve("mcp__x") == (None, None)
    assert resolve_owned_tool_renderer([ToolRendererResolver("a", lambda n, nxt: loud)], "read", own) == (
        loud,
        "a",
    )
    assert resolve_owned_tool_renderer([ToolRendererResolver("a", lambda n, nxt: None)], "read", own) == (
        None,
        None,
    )
