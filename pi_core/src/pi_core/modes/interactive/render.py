"""Session events → rich output: streamed text as markdown blocks, dimmed thinking, tool calls.

Text is printed block by block (a block ends at a blank line outside a code fence) and rendered as
markdown once complete, so output only ever appends — it works above a live prompt and in a pipe.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.text import Text

from pi_core.modes.interactive.blocks import BlockBuffer

HIDDEN_THINKING = Text("▸ thinking (hidden; Ctrl+T shows it)", style="dim italic")

#: How many trailing lines of a running tool's output the live view shows.
LIVE_LINES = 5


class EventRenderer:
    """Writes one session's events to a console; ``tools`` gives each tool's renderers by name."""

    def __init__(
        self,
        console: Console,
        tools: Callable[[], Mapping[str, Any]],
        tool_context: Callable[[], Any] = lambda: None,
        message_renderers: Callable[[], Mapping[str, Callable[..., Any]]] = dict,
    ) -> None:
        #: The plugins' custom-message renderers (read per message: a reload may replace them).
        self._message_renderers = message_renderers
        #: The last lines of each running tool's partial output (shown live under the editor).
        self.live_output: dict[str, tuple[str, list[str]]] = {}
        self.on_live_change: Callable[[], None] = lambda: None
        self.console = console
        self._tools = tools
        self._tool_context = tool_context
        #: ``hideThinkingBlock`` (toggled with Ctrl+T): thinking shows as one dim line instead.
        self.hide_thinking = False
        #: Ctrl+O: tool results are rendered in full from now on (and the last one again).
        self.expand_tools = False
        self.last_tool_result: Any = None
        self._text = BlockBuffer()
        self._thinking = BlockBuffer()
        self._args: dict[str, Any] = {}

    def __call__(self, event: Any) -> None:
        handler = getattr(self, f"_on_{getattr(event, 'type', '')}", None)
        if handler is not None:
            handler(event)

    # --- assistant text and thinking ------------------------------------------------------------

    def _on_message_update(self, event: Any) -> None:
        update = event.assistant_message_event
        kind = update.type
        if kind == "text_delta":
            self._flush_thinking(final=True)
            self._text.feed(update.delta)
            self._flush_text(final=False)
            self.on_live_change()
        elif kind == "thinking_delta":
            self._thinking.feed(update.delta)
            self._flush_thinking(final=False)
            self.on_live_change()
        elif kind == "text_end":
            self._flush_text(final=True)
        elif kind == "thinking_end":
            self._flush_thinking(final=True)

    def pending_text(self) -> str:
        """The block being streamed that is not printed yet (shown live under the editor)."""
        if self._text.pending or self.hide_thinking:
            return self._text.pending
        return self._thinking.pending

    def _flush_text(self, *, final: bool) -> None:
        block = self._text.take_rest() if final else self._text.take_complete()
        if block:
            self.console.print(Markdown(block))

    def _flush_thinking(self, *, final: bool) -> None:
        if self.hide_thinking:
            if final and self._thinking.take_rest():
                self.console.print(HIDDEN_THINKING)
            return
        block = self._thinking.take_rest() if final else self._thinking.take_complete()
        if block:
            self.console.print(Text(block, style="dim italic"))

    def _on_message_start(self, event: Any) -> None:
        message = event.message
        role = getattr(message, "role", None)
        if role == "user":
            self.console.print(Text("> ", style="bold green") + Text(_user_text(message)))
        elif role == "custom" and getattr(message, "display", False):
            self._print_custom(message)

    def _print_custom(self, message: Any) -> None:
        """A custom message through its plugin renderer, else its type and text."""
        render = self._message_renderers().get(message.custom_type)
        if render is not None:
            try:
                rendered = render(message, {"expanded": False}, None)
            except Exception as error:  # a broken renderer must not stop the REPL
                rendered = Text(f"(message renderer failed: {error})", style="red")
            if rendered is not None:
                self.console.print(rendered)
                return
        label = Text(f"[{message.custom_type}] ", style="magenta")
        self.console.print(label + Text(_content_text(message.content)))

    def _on_message_end(self, event: Any) -> None:
        message = event.message
        if getattr(message, "role", None) != "assistant":
            return
        self._flush_thinking(final=True)
        self._flush_text(final=True)
        if message.stop_reason == "aborted":
            self.console.print(Text("Operation aborted", style="yellow"))
        elif message.stop_reason == "error":
            self.console.print(Text(f"Error: {message.error_message or 'unknown error'}", style="bold red"))

    def replay(self, messages: list[Any]) -> None:
        """Print a transcript that already exists (a resumed, switched or forked session)."""
        calls: dict[str, str] = {}
        for message in messages:
            role = getattr(message, "role", None)
            if role == "user":
                self.console.print(Text("> ", style="bold green") + Text(_user_text(message)))
            elif role == "assistant":
                for block in message.content:
                    if block.type == "thinking" and block.thinking.strip():
                        shown = (
                            HIDDEN_THINKING
                            if self.hide_thinking
                            else Text(block.thinking.strip(), style="dim italic")
                        )
                        self.console.print(shown)
                    elif block.type == "text" and block.text.strip():
                        self.console.print(Markdown(block.text))
                    elif block.type == "toolCall":
                        calls[block.id] = block.name
                        tool = self._tools().get(block.name)
                        rendered = self._call_renderable(tool, block.name, block.arguments)
                        self.console.print(Text("● ", style="cyan"), rendered, sep="")
                if message.stop_reason == "aborted":
                    self.console.print(Text("Operation aborted", style="yellow"))
                elif message.stop_reason == "error":
                    self.console.print(
                        Text(f"Error: {message.error_message or 'unknown error'}", style="red")
                    )
            elif role == "toolResult":
                style = "red" if message.is_error else "dim"
                self.console.print(Text(_content_text(message.content), style=style))
            elif role == "custom" and getattr(message, "display", False):
                self._print_custom(message)
            elif role == "bashExecution":
                self.console.print(Text(f"$ {message.command}", style="bold") + Text(f"\n{message.output}"))

    # --- tools ----------------------------------------------------------------------------------

    def _on_tool_execution_start(self, event: Any) -> None:
        self._args[event.tool_call_id] = event.args
        tool = self._tools().get(event.tool_name)
        renderable = self._call_renderable(tool, event.tool_name, event.args)
        self.console.print(Text("● ", style="cyan"), renderable, sep="")

    def _on_tool_execution_update(self, event: Any) -> None:
        text = _content_text(event.partial_result.content).rstrip("\n")
        lines = text.split("\n")[-LIVE_LINES:] if text else []
        self.live_output[event.tool_call_id] = (event.tool_name, lines)
        self.on_live_change()

    def _on_tool_execution_end(self, event: Any) -> None:
        self._args.pop(event.tool_call_id, None)
        if self.live_output.pop(event.tool_call_id, None) is not None:
            self.on_live_change()
        self.last_tool_result = event
        self.console.print(self._result_renderable(event, expanded=self.expand_tools))

    def print_last_tool_result(self) -> bool:
        """Print the last tool result again, expanded (Ctrl+O); False when there was none."""
        if self.last_tool_result is None:
            return False
        self.console.print(self._result_renderable(self.last_tool_result, expanded=True))
        return True

    def _result_renderable(self, event: Any, *, expanded: bool) -> RenderableType:
        tool = self._tools().get(event.tool_name)
        result = event.result
        renderable: RenderableType | None = None
        render = getattr(tool, "render_result", None)
        if render is not None and not event.is_error:
            try:
                renderable = render(result, {"expanded": expanded, "isPartial": False}, self._tool_context())
            except Exception as error:  # a broken renderer must not stop the REPL
                renderable = Text(f"(render_result failed: {error})", style="red")
        if renderable is None:
            text = _content_text(result.content)
            renderable = Text(text, style="red" if event.is_error else "dim")
        return renderable

    def _call_renderable(self, tool: Any, name: str, args: Any) -> RenderableType:
        render = getattr(tool, "render_call", None)
        if render is not None:
            try:
                rendered = render(args, self._tool_context())
                if rendered is not None:
                    return rendered
            except Exception as error:
                return Text(f"{name} (render_call failed: {error})", style="red")
        shown = json.dumps(args, ensure_ascii=False) if args not in (None, {}) else ""
        return Text(name, style="bold") + Text(f" {shown}" if shown else "", style="cyan")

    # --- session events -------------------------------------------------------------------------

    def _on_compaction_start(self, event: Any) -> None:
        self.console.print(Text(f"Compacting context ({event.reason})…", style="dim"))

    def _on_compaction_end(self, event: Any) -> None:
        if event.error_message:
            self.console.print(Text(f"Compaction failed: {event.error_message}", style="red"))
        elif event.aborted:
            self.console.print(Text("Compaction aborted", style="yellow"))
        elif event.result is not None:
            before = event.result.get("tokensBefore")
            suffix = f" ({before} tokens before)" if before else ""
            self.console.print(Text(f"Context compacted{suffix}", style="dim"))

    def _on_auto_retry_start(self, event: Any) -> None:
        self.console.print(
            Text(
                f"Retrying ({event.attempt}/{event.max_attempts}) in {event.delay_ms / 1000:.0f}s: "
                f"{event.error_message}",
                style="yellow",
            )
        )

    def _on_auto_retry_end(self, event: Any) -> None:
        if not event.success:
            self.console.print(Text(f"Retry failed: {event.final_error}", style="red"))

    def _on_queue_update(self, event: Any) -> None:
        pending = [*(f"steer: {t}" for t in event.steering), *(f"follow-up: {t}" for t in event.follow_up)]
        if pending:
            self.console.print(Text("Queued: " + " | ".join(pending), style="dim"))

    def _on_extension_error(self, event: Any) -> None:
        self.console.print(
            Text(f"Extension error ({event.extension_path}, {event.event}): {event.error}", style="red")
        )


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
    return _content_text(message.content)
