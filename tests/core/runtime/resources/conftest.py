from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Test folders have no __init__.py; make the shared helper module importable by name.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME with the agent dir under it, and PI_CODING_AGENT_DIR pointing there."""
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    return home


@pytest.fixture
def agent_dir(home: Path) -> Path:
    return home / ".pi" / "agent"
