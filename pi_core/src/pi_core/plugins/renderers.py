"""Display-only plugin renderers (pi 1.6.0): entry renderers, tool-renderer resolvers and
Markdown transformers, and the rules that combine them. The REPL calls these helpers; nothing
here renders or imports a terminal library.

- An **entry renderer** draws a ``custom`` entry (``ctx.append_entry``) of its ``custom_type``
  in the transcript: ``render(entry, options, theme)`` returns a rich renderable or ``None``.
- A **tool-renderer resolver** chooses how calls of any tool name are drawn, also of tools not
  registered (yet): ``resolve(tool_name, next)`` returns an object with ``render_call`` and/or
  ``render_result`` (as :class:`~pi_core.agent.tools.AgentTool` has), or ``None``; ``next()``
  is what the later resolvers, then the tool itself, would give.
- A **Markdown transformer** rewrites Markdown before the REPL renders it:
  ``transform(markdown, context)`` returns the new text. They chain in load order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

logger = logging.getLogger("pi.plugins")

MarkdownSurface = Literal["user", "assistant", "assistant-thinking", "custom", "summary", "changelog"]
#: Where a transformer runs when it names no surfaces.
DEFAULT_SURFACES: frozenset[str] = frozenset({"user", "assistant", "assistant-thinking"})
KNOWN_SURFACES: frozenset[str] = DEFAULT_SURFACES | {"custom", "summary", "changelog"}


@dataclass(frozen=True)
class MarkdownContext:
    """What a Markdown transformer is told about the text it gets."""

    message_type: MarkdownSurface
    #: A partial assistant message being streamed.
    is_streaming: bool = False
    #: Terminal columns the Markdown is laid out in.
    available_width: int = 80
    #: The session entry id and its ISO timestamp, for text drawn from a persisted entry.
    message_id: str | None = None
    timestamp: str | None = None


@dataclass(frozen=True)
class MarkdownTransformer:
    plugin: str
    transform: Callable[[str, MarkdownContext], str]
    surfaces: frozenset[str] = DEFAULT_SURFACES


def transform_markdown(
    transformers: Sequence[MarkdownTransformer],
    markdown: str,
    context: MarkdownContext,
    on_error: Callable[[str, BaseException], None] | None = None,
) -> str:
    """``markdown`` through every transformer for ``context.message_type``, in load order. One
    that raises or returns something else than text is reported and skipped: the text so far goes on."""
    for transformer in transformers:
        if context.message_type not in transformer.surfaces:
            continue
        try:
            result = transformer.transform(markdown, context)
            if not isinstance(result, str):
                raise TypeError(f"a Markdown transformer returns text, not {type(result).__name__}")
            markdown = result
        except Exception as error:  # display-only: a broken transformer never breaks the transcript
            logger.debug("markdown transformer of %s failed", transformer.plugin, exc_info=True)
            if on_error is not None:
                on_error(transformer.plugin, error)
    return markdown


def resolve_tool_renderer(
    resolvers: Sequence[Callable[[str, Callable[[], Any]], Any]],
    tool_name: str,
    own: Any = None,
) -> Any:
    """What draws calls of ``tool_name``: the first resolver (load order) decides, ``next()``
    gives what the rest would; after the last resolver comes ``own`` (the tool's own renderer,
    ``None`` for a tool that is not registered)."""

    def at(index: int) -> Any:
        if index >= len(resolvers):
            return own
        return resolvers[index](tool_name, lambda: at(index + 1))

    return at(0)


@dataclass(frozen=True)
class EntryRenderer:
    """A renderer of one ``custom_type`` and the plugin that registered it: of ``custom`` entries
    (``register_entry_renderers``) or of displayed custom messages (``register_message_renderers``,
    which are ``custom_message`` entries in the session file)."""

    plugin: str
    render: Callable[..., Any]


@dataclass(frozen=True)
class ToolRendererResolver:
    """A ``register_tool_renderers`` resolver and the plugin that registered it."""

    plugin: str
    resolve: Callable[[str, Callable[[], Any]], Any]


def resolve_owned_tool_renderer(
    resolvers: Sequence[ToolRendererResolver],
    tool_name: str,
    own: Any = None,
    own_plugin: str | None = None,
    on_error: Callable[[str, BaseException], None] | None = None,
) -> tuple[Any, str | None]:
    """:func:`resolve_tool_renderer` that also says whose renderer won: the plugin whose resolver
    made it, ``own_plugin`` for ``own`` handed through by every ``next()``, ``None`` for none.

    A resolver that raises is reported through ``on_error`` and counts as one that returned
    ``next()``; ``next()`` asks the later resolvers only once however often it is called.
    """

    def at(index: int) -> tuple[Any, str | None]:
        if index >= len(resolvers):
            return own, own_plugin if own is not None else None
        resolver = resolvers[index]
        later: list[tuple[Any, str | None]] = []

        def next_renderer() -> Any:
            if not later:
                later.append(at(index + 1))
            return later[0][0]

        try:
            chosen = resolver.resolve(tool_name, next_renderer)
        except Exception as error:  # display-only: the later resolvers and the tool's own go on
            logger.debug("tool renderer resolver of %s failed", resolver.plugin, exc_info=True)
            if on_error is not None:
                on_error(resolver.plugin, error)
            next_renderer()
            return later[0]
        if chosen is None:
            return None, None
        if later and chosen is later[0][0]:
            return later[0]
        return chosen, resolver.plugin

    return at(0)
