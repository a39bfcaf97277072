"""A plugin's error reads as pi 1.6.0 reports an extension's: the exception's message without its
type, in print and JSON mode (stderr) and in RPC mode (the ``extension_error`` event)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_core.testing import text_turn

if TYPE_CHECKING:
    from conftest import PiEnv

FAILING = """\
from pi_core import hookimpl


@hookimpl
def agent_start(event, ctx):
    raise TypeError("boom here")


@hookimpl
def agent_end(event, ctx):
    raise ValueError()
"""


def _plugin(pi_env: PiEnv) -> Path:
    path = pi_env.root / "failing.py"
    path.write_text(FAILING, encoding="utf-8")
    return path


def test_print_and_json_modes_write_the_message_alone(pi_env: PiEnv) -> None:
    plugin = _plugin(pi_env)
    pi_env.server.add(text_turn("ok"), text_turn("ok"))
    for mode in (["-p"], ["--mode", "json"]):
        done = pi_env.run("-e", str(plugin), "--no-session", *mode, "hi")
        assert done.returncode == 0, done.stderr
        lines = [line for line in done.stderr.splitlines() if line.startswith("Extension error")]
        # an exception without a message is named by its type, so the line never ends empty
        assert lines == [
            "Extension error (failing, agent_start): boom here",
            "Extension error (failing, agent_end): ValueError",
        ], done.stderr


def test_rpc_mode_sends_the_message_alone(pi_env: PiEnv) -> None:
    plugin = _plugin(pi_env)
    pi_env.server.add(text_turn("ok"))
    rpc = pi_env.rpc("-e", str(plugin), "--no-session")
    try:
        assert rpc.call({"type": "prompt", "message": "hi"})["success"] is True
        started = rpc.wait_for(lambda r: r.get("type") == "extension_error", timeout=15)
        ended = rpc.wait_for(lambda r: r.get("type") == "extension_error", timeout=15)
    finally:
        rpc.close()
    # an exception without a message is named by its type
    assert [(r["event"], r["error"]) for r in (started, ended)] == [
        ("agent_start", "boom here"),
        ("agent_end", "ValueError"),
    ]
