"""pi-ext-plan-mode: /plan — read-only exploration, a numbered plan, then execute it."""

from __future__ import annotations
