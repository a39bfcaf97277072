from __future__ import annotations

import pytest
from pi_core.ai.builtin_providers import register_builtin_api_providers


@pytest.fixture(autouse=True)
def _builtin_providers() -> None:
    register_builtin_api_providers()
