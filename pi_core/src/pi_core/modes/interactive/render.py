"""Session events → rich output: streamed text as markdown blocks, dimmed thinking, tool calls.

Text is printed block by block (a block ends at a blank line outside a code fence) and rendered as
markdown once complete, so output only ever appends — it works above a live prompt and in a pipe.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.text import Text

from pi_core.modes.interactive.blocks import BlockBuffer
from pi_core.modes.interactive.code_blocks import ThemedMarkdown
from pi_core.modes.interactive.sanitize import sanitize, sanitize_content, sanitize_result, sanitize_value
from pi_core.plugins.renderers import (
    EntryRenderer,
    MarkdownContext,
    MarkdownSurface,
    MarkdownTransformer,
    ToolRendererResolver,
    resolve_owned_tool_renderer,
    transform_markdown,
)
from pi_core.session.context import iso_to_ms

#: The line a hidden thinking run shows when no plugin has set one (pi 1.6.0's).
HIDDEN_THINKING_LABEL = "Thinking..."

#: How many trailing lines of a running tool's output the live view shows.
LIVE_LINES = 5


#: Reports a plugin's failure in drawing: (plugin, what failed, the error).
RenderErrorSink = Callable[[str, str, BaseException], None]


class EventRenderer:
    """Writes one session's events to a console; ``tools`` gives each tool's renderers by name.

    The plugins' display parts are read when drawing (a reload may replace them):
    ``tool_renderers`` (``register_tool_renderers`` resolvers, load order) choose what draws a
    tool call, ``markdown_transformers`` rewrite Markdown before it is drawn. A plugin renderer
    or transformer that fails goes to ``report_error`` once per plugin and part, and the
    default drawing stands in for it.
    """

    def __init__(
        self,
        console: Console,
        tools: Callable[[], Mapping[str, Any]],
        tool_context: Callable[[], Any] = lambda: None,
        message_renderers: Callable[[], Mapping[str, EntryRenderer]] = dict,
        *,
        tool_renderers: Callable[[], Sequence[ToolRendererResolver]] = tuple,
        entry_renderers: Callable[[], Mapping[str, EntryRenderer]] = dict,
        markdown_transformers: Callable[[], Sequence[MarkdownTransformer]] = tuple,
        tool_owner: Callable[[str], str | None] = lambda name: None,
        report_error: RenderErrorSink | None = None,
    ) -> None:
        #: The plugins' custom-message renderers (read per message: a reload may replace them).
        self._message_renderers = message_renderers
        self._tool_renderers = tool_renderers
        self._entry_renderers = entry_renderers
        self._markdown_transformers = markdown_transformers
        self._tool_owner = tool_owner
        self._report_error = report_error
        #: (plugin, part) pairs already reported: a renderer runs on every redraw of its block.
        self._reported: set[tuple[str, str]] = set()
        #: The last lines of each running tool's partial output (shown live under the editor).
        self.live_output: dict[str, tuple[str, list[str]]] = {}
        self.on_live_change: Callable[[], None] = lambda: None
        self.console = console
        self._tools = tools
        self._tool_context = tool_context
        #: ``hideThinkingBlock`` (toggled with Ctrl+T): each run of thinking shows as one line
        #: instead. Thinking is printed as views that read this when drawn, so the fullscreen
        #: transcript draws what it holds again in the new state.
        self.hide_thinking = False
        #: ``ctx.ui.set_hidden_thinking_label``: the line a hidden run shows (empty: nothing).
        self.hidden_thinking_label = HIDDEN_THINKING_LABEL
        #: A thinking run (consecutive thinking blocks) is being streamed: its label is printed.
        self._thinking_run = False
        #: Ctrl+O: tool results are rendered in full from now on (and the last one again).
        self.expand_tools = False
        self.last_tool_result: Any = None
        self._text = BlockBuffer()
        self._thinking = BlockBuffer()
        #: The running message's tool calls in call order, each printed as its header followed by
        #: its result: a call that finishes before an earlier one waits for it.
        self._tool_blocks: list[_ToolBlock] = []

    def __call__(self, event: Any) -> None:
        handler = getattr(self, f"_on_{getattr(event, 'type', '')}", None)
        if handler is not None:
            handler(event)

    # --- assistant text and thinking ------------------------------------------------------------

    def _on_message_update(self, event: Any) -> None:
        update = event.assistant_message_event
        kind = update.type
        if not kind.startswith("thinking_"):
            self._thinking_run = False  # text or a tool call: thinking after it is a new run
        if kind == "text_delta":
            self._flush_thinking(final=True)
            self._text.feed(update.delta)
            self._flush_text(final=False)
            self.on_live_change()
        elif kind == "thinking_delta":
            if not self._thinking_run and update.delta.strip():
                self._thinking_run = True
                self.console.print(_HiddenThinkingView(self))
            self._thinking.feed(update.delta)
            self._flush_thinking(final=False)
            self.on_live_change()
        elif kind == "text_end":
            self._flush_text(final=True)
        elif kind == "thinking_end":
            self._flush_thinking(final=True)

    def pending_text(self) -> str:
        """The block being streamed that is not printed yet (shown live under the editor).

        Deltas are kept as they came and sanitised as whole blocks: a control sequence a model
        streams in pieces is removed whole, its payload (a title) does not show as text."""
        if self._text.pending or self.hide_thinking:
            return sanitize(self._text.pending)
        return sanitize(self._thinking.pending)

    def _flush_text(self, *, final: bool) -> None:
        block = self._text.take_rest() if final else self._text.take_complete()
        if block:
            self.console.print(ThemedMarkdown(self.markdown(sanitize(block), "assistant")))

    def _flush_thinking(self, *, final: bool) -> None:
        block = self._thinking.take_rest() if final else self._thinking.take_complete()
        if block:
            self.console.print(_ThinkingView(self, block))

    def markdown(self, text: str, surface: MarkdownSurface, *, streaming: bool = False) -> str:
        """``text`` through the plugins' Markdown transformers for ``surface``. A block printed
        whole is final (``is_streaming`` false) even while the rest of its message streams; only
        the preview of the block still growing is streaming."""
        transformers = self._markdown_transformers()
        if not transformers:
            return text
        context = MarkdownContext(
            message_type=surface, is_streaming=streaming, available_width=self.console.width
        )
        return transform_markdown(transformers, text, context, self._markdown_failed)

    def _markdown_failed(self, plugin: str, error: BaseException) -> None:
        self._report(plugin, "markdown_transformer", error)

    def _report(self, plugin: str, part: str, error: BaseException) -> None:
        if (plugin, part) in self._reported:
            return
        self._reported.add((plugin, part))
        if self._report_error is not None:
            self._report_error(plugin, part, error)

    def _on_message_start(self, event: Any) -> None:
        message = event.message
        role = getattr(message, "role", None)
        if role == "user":
            self._print_user(message)
        elif role == "custom" and getattr(message, "display", False):
            self._print_custom(message)

    def _print_user(self, message: Any) -> None:
        self.console.print(prompt_line(Text(self.markdown(_user_text(message), "user"))))

    def _print_custom(self, message: Any) -> None:
        """A custom message through its plugin renderer, else (no renderer, it drew nothing, or it
        raised: reported once as its plugin's error) its type and text."""
        renderer = self._message_renderers().get(message.custom_type)
        if renderer is not None:
            theme = getattr(getattr(self._tool_context(), "ui", None), "theme", None)
            try:
                rendered = renderer.render(message, {"expanded": False}, theme)
            except Exception as error:  # display only: the default drawing stands in
                self._report(renderer.plugin, "render_message", error)
                rendered = None
            if rendered is not None:
                self.console.print(Text.from_ansi(rendered) if isinstance(rendered, str) else rendered)
                return
        label = Text(f"[{message.custom_type}] ", style="pi.customMessageLabel")
        shown = self.markdown(_content_text(sanitize_content(message.content)), "custom")
        self.console.print(label + Text(shown))

    def _on_message_end(self, event: Any) -> None:
        message = event.message
        if getattr(message, "role", None) != "assistant":
            return
        # The rest of the answer and its ending go out in one write: above the regular editor,
        # writes are paced (app.OUTPUT_PAUSE), and "Operation aborted" waited out the pause
        # after the answer's last block.
        self._thinking_run = False
        with self.console:
            self._flush_thinking(final=True)
            self._flush_text(final=True)
            if message.stop_reason == "aborted":
                self.console.print(Text("Operation aborted", style="pi.warning"))
            elif message.stop_reason == "error":
                self.console.print(
                    Text(f"Error: {sanitize(message.error_message or 'unknown error')}", style="pi.error")
                )

    # --- custom entries (``ctx.append_entry``) through the plugins' entry renderers ----------------

    def _on_entry_appended(self, event: Any) -> None:
        entry = event.entry
        if not isinstance(entry, dict) or entry.get("type") != "custom":
            return
        if entry.get("customType") not in self._entry_renderers():
            return
        from pi_core.session.entries import parse_entry

        self.print_entry(parse_entry(entry))

    def print_entry(self, entry: Any) -> None:
        """A ``custom`` entry through its plugin's renderer; nothing without one, or when it
        draws nothing. One that raises is reported once and the entry is left out."""
        renderer = self._entry_renderers().get(getattr(entry, "custom_type", ""))
        if renderer is None:
            return
        ctx = self._tool_context()
        theme = getattr(getattr(ctx, "ui", None), "theme", None)
        try:
            rendered = renderer.render(entry, {"expanded": self.expand_tools}, theme)
        except Exception as error:  # display only: the transcript goes on without it
            self._report(renderer.plugin, "render_entry", error)
            return
        if rendered is not None:
            self.console.print(Text.from_ansi(rendered) if isinstance(rendered, str) else rendered)

    def custom_entries_wanted(self) -> bool:
        return bool(self._entry_renderers())

    def replay(self, messages: list[Any], entries: Sequence[Any] = ()) -> None:
        """Print a transcript that already exists (a resumed, switched or forked session) as it
        looked live: tool calls through their renderers with their results beneath (edit diffs,
        bash previews), images, compaction and branch-summary markers; the branch's ``custom``
        ``entries`` through their renderers, each before the first message that came after it."""
        results = {m.tool_call_id: m for m in messages if getattr(m, "role", None) == "toolResult"}
        shown: set[str] = set()
        waiting = sorted(((iso_to_ms(e.timestamp), n, e) for n, e in enumerate(entries)), key=lambda x: x[:2])
        for message in messages:
            role = getattr(message, "role", None)
            if role not in ("compactionSummary", "branchSummary", "system"):
                stamp = getattr(message, "timestamp", None)
                while waiting and isinstance(stamp, int) and waiting[0][0] < stamp:
                    self.print_entry(waiting.pop(0)[2])
            if role == "user":
                self._print_user(message)
            elif role == "assistant":
                in_run = False  # consecutive thinking blocks are one run: one label when hidden
                for block in message.content:
                    if block.type != "thinking":
                        in_run = False
                    if block.type == "thinking" and block.thinking.strip():
                        if not in_run:
                            in_run = True
                            self.console.print(_HiddenThinkingView(self))
                        self.console.print(_ThinkingView(self, block.thinking.strip()))
                    elif block.type == "text" and block.text.strip():
                        self.console.print(ThemedMarkdown(self.markdown(sanitize(block.text), "assistant")))
                    elif block.type == "toolCall":
                        self._print_call(block.name, block.arguments)
                        result = results.get(block.id)
                        if result is not None:
                            shown.add(block.id)
                            self._print_result(block.name, result, result.is_error, self.expand_tools)
                if message.stop_reason == "aborted":
                    self.console.print(Text("Operation aborted", style="pi.warning"))
                elif message.stop_reason == "error":
                    self.console.print(
                        Text(f"Error: {sanitize(message.error_message or 'unknown error')}", style="pi.error")
                    )
            elif role == "toolResult" and message.tool_call_id not in shown:
                self._print_result(message.tool_name, message, message.is_error, self.expand_tools)
            elif role == "custom" and getattr(message, "display", False):
                self._print_custom(message)
            elif role == "bashExecution":
                self.console.print(
                    Text(f"$ {sanitize(message.command)}", style="bold")
                    + Text(f"\n{sanitize(message.output)}", style="pi.muted")
                )
            elif role == "compactionSummary":
                self.console.print(_CompactionView(self, message.tokens_before, message.summary))
            elif role == "branchSummary":
                self.console.print(Text("── summary of the branch left ──", style="pi.customMessageLabel"))
                self.console.print(
                    Text(self.markdown(sanitize(message.summary), "summary"), style="pi.muted")
                )
        for _, _, entry in waiting:
            self.print_entry(entry)

    # --- tools ----------------------------------------------------------------------------------

    def _on_tool_execution_start(self, event: Any) -> None:
        block = _ToolBlock(event.tool_call_id, event.tool_name, event.args)
        self._tool_blocks.append(block)
        if len(self._tool_blocks) == 1:
            self._print_call(block.name, block.args)
            block.header_shown = True

    def _on_tool_execution_update(self, event: Any) -> None:
        text = sanitize(_content_text(event.partial_result.content)).rstrip("\n")
        lines = text.split("\n")[-LIVE_LINES:] if text else []
        self.live_output[event.tool_call_id] = (event.tool_name, lines)
        self.on_live_change()

    def _on_tool_execution_end(self, event: Any) -> None:
        if self.live_output.pop(event.tool_call_id, None) is not None:
            self.on_live_change()
        self.last_tool_result = event
        block = next((b for b in self._tool_blocks if b.call_id == event.tool_call_id), None)
        if block is None:  # a call this renderer did not see start: show it on its own
            block = _ToolBlock(event.tool_call_id, event.tool_name, None, header_shown=True)
            self._tool_blocks.insert(0, block)
        block.end = event
        self._flush_tool_blocks()

    def _flush_tool_blocks(self, *, all_of_them: bool = False) -> None:
        """Print every finished call at the front (header, then result) and the header of the
        first one still running; ``all_of_them`` also the headers of calls that never ended."""
        blocks = self._tool_blocks
        while blocks and (blocks[0].end is not None or all_of_them):
            block = blocks.pop(0)
            if not block.header_shown:
                self._print_call(block.name, block.args)
            if block.end is not None:
                end = block.end
                self._print_result(end.tool_name, end.result, end.is_error, self.expand_tools)
        if blocks and not blocks[0].header_shown:
            self._print_call(blocks[0].name, blocks[0].args)
            blocks[0].header_shown = True

    def _on_agent_end(self, event: Any) -> None:
        self._flush_tool_blocks(all_of_them=True)

    def _print_call(self, name: str, args: Any) -> None:
        self.console.print(_bulleted(self._call_renderable(name, args)))

    def tool_renderer(self, name: str) -> tuple[Any, str | None]:
        """What draws calls of ``name`` and whose it is: the plugins' resolvers in load order,
        then the tool's own renderers (its plugin's)."""
        own = self._tools().get(name)
        resolvers = self._tool_renderers()
        if not resolvers:
            return own, self._tool_owner(name) if own is not None else None
        return resolve_owned_tool_renderer(
            resolvers,
            name,
            own,
            self._tool_owner(name),
            lambda plugin, error: self._report(plugin, "register_tool_renderers", error),
        )

    def _draw(self, renderer: Any, owner: str | None, part: str, *args: Any) -> RenderableType | None:
        """``renderer.<part>(*args)``; ``None`` (and the failure reported) when it raises."""
        render = getattr(renderer, part, None)
        if render is None:
            return None
        try:
            rendered = render(*args)
        except Exception as error:  # a broken renderer must not stop the REPL
            self._report(owner or "tool renderer", part, error)
            return None
        return Text.from_ansi(rendered) if isinstance(rendered, str) else rendered

    def _print_result(self, name: str, result: Any, is_error: bool, expanded: bool) -> None:
        if expanded == self.expand_tools:
            # Laid out when drawn: the fullscreen transcript draws it again after Ctrl+O.
            self.console.print(_ToolResultView(self, name, result, is_error))
        else:
            self.console.print(self.result_renderable(name, result, is_error, expanded=expanded))

    def print_last_tool_result(self) -> bool:
        """Print the last tool result again, expanded (Ctrl+O); False when there was none."""
        last = self.last_tool_result
        if last is None:
            return False
        self._print_result(last.tool_name, last.result, last.is_error, True)
        return True

    def result_renderable(self, name: str, result: Any, is_error: bool, *, expanded: bool) -> RenderableType:
        """A tool result through its tool's renderer — a failed one too, so that it is cut to the
        same preview as a successful one (Ctrl+O shows it all), and coloured as an error."""
        renderer, owner = self.tool_renderer(name)
        result = sanitize_result(result)
        options = {"expanded": expanded, "isPartial": False, "isError": is_error}
        renderable = self._draw(renderer, owner, "render_result", result, options, self._tool_context())
        if renderable is None:
            text = _content_text(result.content)
            renderable = _preview(text, expanded) if is_error else Text(text, style="pi.toolOutput")
        if is_error and isinstance(renderable, Text):
            renderable.stylize("red")
        return renderable

    def _call_renderable(self, name: str, args: Any) -> RenderableType:
        renderer, owner = self.tool_renderer(name)
        rendered = self._draw(renderer, owner, "render_call", args, self._tool_context())
        if rendered is not None:
            return rendered
        args = sanitize_value(args)
        shown = json.dumps(args, ensure_ascii=False) if args not in (None, {}) else ""
        return Text(name, style="pi.toolName") + Text(f" {shown}" if shown else "", style="pi.accent")

    # --- session events -------------------------------------------------------------------------

    def _on_compaction_start(self, event: Any) -> None:
        self.console.print(Text(f"Compacting context ({event.reason})…", style="pi.dim"))

    def _on_compaction_end(self, event: Any) -> None:
        if event.error_message:
            self.console.print(Text(f"Compaction failed: {sanitize(event.error_message)}", style="pi.error"))
        elif event.aborted:
            self.console.print(Text("Compaction aborted", style="pi.warning"))
        elif event.result is not None:
            result = event.result
            self.console.print(_CompactionView(self, result.get("tokensBefore"), result.get("summary")))

    def _on_auto_retry_start(self, event: Any) -> None:
        self.console.print(
            Text(
                f"Retrying ({event.attempt}/{event.max_attempts}) in {event.delay_ms / 1000:.0f}s: "
                f"{sanitize(event.error_message)}",
                style="pi.warning",
            )
        )

    def _on_auto_retry_end(self, event: Any) -> None:
        if not event.success:
            self.console.print(Text(f"Retry failed: {sanitize(str(event.final_error))}", style="pi.error"))

    def _on_queue_update(self, event: Any) -> None:
        pending = [*(f"steer: {t}" for t in event.steering), *(f"follow-up: {t}" for t in event.follow_up)]
        if pending:
            self.console.print(Text("Queued: " + " | ".join(pending), style="pi.dim"))

    def _on_extension_error(self, event: Any) -> None:
        self.console.print(
            Text(
                sanitize(f"Extension error ({event.extension_path}, {event.event}): {event.error}"),
                style="pi.error",
            )
        )


class PromptText(Text):
    """A message of the user's as the transcript shows it: the rows the fullscreen prompt jumps
    (Ctrl+Shift+Up/Down) go to."""

    is_prompt = True


def prompt_line(text: Text) -> PromptText:
    """``> text``: a user's message in the transcript."""
    line = PromptText("> ", style="pi.userPrompt")  # the whole row in it, as before
    line.append(text)
    return line


def _bulleted(renderable: RenderableType) -> RenderableType:
    """A tool call's drawing behind its bullet, on the bullet's row: a text, or a group that
    starts with one (the write tool's title above its content), goes on after it; anything else
    is indented beside it."""
    bullet = Text("● ", style="pi.accent")
    if isinstance(renderable, Text):
        return bullet + renderable
    if (
        isinstance(renderable, Group)
        and renderable.renderables
        and isinstance(renderable.renderables[0], Text)
    ):
        first, *rest = renderable.renderables
        return Group(bullet + first, *rest)
    from rich.table import Table

    grid = Table.grid()
    grid.add_column(no_wrap=True)
    grid.add_column()
    grid.add_row(bullet, renderable)
    return grid


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            parts.append(f"[image {block.mime_type}]")
    return "\n".join(parts)


def _user_text(message: Any) -> str:
    return sanitize(_content_text(message.content))


#: How many trailing lines of a failed result show before Ctrl+O expands it (when its tool has
#: no renderer of its own).
ERROR_PREVIEW_LINES = 10


def _preview(text: str, expanded: bool) -> Text:
    lines = text.rstrip("\n").split("\n") if text else []
    if expanded or len(lines) <= ERROR_PREVIEW_LINES:
        return Text("\n".join(lines), style="pi.error")
    hidden = len(lines) - ERROR_PREVIEW_LINES
    out = Text(f"... ({hidden} earlier lines, Ctrl+O expands)\n", style="pi.hint")
    out.append("\n".join(lines[-ERROR_PREVIEW_LINES:]), style="pi.error")
    return out


def compaction_marker(tokens_before: int | None) -> Text:
    """The line that marks where the context was compacted, live and when a session is replayed."""
    suffix = f" ({tokens_before} tokens before)" if tokens_before else ""
    return Text(f"── context compacted{suffix} ──", style="pi.customMessageLabel")


class _CompactionView:
    """Where the context was compacted: the marker, and the summary under it while tool output is
    expanded (laid out when drawn, so Ctrl+O in fullscreen opens and closes it in place)."""

    __slots__ = ("renderer", "summary", "tokens_before")

    def __init__(self, renderer: EventRenderer, tokens_before: int | None, summary: Any) -> None:
        self.renderer = renderer
        self.tokens_before = tokens_before
        self.summary = summary if isinstance(summary, str) else ""

    def __rich__(self) -> RenderableType:
        marker = compaction_marker(self.tokens_before)
        if not (self.renderer.expand_tools and self.summary.strip()):
            return marker
        summary = ThemedMarkdown(self.renderer.markdown(sanitize(self.summary), "summary"))
        return Group(marker, summary)


class _ThinkingView:
    """Thinking text, drawn while thinking is shown and as nothing while it is hidden (read when
    drawn, so Ctrl+T in fullscreen shows and hides it in place)."""

    __slots__ = ("renderer", "text")

    def __init__(self, renderer: EventRenderer, text: str) -> None:
        self.renderer = renderer
        self.text = text

    def __rich__(self) -> RenderableType:
        renderer = self.renderer
        if renderer.hide_thinking:
            return Group()
        return Text(renderer.markdown(sanitize(self.text), "assistant-thinking"), style="pi.thinking")


class _HiddenThinkingView:
    """Where a thinking run begins: the hidden-thinking label while thinking is hidden, nothing
    while it is shown (or when the label is empty)."""

    __slots__ = ("renderer",)

    def __init__(self, renderer: EventRenderer) -> None:
        self.renderer = renderer

    def __rich__(self) -> RenderableType:
        renderer = self.renderer
        label = sanitize(renderer.hidden_thinking_label)
        if not (renderer.hide_thinking and label.strip()):
            return Group()
        return Text(label, style="pi.thinking")


class _ToolResultView:
    """A tool result that renders as the renderer's ``expand_tools`` says at the time it is drawn."""

    __slots__ = ("is_error", "name", "renderer", "result")

    def __init__(self, renderer: EventRenderer, name: str, result: Any, is_error: bool) -> None:
        self.renderer = renderer
        self.name = name
        self.result = result
        self.is_error = is_error

    def __rich__(self) -> RenderableType:
        return self.renderer.result_renderable(
            self.name, self.result, self.is_error, expanded=self.renderer.expand_tools
        )


class _ToolBlock:
    """One tool call of the running message: shown header, and its end event once it finished."""

    __slots__ = ("args", "call_id", "end", "header_shown", "name")

    def __init__(self, call_id: str, name: str, args: Any, *, header_shown: bool = False) -> None:
        self.call_id = call_id
        self.name = name
        self.args = args
        self.header_shown = header_shown
        self.end: Any = None
