from __future__ import annotations

import pytest
from pi_core.testing.plugins import PluginHarness


class Ctx:
    """A minimal stand-in for the runtime's ExtensionContext (the dispatcher only passes it on)."""

    has_ui = False
    cwd = "/tmp"


@pytest.fixture
def harness() -> PluginHarness:
    return PluginHarness(strict=False, ctx=Ctx())
