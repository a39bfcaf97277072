"""The click group behind ``pi``; wiring only."""

from __future__ import annotations

import click

from pi_core import __version__


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-v", "--version", prog_name="pi")
def cli() -> None:
    """pi: a terminal coding agent you extend with Python plugins."""
