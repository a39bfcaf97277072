"""The pluggy markers. Kept in a module of their own so importing them costs nothing but pluggy."""

from __future__ import annotations

import pluggy

PROJECT_NAME = "pi"
ENTRY_POINT_GROUP = "pi"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
