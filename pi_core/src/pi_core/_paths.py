"""Where pi keeps its global files. Standard library only: the CLI's fast paths import it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """The agent dir: ``$PI_CODING_AGENT_DIR`` (``~`` expanded, made absolute), else ``~/.pi/agent``."""
    env = os.environ if env is None else env
    configured = env.get("PI_CODING_AGENT_DIR")
    if configured:
        return Path(os.path.abspath(os.path.expanduser(configured)))
    return Path.home() / ".pi" / "agent"
