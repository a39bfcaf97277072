"""Where a plugin's overlay floats (``ctx.ui.custom(..., overlay=True, overlay_options=...)``) and
the handle that shows, hides and focuses it (``on_handle``), in the fullscreen REPL.

The options are pi's ``OverlayOptions`` (camelCase or snake_case keys): ``width`` (columns or
``"50%"`` of the terminal), ``min_width``, ``max_height`` (rows or a percentage), ``anchor``
(``center`` by default, ``top-left``, ``top-right``, ``bottom-left``, ``bottom-right``,
``top-center``, ``bottom-center``, ``left-center``, ``right-center``), ``row``/``col`` (absolute,
or a percentage of the room left: ``"0%"`` top/left, ``"100%"`` bottom/right) instead of the
anchor, ``offset_x``/``offset_y``, ``margin`` (a number, or ``top``/``right``/``bottom``/``left``),
``visible(columns, rows)`` and ``non_capturing`` (shown without taking the keys). The placement is
worked out again at every redraw, so a resize or options given as a function take effect at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Float
from prompt_toolkit.layout.containers import Container
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

if TYPE_CHECKING:
    from prompt_toolkit.application import Application

    from pi_core.modes.interactive.program_status import Blocked

#: Columns of an overlay that names no width (fewer on a narrow terminal), as pi.
DEFAULT_WIDTH = 80

Percent = Annotated[str, Field(pattern=r"^\d+(\.\d+)?%$")]
Size = int | Percent
Anchor = Literal[
    "center",
    "top-left",
    "top-right",
    "bottom-left",
    "bottom-right",
    "top-center",
    "bottom-center",
    "left-center",
    "right-center",
]


class OverlayMargin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    top: int = 0
    right: int = 0
    bottom: int = 0
    left: int = 0


class OverlayOptions(BaseModel):
    """pi's ``OverlayOptions``; a plugin passes a dict with pi's or snake_case names."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", arbitrary_types_allowed=True
    )

    width: Size | None = None
    min_width: int | None = None
    max_height: Size | None = None
    anchor: Anchor = "center"
    offset_x: int = 0
    offset_y: int = 0
    row: Size | None = None
    col: Size | None = None
    margin: int | OverlayMargin = 0
    visible: Callable[[int, int], Any] | None = None
    non_capturing: bool = False


def read_options(raw: Any) -> OverlayOptions:
    """``raw`` (a dict, an :class:`OverlayOptions` or ``None``) as options; raises ``ValueError``
    with one line saying what is wrong."""
    if raw is None:
        return OverlayOptions()
    if isinstance(raw, OverlayOptions):
        return raw
    try:
        return OverlayOptions.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or 'options'}: {problem['msg']}"
            for problem in error.errors()
        )
        raise ValueError(f"overlay_options: {problems}") from None


@dataclass
class OverlayRequest:
    """What ``custom`` asks besides its component: for an overlay, where it goes and who gets
    its handle; for any, what the terminal should hear pi waits for while it is up."""

    #: The options now (called at each redraw); ``None``: pi's defaults, or the component's
    #: ``width`` attribute when it has one.
    options: Callable[[], OverlayOptions] | None = None
    #: Called with the overlay's handle once it is shown.
    on_handle: Callable[[Any], Any] | None = None
    #: Reports an error of the plugin's (bad options, an ``on_handle`` that raises).
    report: Callable[[BaseException], None] | None = None
    #: pi's ``blocked``: reported as program status while it waits (in the editor's place: while
    #: shown on top; an overlay: until done, hidden or not).
    blocked: Blocked | None = None


def options_source(raw: Any, report: Callable[[BaseException], None]) -> Callable[[], OverlayOptions] | None:
    """``overlay_options`` as ``custom`` got it — a dict, options, or a function returning one —
    as a function giving the options to use now. Bad options are reported once and pi's
    defaults (or the last good ones) stand in."""
    if raw is None:
        return None
    if callable(raw):
        state: dict[str, Any] = {"good": OverlayOptions(), "reported": False}

        def current() -> OverlayOptions:
            try:
                state["good"] = read_options(raw())
            except Exception as error:
                if not state["reported"]:
                    state["reported"] = True
                    report(error)
            good: OverlayOptions = state["good"]
            return good

        return current
    try:
        fixed = read_options(raw)
    except ValueError as error:
        report(error)
        fixed = OverlayOptions()
    return lambda: fixed


