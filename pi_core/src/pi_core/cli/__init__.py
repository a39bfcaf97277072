"""The ``pi`` command."""

from __future__ import annotations

import os
import sys

#: Set for every process pi starts (tools, ``!`` commands, MCP servers, hooks' subprocesses), as
#: pi 1.6.0 sets them: programs that behave differently under a coding agent look for these.
AGENT_ENVIRONMENT = {"PI_CODING_AGENT": "true", "AI_AGENT": "pi"}


def main() -> None:
    # First of all: a Ctrl+C from here on must not raise inside an import (see pi_core.cli.interrupt).
    from pi_core.cli.interrupt import install

    install()
    os.environ.update(AGENT_ENVIRONMENT)
    # Start importing the provider SDK before anything else (see pi_core.cli.prefetch).
    from pi_core.cli.prefetch import prefetch_for_argv

    prefetch_for_argv(sys.argv[1:], stdin_is_tty=sys.stdin.isatty())
    from pi_core.cli.app import cli

    sys.exit(cli.main(prog_name="pi"))
