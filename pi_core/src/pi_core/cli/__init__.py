"""The ``pi`` command."""

from __future__ import annotations

import sys


def main() -> None:
    from pi_core.cli.app import cli

    sys.exit(cli.main(prog_name="pi"))
