"""The environment a benchmarked ``pi`` runs in: a throwaway HOME and agent folder, no network
checks, and none of the caller's keys or plugin switches leaking in."""

from __future__ import annotations

import os
from pathlib import Path

#: Variables of the caller's environment that would change what the measured run does.
LEAKING = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "PI_DISABLED_PLUGINS", "PI_MCP_DIRECT_WAIT")


def isolated_env(home: Path, agent: Path) -> dict[str, str]:
    env = dict(
        os.environ,
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(agent),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        PI_TELEMETRY="0",
    )
    for key in LEAKING:
        env.pop(key, None)
    return env