@dataclass(frozen=True)
class OverlayBounds:
    """Where an overlay was last drawn: its top row, left column, width and height (0-based, on
    the terminal)."""

    row: int
    col: int
    width: int
    height: int


def _size(value: Size | None, reference: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    return math.floor(reference * float(value[:-1]) / 100)


def _percent(value: str) -> float | None:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)%", value)
    return float(match.group(1)) / 100 if match else None


def place(
    options: OverlayOptions, height_for: Callable[[int], int], columns: int, rows: int
) -> tuple[OverlayBounds, int | None]:
    """Where the overlay goes on a ``columns`` x ``rows`` terminal (pi's rules), and the most rows
    it may use (``None``: as many as it has). ``height_for(width)`` is how tall it wants to be."""
    margin = options.margin
    sides = (
        (margin.top, margin.right, margin.bottom, margin.left)
        if isinstance(margin, OverlayMargin)
        else (margin,) * 4
    )
    top, right, bottom, left = (max(0, side) for side in sides)
    room_width = max(1, columns - left - right)
    room_height = max(1, rows - top - bottom)
    width = _size(options.width, columns)
    if width is None:
        width = min(DEFAULT_WIDTH, room_width)
    if options.min_width is not None:
        width = max(width, options.min_width)
    width = max(1, min(width, room_width))
    max_height = _size(options.max_height, rows)
    if max_height is not None:
        max_height = max(1, min(max_height, room_height))
    height = height_for(width)
    if max_height is not None:
        height = min(height, max_height)
    row = _position(options.row, options.anchor, "row", height, room_height, top)
    col = _position(options.col, options.anchor, "col", width, room_width, left)
    row = max(top, min(row + options.offset_y, rows - bottom - height))
    col = max(left, min(col + options.offset_x, columns - right - width))
    return OverlayBounds(row=row, col=col, width=width, height=height), max_height


#: Which edge of the room each anchor holds the overlay against, down and across.
_ROW_SIDE = {"top-left": "start", "top-center": "start", "top-right": "start"} | {
    "bottom-left": "end",
    "bottom-center": "end",
    "bottom-right": "end",
}
_COL_SIDE = {"top-left": "start", "left-center": "start", "bottom-left": "start"} | {
    "top-right": "end",
    "right-center": "end",
    "bottom-right": "end",
}


def _position(value: Size | None, anchor: str, axis: str, extent: int, room: int, start: int) -> int:
    """The overlay's first row or column: ``value`` (absolute, or a share of the room left), else
    the anchor's."""
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        share = _percent(value)
        if share is not None:
            return start + math.floor(max(0, room - extent) * share)
    side = (_ROW_SIDE if axis == "row" else _COL_SIDE).get(anchor, "middle")
    if side == "start":
        return start
    if side == "end":
        return start + room - extent
    return start + (room - extent) // 2


#: ``unfocus()`` with no target: the keys go back where they went before.
_BACK = object()


