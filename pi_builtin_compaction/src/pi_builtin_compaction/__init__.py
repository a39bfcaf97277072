"""pi's default compaction strategy and branch summarization."""

from __future__ import annotations
