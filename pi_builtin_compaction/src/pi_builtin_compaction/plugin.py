"""Entry point of the default compaction plugin (entry-point group ``pi``, name ``compaction``).

Thin on purpose: it only holds hookimpls, which delegate to the strategy modules.
"""

from __future__ import annotations
