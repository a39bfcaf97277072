"""Entry point of the built-in tools plugin (entry-point group ``pi``, name ``tools``).

Thin on purpose: it only holds hookimpls, which delegate to the tool modules.
"""

from __future__ import annotations
