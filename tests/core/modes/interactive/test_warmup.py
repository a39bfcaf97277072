"""The REPL's background SDK import loads what the first request needs, through the import hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import json, sys
from pi_core.modes.interactive.warmup import warm_up
thread = warm_up("anthropic-messages")
thread.join(120)
print(json.dumps({
    "client": "anthropic._client" in sys.modules,
    "provider": "pi_core.ai.providers.anthropic" in sys.modules,
    "resources": "anthropic.resources" in sys.modules,
    "again": warm_up("anthropic-messages") is None,
    "unknown": warm_up("no-such-api") is None,
}))
"""


def test_warm_up_imports_the_request_modules_only() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PI_EAGER_SDK_IMPORT"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=180, env=env, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "client": True,
        "provider": True,
        "resources": False,
        "again": True,
        "unknown": True,
    }
