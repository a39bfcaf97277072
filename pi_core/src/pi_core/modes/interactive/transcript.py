"""The fullscreen transcript: what was printed, kept as rich renderables and laid out on demand.

Everything the REPL prints (``console.print``) becomes a :class:`Block` holding the renderables,
not their text, so a block is laid out again at a new width (resize) or in another state (Ctrl+O
expands tool results). Only what is on screen is laid out: the view walks the blocks from the
bottom up until the screen is full, and keeps the lines of the most recently shown blocks in a
bounded cache — a long session scrolls with flat memory. Lines are prompt-toolkit fragments
parsed from rich's ANSI output.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text
from rich.console import Console, ConsoleDimensions
from rich.markdown import Markdown
from rich.text import Text
from rich.theme import Theme as RichTheme

#: Laid-out blocks kept at most (the rest is laid out again when scrolled back into view).
CACHED_BLOCKS = 400
#: Screen rows (rich's ANSI text of one row) whose fragments are kept for the next layout: the
#: block being streamed is laid out again as it grows, and most of its rows stay as they were.
CACHED_ROWS = 4000
_HYPERLINK = re.compile(r"\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)")

Line = StyleAndTextTuples


class Block:
    """One ``print`` call: its renderables and options; ``tag`` lets the view find it again."""

    __slots__ = ("kwargs", "objects", "serial", "tag")

    def __init__(self, objects: Sequence[Any], kwargs: dict[str, Any], serial: int, tag: str = "") -> None:
        self.objects = tuple(objects)
        self.kwargs = kwargs
        self.serial = serial
        self.tag = tag

    def source_text(self) -> str | None:
        """The block's text without laying it out, when that is cheap (for search)."""
        parts: list[str] = []
        for item in self.objects:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, Text):
                parts.append(item.plain)
            elif isinstance(item, Markdown):
                parts.append(item.markup)
            else:
                return None
        return " ".join(parts)


def clean_environ() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}


