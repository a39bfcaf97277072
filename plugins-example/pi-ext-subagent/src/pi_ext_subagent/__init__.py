"""pi-ext-subagent: a tool that hands a task to a child pi session and returns its answer."""

from __future__ import annotations
