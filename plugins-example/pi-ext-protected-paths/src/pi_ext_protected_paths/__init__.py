"""pi-ext-protected-paths: refuse writes and edits to protected paths (.env, .git/, node_modules/, …)."""

from __future__ import annotations
