"""pi's built-in tools: read, bash, edit, write, grep, find, ls."""

from __future__ import annotations
