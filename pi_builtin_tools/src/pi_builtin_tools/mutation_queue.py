"""Per-file serialisation of edits and writes.

Tool calls of one assistant message run concurrently; two edits of the same file must not interleave
their read-modify-write. Calls on one file run strictly in arrival order, other files go on in parallel.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

_tails: dict[str, asyncio.Future[None]] = {}


def _queue_key(path: str) -> str:
    absolute = os.path.abspath(path)
    try:
        return os.path.realpath(absolute, strict=True)
    except OSError:
        return absolute


@asynccontextmanager
async def file_mutation_queue(path: str) -> AsyncIterator[None]:
    """Hold the per-file turn for ``path`` (keyed by its real path) for the duration of the block."""
    key = _queue_key(path)
    previous = _tails.get(key)
    mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    _tails[key] = mine
    try:
        if previous is not None:
            # Shield: a cancelled waiter must not cancel the turn of the call ahead of it.
            await asyncio.shield(previous)
        yield
    finally:
        mine.set_result(None)
        if _tails.get(key) is mine:
            del _tails[key]
