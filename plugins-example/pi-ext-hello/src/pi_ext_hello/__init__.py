"""pi-ext-hello: the smallest useful pi plugin distribution (see ``plugin.py``)."""

from __future__ import annotations
