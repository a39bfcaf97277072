from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# importlib import mode: make the local helper module importable from the tests here.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own agent dir; nothing touches ~/.pi."""
    directory = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(directory))
    yield directory