class Transcript:
    """The blocks, the scroll position and the layout cache."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self._serial = 0
        #: Lines scrolled up from the bottom (0: the view follows new output).
        self.scroll = 0
        self._cache: OrderedDict[tuple[int, int, int], list[Line]] = OrderedDict()
        self._consoles: dict[int, Console] = {}
        self._rows: dict[str, Line] = {}
        #: Bumped to lay every block out again (Ctrl+O, Ctrl+T, a theme change).
        self.generation = 0
        self.on_change: Callable[[], None] = lambda: None
        #: A search hit: (block serial, line index within the block).
        self.highlight: tuple[int, int] | None = None
        #: The theme's rich styles and colour depth the blocks are laid out with.
        self.rich_theme: RichTheme | None = None
        self.color_system: Any = "256"

    # --- adding ---------------------------------------------------------------------------------

    def append(self, objects: Sequence[Any], kwargs: dict[str, Any], *, width: int, tag: str = "") -> Block:
        self._serial += 1
        block = Block(objects, kwargs, self._serial, tag)
        self.blocks.append(block)
        if self.scroll:  # reading older output: keep it where it is on screen
            self.scroll += len(self.lines(block, width))
        self.on_change()
        return block

    def clear(self) -> None:
        self.blocks.clear()
        self._cache.clear()
        self.scroll = 0
        self.highlight = None
        self.on_change()

    def use_theme(self, rich_theme: RichTheme, color_system: Any) -> None:
        """Lay every block out again with another theme's styles."""
        self.rich_theme, self.color_system = rich_theme, color_system
        self._consoles = {}
        self.relayout()

    def relayout(self) -> None:
        self.generation += 1
        self._cache.clear()
        self.on_change()

    @contextlib.contextmanager
    def kept_in_place(self, width: int, height: int, live_rows: int) -> Iterator[None]:
        """Every block is laid out again after the change made inside. While the view is
        scrolled up, the row at the top of the screen stays there; when the block it belongs
        to changes size, that block's top stays where it was (at the bottom the view follows
        the end, as always)."""
        anchor = self._top_row(width, height, live_rows) if self.scroll else None
        yield
        self.generation += 1
        self._cache.clear()
        if anchor is not None:
            self.scroll = self._scroll_showing(anchor, width, height, live_rows)
        self.on_change()

    def _top_row(self, width: int, height: int, live_rows: int) -> tuple[int, int] | None:
        """The screen's top row: (block serial, row within the block)."""
        top = self.scroll + height  # rows from the bottom to the screen's top, that row included
        below = live_rows
        if below >= top:  # the live rows fill the screen
            return None
        for block in reversed(self.blocks):
            count = len(self.lines(block, width))
            if below + count >= top:
                return block.serial, below + count - top
            below += count
        return None

    def _scroll_showing(self, anchor: tuple[int, int], width: int, height: int, live_rows: int) -> int:
        """The scroll position that puts the anchor's row (its block's last one, at most) at
        the top of the screen."""
        serial, row = anchor
        below = live_rows
        for block in reversed(self.blocks):
            count = len(self.lines(block, width))
            if block.serial == serial:
                return max(0, below + count - min(row, max(0, count - 1)) - height)
            below += count
        return self.scroll

    # --- layout ---------------------------------------------------------------------------------

    def console(self, width: int) -> Console:
        console = self._consoles.get(width)
        if console is None:
            console = Console(
                file=io.StringIO(),
                width=width,
                height=1000,
                force_terminal=True,
                color_system=self.color_system,
                theme=self.rich_theme,
                highlight=False,
                legacy_windows=False,
                _environ=clean_environ(),
            )
            self._consoles = {width: console}  # one width at a time
        return console

    def render(self, objects: Sequence[Any], kwargs: dict[str, Any], width: int) -> list[Line]:
        """Lay renderables out at ``width``: one list of fragments per screen row."""
        console = self.console(width)
        if kwargs.get("soft_wrap"):
            # Left to the terminal to wrap elsewhere; here no terminal wraps a row, and a long
            # one (a session file's problem, led by its path) would be cut at the screen's edge.
            kwargs = {**kwargs, "soft_wrap": False}
        with console.capture() as capture:
            try:
                console.print(*objects, **kwargs)
            except Exception as error:  # a plugin's renderable that raises must not stop the UI
                console.print(Text(f"(could not draw this block: {error})", style="pi.error"))
        text = _HYPERLINK.sub("", capture.get())
        if not text:  # drew nothing, not even an empty row (hidden thinking)
            return []
        if text.endswith("\n"):
            text = text[:-1]
        return [self._row(row) for row in text.split("\n")]

    def _row(self, ansi: str) -> Line:
        """One row's fragments, parsed from its ANSI text once while it is in :data:`CACHED_ROWS`
        (the fragments are shared: callers copy before they change a row, as ``_reversed`` does)."""
        rows = self._rows
        line = rows.get(ansi)
        if line is None:
            if len(rows) >= CACHED_ROWS:
                rows.clear()
            line = rows[ansi] = to_formatted_text(ANSI(ansi))
        return line

    def lines(self, block: Block, width: int) -> list[Line]:
        key = (block.serial, width, self.generation)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        lines = self.render(block.objects, block.kwargs, width)
        self._cache[key] = lines
        while len(self._cache) > CACHED_BLOCKS:
            self._cache.popitem(last=False)
        return lines

    def window(self, width: int, height: int, live: list[Line]) -> tuple[list[Line], int]:
        """The rows to show (``height`` of them at most) and the scroll position actually used
        (clamped at the top of the transcript)."""
        wanted = self.scroll + height
        tail: list[list[Line]] = [live] if live else []
        count = len(live)
        index = len(self.blocks) - 1
        while index >= 0 and count < wanted:
            block = self.blocks[index]
            lines = self.lines(block, width)
            if self.highlight is not None and self.highlight[0] == block.serial:
                row = self.highlight[1]
                if row < len(lines):
                    lines = [*lines[:row], _reversed(lines[row]), *lines[row + 1 :]]
            tail.append(lines)
            count += len(lines)
            index -= 1
        rows = [line for chunk in reversed(tail) for line in chunk]
        scroll = min(self.scroll, max(0, len(rows) - height))
        end = len(rows) - scroll
        return rows[max(0, end - height) : end], scroll

    # --- prompt jumps ---------------------------------------------------------------------------

    def prompt_scroll(self, width: int, height: int, live_rows: int, *, up: bool) -> int | None:
        """The scroll position that puts the user's message above (``up``) or below the top of
        the screen at its top; ``None`` when there is none that way (below: the bottom, 0).
        Only the blocks from the bottom up to the one found are laid out."""
        top = self.scroll + height  # rows from the bottom of the transcript to the screen's top
        below = live_rows  # rows from the bottom to the top of the block looked at
        nearest: int | None = None
        for block in reversed(self.blocks):
            below += len(self.lines(block, width))
            if not block.objects or not getattr(block.objects[0], "is_prompt", False):
                continue
            if up and below > top:
                return max(0, below - height)
            if not up:
                if below >= top:
                    break
                nearest = below  # the last one under the top, walking up: the nearest
        if up:
            return None
        return 0 if nearest is None else max(0, nearest - height)

    # --- search ---------------------------------------------------------------------------------

    def search(self, query: str, width: int, before: tuple[int, int] | None) -> tuple[int, int] | None:
        """The nearest hit of ``query`` (case-insensitive) above ``before`` (block serial, row),
        searching upwards from the bottom when ``before`` is ``None``."""
        needle = query.lower()
        if not needle:
            return None
        for block in reversed(self.blocks):
            if before is not None and block.serial > before[0]:
                continue
            source = block.source_text()
            if source is not None and needle not in source.lower() and not _might_wrap(source, needle):
                continue
            rows = [_plain(line).lower() for line in self.lines(block, width)]
            limit = before[1] if before is not None and block.serial == before[0] else len(rows)
            for row in range(min(limit, len(rows)) - 1, -1, -1):
                if needle in rows[row]:
                    return block.serial, row
        return None

    def search_down(self, query: str, width: int, after: tuple[int, int] | None) -> tuple[int, int] | None:
        """The nearest hit of ``query`` (case-insensitive) below ``after`` (block serial, row),
        searching downwards from the top when ``after`` is ``None``."""
        needle = query.lower()
        if not needle:
            return None
        for block in self.blocks:
            if after is not None and block.serial < after[0]:
                continue
            source = block.source_text()
            if source is not None and needle not in source.lower() and not _might_wrap(source, needle):
                continue
            rows = [_plain(line).lower() for line in self.lines(block, width)]
            start = after[1] + 1 if after is not None and block.serial == after[0] else 0
            for row in range(start, len(rows)):
                if needle in rows[row]:
                    return block.serial, row
        return None

    def scroll_to(self, hit: tuple[int, int], width: int, height: int) -> None:
        """Scroll so that row ``hit`` is in the middle of the screen."""
        below = 0
        for block in reversed(self.blocks):
            lines = self.lines(block, width)
            if block.serial == hit[0]:
                below += len(lines) - hit[1] - 1
                break
            below += len(lines)
        self.scroll = max(0, below - height // 2)
        self.highlight = hit
        self.on_change()

    def plain_rows(self, rows: list[Line]) -> list[str]:
        return [_plain(line) for line in rows]


def _plain(line: Line) -> str:
    return "".join(fragment[1] for fragment in line)


def _reversed(line: Line) -> Line:
    return [(f"{fragment[0]} reverse", fragment[1]) for fragment in line]


def _might_wrap(source: str, needle: str) -> bool:
    """A needle with spaces may be split differently in the source (markdown) than on screen."""
    return " " in needle and needle.replace(" ", "") in source.lower().replace(" ", "").replace("\n", "")


class TranscriptConsole(Console):
    """The console the REPL's commands and renderer print to in fullscreen mode: each ``print``
    becomes a transcript block instead of text on the terminal. Writes to ``file`` (titles, OSC
    52 copies) still reach the terminal."""

    def __init__(self, transcript: Transcript, size: Callable[[], tuple[int, int]]) -> None:
        super().__init__(highlight=False, _environ=clean_environ())
        self.transcript = transcript
        self._size = size
        #: Set while a dialog has the screen: printed blocks are also drawn there at once.
        self.echo: Callable[[Block], None] | None = None

    @property
    def size(self) -> ConsoleDimensions:
        width, height = self._size()
        return ConsoleDimensions(width, height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:  # rich's setter; the terminal decides here
        pass

    def print(self, *objects: Any, **kwargs: Any) -> None:
        block = self.transcript.append(objects, kwargs, width=self.size.width)
        if self.echo is not None:
            self.echo(block)
