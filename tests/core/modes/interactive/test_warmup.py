"""The REPL's background SDK import loads what the first request needs (through the import hook),
the HTTP transport and its TLS context included."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import json, sys
from pi_core.ai import sdk_import
from pi_core.modes.interactive.warmup import warm_up
thread = warm_up("anthropic-messages")
thread.join(120)
print(json.dumps({
    "client": "anthropic._client" in sys.modules,
    "provider": "pi_core.ai.providers.anthropic" in sys.modules,
    "resources": "anthropic.resources" in sys.modules,
    "transport": "anyio._backends._asyncio" in sys.modules and "h11" in sys.modules,
    "tls": any(key[0] == "anthropic" and made for key, made in sdk_import._tls_contexts.items()),
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
        "transport": True,
        "tls": True,
        "again": True,
        "unknown": True,
    }


PREPARE = """
import asyncio, json, sys
from pydantic import BaseModel
from pi_core._model import PiModel
from pi_core.agent.tools import _SCHEMAS, AgentTool
from pi_core.modes.interactive.warmup import prepare_first_prompt, warm_up

class Note(PiModel):
    text: str

class Args(BaseModel):
    path: str

tool = AgentTool(name="t", label="t", description="t", parameters=Args, execute=None)
laid_out = []
before = Note.__pydantic_complete__
warm_up("openai-completions")
asyncio.run(prepare_first_prompt("openai-completions", [tool], lambda: laid_out.append(True)))
from openai.types.chat.chat_completion_chunk import ChatCompletionChunk, ChoiceDelta
print(json.dumps({
    "deferred": not before,
    "built": Note.__pydantic_complete__,
    "sdk": ChatCompletionChunk.__pydantic_complete__ and ChoiceDelta.__pydantic_complete__,
    "schema": Args in _SCHEMAS,
    "markdown": laid_out == [True],
}))
"""


def test_prepare_first_prompt_builds_what_the_first_prompt_would() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PI_EAGER_SDK_IMPORT"}
    done = subprocess.run(
        [sys.executable, "-c", PREPARE], capture_output=True, text=True, timeout=180, env=env, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "deferred": True,
        "built": True,
        "sdk": True,
        "schema": True,
        "markdown": True,
    }
