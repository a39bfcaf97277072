"""Example compaction strategy: keep the newest tokens, summarize nothing."""

from __future__ import annotations
