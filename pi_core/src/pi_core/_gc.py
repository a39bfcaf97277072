"""Keep the cyclic garbage collector away from the many acyclic objects a session load creates.

Loading a session creates hundreds of thousands of small objects (records, line strings,
message models) that contain no reference cycles. Left to the collector they cost twice:
while loading, its repeated passes over the growing heap take about as long as the work itself
(measured: 100k-entry context 4.1 s → 2.2 s with the collector paused), and afterwards each of
them is traversed again by the next young, middle and full collection — about 0.8 s, 1.4 s and
1.5 s of pause on a loaded 2-core machine after a 100k-message context, right when the user
starts typing. So the collector is paused while loading, and when a load created many objects
they are moved to the collector's permanent generation (:func:`gc.freeze`) instead of being
handed to it: it never scans them again, and reference counting still frees them (and
removes them from that generation) when the session is dropped.

``gc.freeze`` applies to every object alive at that moment, not only the session's: any
unreachable reference cycles still waiting for a collection then stay in memory until
:func:`gc.unfreeze`. A fresh agent process holds few of those, and only loads above
:data:`FREEZE_ABOVE` new objects freeze; smaller loads just re-enable the collector.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Net new tracked objects (``gc.get_count()[0]``) above which a load freezes what it created.
#: A 10k-message context creates ~60k; below that the collections after it cost little.
FREEZE_ABOVE = 50_000


@contextmanager
def gc_paused(*, freeze: bool = True, references: int = 0) -> Iterator[None]:
    """The collector paused for the block; with ``freeze`` (session loads), a block that created
    many objects moves them to the permanent generation. Without it (a provider's request body,
    built from a long history and dropped once sent, see ``providers._base``) the collector is
    only switched back on: freezing at every request of a long session would also keep every
    garbage cycle waiting at those moments.

    ``references``: how many objects the block's new containers point to. A context of a long
    session is few new objects but lists of 100k messages, and every collection that finds such
    a list young visits each item (one cache miss each: ~30 ms per pass for a 100k context); past
    :data:`FREEZE_ABOVE` they are frozen too."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if freeze and (gc.get_count()[0] > FREEZE_ABOVE or references > FREEZE_ABOVE):
                gc.freeze()
            gc.enable()
