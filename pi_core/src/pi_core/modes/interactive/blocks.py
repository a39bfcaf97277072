"""Cut streamed text into finished markdown blocks, so each can be rendered once it is complete.

A block ends at a blank line outside a fenced code block; the rest stays pending until more text
arrives or the message ends.
"""

from __future__ import annotations


class BlockBuffer:
    """Collects deltas; :meth:`take_complete` returns the text of every finished block so far."""

    def __init__(self) -> None:
        self._pending = ""

    @property
    def pending(self) -> str:
        return self._pending

    def feed(self, delta: str) -> None:
        self._pending += delta

    def take_complete(self) -> str | None:
        """The finished blocks (ending at the last blank line outside a code fence), or ``None``."""
        cut = _last_block_end(self._pending)
        if cut <= 0:
            return None
        done, self._pending = self._pending[:cut], self._pending[cut:]
        return done.strip("\n") or None

    def take_rest(self) -> str | None:
        rest, self._pending = self._pending, ""
        return rest.strip("\n") or None


def _last_block_end(text: str) -> int:
    """Index just past the last ``\\n\\n`` that lies outside a ``` fence (0 when there is none)."""
    best = 0
    in_fence = False
    position = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            in_fence = not in_fence
        position += len(line)
        # A blank line closes the block before it (when there is one).
        if not in_fence and stripped == "" and line.endswith("\n") and text[:position].strip():
            best = position
    return best