class PlacedOverlay:
    """One plugin overlay on screen: its float, where it goes, and pi's ``OverlayHandle``
    methods (``set_hidden``, ``is_hidden``, ``focus``, ``unfocus``, ``is_focused``,
    ``get_bounds``, ``hide``)."""

    def __init__(
        self,
        content: Container,
        options: Callable[[], OverlayOptions],
        app: Application[Any],
        *,
        give_focus_back: Callable[[PlacedOverlay], None],
        close: Callable[[], None],
        give_focus_to: Callable[[Any], bool] | None = None,
        component: Any = None,
    ) -> None:
        self.content = content
        #: What the plugin's factory made (an ``unfocus`` target names it).
        self.component = component
        self._options = options
        self._app = app
        self._give_focus_back = give_focus_back
        self._give_focus_to = give_focus_to
        self._close = close
        self.hidden = False
        #: Whether it takes the keys back when what covered it (a dialog, a component in the
        #: editor's place) goes: it had them, and no ``unfocus`` gave them away since.
        self.wants_keys = not self.non_capturing
        self._laid_out: tuple[int, OverlayBounds, int | None] | None = None
        #: Where it was drawn last (``None`` until drawn, and while hidden).
        self.bounds: OverlayBounds | None = None
        shown = Condition(self.showing)
        self.float = _PlacedFloat(ConditionalContainer(content, filter=shown), self)

    @property
    def non_capturing(self) -> bool:
        return self._options().non_capturing

    def showing(self) -> bool:
        """Not hidden by the handle, and the ``visible`` option (if any) allows this terminal size."""
        if self.hidden:
            return False
        visible = self._options().visible
        if visible is None:
            return True
        size = self._app.output.get_size()
        try:
            return bool(visible(size.columns, size.rows))
        except Exception:
            return True  # a broken predicate hides nothing (the plugin still gets its overlay)

    def layout(self) -> tuple[OverlayBounds, int | None]:
        """The placement for the redraw under way (worked out once per redraw)."""
        counter = self._app.render_counter
        if self._laid_out is not None and self._laid_out[0] == counter:
            return self._laid_out[1], self._laid_out[2]
        size = self._app.output.get_size()

        def height_for(width: int) -> int:
            preferred = self.content.preferred_height(width, size.rows).preferred
            return max(1, preferred)

        bounds, max_height = place(self._options(), height_for, size.columns, size.rows)
        self._laid_out = (counter, bounds, max_height)
        self.bounds = bounds if self.showing() else None
        return bounds, max_height

    # --- pi's OverlayHandle ----------------------------------------------------------------------

    def set_hidden(self, hidden: bool) -> None:
        hidden = bool(hidden)
        if hidden == self.hidden:
            return
        was_focused = self.is_focused()
        self.hidden = hidden
        if hidden:
            self.bounds = None
            if was_focused:
                self._give_focus_back(self)
        elif not self.non_capturing:
            self.focus()
        self._app.invalidate()

    def is_hidden(self) -> bool:
        return self.hidden

    def focus(self) -> None:
        """Take the keys and come to the front (when shown)."""
        if not self.showing():
            return
        floats = getattr(self._app.layout.container, "floats", None)
        if isinstance(floats, list) and self.float in floats:
            floats.remove(self.float)
            floats.append(self.float)
        self._app.layout.update_parents_relations()
        try:
            self._app.layout.focus(self.content)
        except ValueError:
            return  # nothing in it takes the focus
        self.wants_keys = True
        self._app.invalidate()

    def unfocus(self, target: Any = _BACK) -> None:
        """Give the keys away, when it has them: to ``target`` — another overlay's handle, a
        component the plugin showed (what its factory made), a prompt-toolkit container, or
        ``None`` for nobody (pi's ``{target: null}``; a dict ``{"target": ...}`` as pi passes it
        works too) — else back to the overlay under it, or the editor. It does not take them back
        by itself when a dialog over it closes."""
        if isinstance(target, dict) and set(target) == {"target"}:
            target = target["target"]
        if not self.is_focused():
            return
        self.wants_keys = False
        if target is _BACK or self._give_focus_to is None or not self._give_focus_to(target):
            self._give_focus_back(self)
        self._app.invalidate()

    def is_focused(self) -> bool:
        try:
            return self._app.layout.has_focus(self.content)
        except ValueError:
            return False

    def get_bounds(self) -> OverlayBounds | None:
        return self.bounds

    def hide(self) -> None:
        """Close the overlay for good: ``custom`` returns ``None`` (pi leaves it unanswered)."""
        self._close()


class _PlacedFloat(Float):
    """A float whose position and size are the overlay's placement, asked at each redraw."""

    def __init__(self, content: Container, overlay: PlacedOverlay) -> None:
        self._overlay = overlay
        super().__init__(content, transparent=False)
        self.width = lambda: overlay.layout()[0].width
        self.height = lambda: overlay.layout()[0].height

    @property
    def left(self) -> int:
        return self._overlay.layout()[0].col

    @left.setter
    def left(self, value: int | None) -> None:
        """Set by ``Float.__init__``; the placement decides."""

    @property
    def top(self) -> int:
        return self._overlay.layout()[0].row

    @top.setter
    def top(self, value: int | None) -> None:
        """Set by ``Float.__init__``; the placement decides."""
