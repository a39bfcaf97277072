"""The click group behind ``pi``; wiring only.

``pi ARGS`` without a subcommand runs the default command ``run`` (the agent). Plugin-control
options (``-e``, ``--no-extensions``, ``--trust-project``) are pre-parsed from argv before any plugin
is imported, so a plugin that breaks CLI construction can still be turned off; the flags plugins
declare through ``register_flags`` are then appended to ``run`` as click options before click
parses it. ``pi --version`` imports neither plugins nor pydantic, and neither does ``pi --help``
when the flag cache (``pi_core.cli.flag_cache``) is current.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pi_core import __version__
from pi_core.cli.options import plugin_control_options
from pi_core.cli.run_options import RUN_OPTIONS

DEFAULT_COMMAND = "run"
_GROUP_OPTIONS = ("-h", "--help", "-v", "--version")
_HELP = ("-h", "--help")


class PiGroup(click.Group):
    """A group whose unknown first argument (a prompt, ``-p``, …) goes to the default command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in _GROUP_OPTIONS):
            if _asks_for_help(args):  # `pi -e x.py --help`, `pi -p --help`: pi's help, as pi does
                click.echo(self.pi_help(ctx, args), color=ctx.color)
                ctx.exit()
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)

    def get_help(self, ctx: click.Context) -> str:
        return self.pi_help(ctx, [])

    def pi_help(self, ctx: click.Context, args: list[str]) -> str:
        """pi's help: usage, commands, run options, and the flags of the plugins ``args`` would load."""
        from pi_core.cli.flag_cache import help_flags, run_option_names
        from pi_core.cli.helpdoc import main_help
        from pi_core.cli.options import preparse

        run_command = self.commands[DEFAULT_COMMAND]
        plugins = help_flags(preparse(args), Path.cwd(), run_option_names())
        others = [self.commands[name] for name in self.list_commands(ctx) if name != DEFAULT_COMMAND]
        return main_help(ctx, run_command, [*others, run_command], plugins)

    def invoke(self, ctx: click.Context) -> Any:
        from pi_core.errors import PiError

        try:
            return super().invoke(ctx)
        except PiError as exc:  # pi's own errors carry a message meant for the user: no traceback
            raise click.ClickException(str(exc)) from exc

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if name == DEFAULT_COMMAND and command is not None:
            # Plugins declare flags: load them (once) and give ``run`` their options before parsing.
            from pi_core.cli.run import command_with_plugin_flags

            command = command_with_plugin_flags(ctx, command, rest)
        return name, command, rest


def _asks_for_help(args: list[str]) -> bool:
    """Whether ``-h``/``--help`` is among the arguments (before a ``--``)."""
    for arg in args:
        if arg == "--":
            return False
        if arg in _HELP:
            return True
    return False


@click.group(cls=PiGroup, context_settings={"help_option_names": ["-h", "--help"]})
# The bare version number, as pi prints it: clients parse it (``pi --version`` → ``1.6.0``).
@click.version_option(__version__, "-v", "--version", prog_name="pi", message="%(version)s")
def cli() -> None:
    """pi: a terminal coding agent you extend with Python plugins (help text: ``helpdoc.main_help``)."""


@cli.command(DEFAULT_COMMAND, context_settings={"ignore_unknown_options": False})
@plugin_control_options
@click.argument("messages", nargs=-1)
@click.pass_context
def run(ctx: click.Context, messages: tuple[str, ...], **options: Any) -> None:
    """Start the agent (the default command; `pi ARGS` is `pi run ARGS`)."""
    from pi_core.cli.run import run_agent

    run_agent(ctx, messages, options)


# pi's own run flags (``pi --help``), declared in ``pi_core.cli.run_options``.
run.params.extend(RUN_OPTIONS)


@cli.command("plugins")
@plugin_control_options
@click.option("--all", "show_all", is_flag=True, help="Also list pi's own built-in plugins.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
def plugins_command(show_all: bool, as_json: bool, **options: Any) -> None:
    """List plugins: name, source, version or path, status and the hooks they implement."""
    from pi_core.cli.plugins_cmd import list_plugins

    list_plugins(show_all=show_all, as_json=as_json, options=options)


@cli.command("trust")
@click.option("--project", type=click.Path(file_okay=False), help="Project directory (default: current).")
def trust_command(project: str | None) -> None:
    """Trust this project's plugin code (.pi/extensions and plugins its settings ask for)."""
    from pi_core.cli.trust_cmd import trust

    trust(project)


@cli.command("untrust")
@click.option("--project", type=click.Path(file_okay=False), help="Project directory (default: current).")
def untrust_command(project: str | None) -> None:
    """Forget the trust given to this project; its plugin code stops running."""
    from pi_core.cli.trust_cmd import untrust

    untrust(project)


@cli.command("new-plugin")
@click.argument("name")
@click.option(
    "--dir", "directory", type=click.Path(file_okay=False), help="Where to write it (default: here)."
)
def new_plugin_command(name: str, directory: str | None) -> None:
    """Write a pi-ext-NAME plugin distribution: entry point, a hook, a tool and passing tests."""
    from pi_core.cli.new_plugin import new_plugin

    new_plugin(name, directory)


_PYTHON_OPTION = click.option(
    "--python",
    type=click.Path(dir_okay=False),
    help="Interpreter of the environment to change (default: the one pi runs in).",
)


@cli.command("install")
@click.argument("specs", nargs=-1, required=True)
@_PYTHON_OPTION
def install_command(specs: tuple[str, ...], python: str | None) -> None:
    """Install plugin distributions (PyPI names, paths, URLs) where pi runs, and list what loads."""
    from pi_core.cli.install_cmd import install

    install(specs, python)


@cli.command(
    "mcp",
    context_settings={
        "ignore_unknown_options": True,
        "allow_interspersed_args": False,
        "help_option_names": [],
    },
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def mcp_command(args: tuple[str, ...]) -> None:
    """Manage MCP servers in mcp.json: add, remove, list, login, logout (needs the mcp plugin)."""
    import importlib
    import sys

    try:
        module = importlib.import_module("pi_mcp.cli")
    except ImportError as exc:
        raise click.ClickException(
            "pi mcp needs the mcp plugin, which is not installed: pi install pi-coding-agent-mcp"
        ) from exc
    sys.exit(module.main(list(args)))


@cli.command("remove")
@click.argument("names", nargs=-1, required=True)
@_PYTHON_OPTION
def remove_command(names: tuple[str, ...], python: str | None) -> None:
    """Uninstall plugin distributions from where pi runs, and list what no longer loads."""
    from pi_core.cli.install_cmd import remove

    remove(names, python)
