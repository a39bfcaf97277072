"""The ``pi`` command."""

from __future__ import annotations

import sys


def main() -> None:
    # First of all: a Ctrl+C from here on must not raise inside an import (see pi_core.cli.interrupt).
    from pi_core.cli.interrupt import install

    install()
    # Start importing the provider SDK before anything else (see pi_core.cli.prefetch).
    from pi_core.cli.prefetch import prefetch_for_argv

    prefetch_for_argv(sys.argv[1:], stdin_is_tty=sys.stdin.isatty())
    from pi_core.cli.app import cli

    sys.exit(cli.main(prog_name="pi"))
