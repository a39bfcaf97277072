"""Pause the cyclic garbage collector while building many acyclic objects.

Loading a session creates hundreds of thousands of small objects (records, line strings,
message models) that contain no reference cycles; the collector's repeated full passes over
the growing heap then cost about as much as the work itself (measured: 100k-entry context
4.1 s → 2.2 s). Reference counting still frees everything as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
