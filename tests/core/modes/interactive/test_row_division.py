"""The one-pass row division gives every child the height prompt-toolkit's own would."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pi_core.modes.interactive.row_division import (
    TOOLKIT_DIVIDE_HEIGHTS,
    share_rows,
    share_rows_in_one_pass,
)
from prompt_toolkit.layout import HSplit, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.screen import WritePosition


class Measured(Container):
    """A child that only reports its height."""

    def __init__(self, dimension: Dimension) -> None:
        self.dimension = dimension

    def reset(self) -> None:
        pass

    def preferred_width(self, max_available_width: int) -> Dimension:
        return Dimension()

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        return self.dimension

    def write_to_screen(self, *args: Any) -> None:
        pass

    def get_children(self) -> list[Container]:
        return []


@st.composite
def dimensions(draw: st.DrawFn) -> Dimension:
    low = draw(st.integers(0, 6))
    preferred = low + draw(st.integers(0, 6))
    high = preferred + draw(st.sampled_from([0, 0, 1, 5, 1000]))
    # prompt-toolkit never ends its sharing when a child of weight 0 must grow: such a child is
    # always of one fixed height in a layout.
    weight = draw(st.integers(1, 3)) if low < high else draw(st.integers(0, 3))
    return Dimension(min=low, preferred=preferred, max=high, weight=weight)


@settings(max_examples=400, deadline=None)
@given(st.lists(dimensions(), min_size=1, max_size=12), st.integers(0, 60))
def test_the_heights_are_prompt_toolkits(children: list[Dimension], height: int) -> None:
    assume(any(d.weight > 0 for d in children))  # prompt-toolkit refuses a layout without
    split = HSplit([Measured(d) for d in children])
    # With the padding rows between children (of no height) that the split adds.
    measured = [child.preferred_height(80, height) for child in split._all_children]
    position = WritePosition(xpos=0, ypos=0, width=80, height=height)
    assert share_rows(measured, height, grow_past_preferred=True) == TOOLKIT_DIVIDE_HEIGHTS(split, position)


def test_the_usual_layout_takes_the_short_way() -> None:
    # Transcript (grows), working row, editor (up to 12 rows, 2 used), two footer rows.
    children = [
        Dimension(min=0, preferred=0),
        Dimension.exact(1),
        Dimension(min=1, preferred=2, max=2),
        Dimension(min=2, preferred=2, max=2),
    ]
    assert share_rows(children, 40, grow_past_preferred=True) == [35, 1, 2, 2]
    assert share_rows(children, 40, grow_past_preferred=False) == [0, 1, 2, 2]
    assert share_rows(children, 4, grow_past_preferred=True) == [0, 1, 1, 2]  # smallest heights
    assert share_rows(children, 3, grow_past_preferred=True) is None


def test_installed_for_every_hsplit() -> None:
    share_rows_in_one_pass()
    share_rows_in_one_pass()  # once
    split = HSplit([Window(height=1), Window(), Window(height=2)])
    # (with a padding row of no height between children)
    assert split._divide_heights(WritePosition(xpos=0, ypos=0, width=80, height=10)) == [1, 0, 7, 0, 2]
