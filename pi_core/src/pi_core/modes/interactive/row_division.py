"""How an ``HSplit`` shares its rows among its children, worked out in one pass.

prompt-toolkit hands rows out one at a time: each child grows by one row, in turn, first up to
its preferred height and then up to its largest, and every step sums all the sizes again. With a
dozen children (transcript, working row, widgets, editor, footer, ...) and forty rows that is
hundreds of steps, a fifth of a key's redraw. In the usual case the answer is plain: the rows
are enough for every child's preferred height, and at most one child can take more (the
transcript, or nothing at all), so it takes the rest. That case is computed directly; every other
one goes through the same turn-by-turn sharing as prompt-toolkit's, from the measurements
already taken (measuring a child twice would ask some of them for their content twice).
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application.current import get_app
from prompt_toolkit.layout import HSplit
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.utils import take_using_weights

#: prompt-toolkit's own division (what :func:`share_rows` must agree with).
TOOLKIT_DIVIDE_HEIGHTS = HSplit._divide_heights


def share_rows(dimensions: list[Dimension], height: int, grow_past_preferred: bool) -> list[int] | None:
    """The height of each child, or ``None`` when their smallest heights do not fit."""
    smallest = sum(d.min for d in dimensions)
    if smallest > height:
        return None
    preferred = sum(d.preferred for d in dimensions)
    largest = sum(d.max for d in dimensions)
    if preferred <= height and all(d.weight > 0 or d.min == d.preferred for d in dimensions):
        sizes = [d.preferred for d in dimensions]
        spare = min(height, largest) - preferred if grow_past_preferred else 0
        if spare <= 0:
            return sizes
        growing = [index for index, d in enumerate(dimensions) if d.max > d.preferred]
        if len(growing) == 1 and dimensions[growing[0]].weight > 0:
            sizes[growing[0]] += spare
            return sizes
    return _share_in_turns(dimensions, height, grow_past_preferred)


def _share_in_turns(dimensions: list[Dimension], height: int, grow_past_preferred: bool) -> list[int]:
    """prompt-toolkit's sharing: a row at a time, to each child in turn by weight."""
    sizes = [d.min for d in dimensions]
    turns = take_using_weights(items=list(range(len(dimensions))), weights=[d.weight for d in dimensions])
    index = next(turns)
    total = sum(sizes)
    goal = min(height, sum(d.preferred for d in dimensions))
    while total < goal:
        if sizes[index] < dimensions[index].preferred:
            sizes[index] += 1
            total += 1
        index = next(turns)
    if grow_past_preferred:
        goal = min(height, sum(d.max for d in dimensions))
        while total < goal:
            if sizes[index] < dimensions[index].max:
                sizes[index] += 1
                total += 1
            index = next(turns)
    return sizes


def _divide_heights(self: HSplit, write_position: Any) -> list[int] | None:
    if not self.children:
        return []
    width, height = write_position.width, write_position.height
    dimensions = [child.preferred_height(width, height) for child in self._all_children]
    return share_rows(dimensions, height, grow_past_preferred=not get_app().is_done)


def share_rows_in_one_pass() -> None:
    """Install :func:`share_rows` as every ``HSplit``'s way of dividing its height (once per
    process)."""
    if getattr(HSplit._divide_heights, "shares_in_one_pass", False):
        return
    _divide_heights.shares_in_one_pass = True  # type: ignore[attr-defined]
    HSplit._divide_heights = _divide_heights  # type: ignore[method-assign]
