"""Plugin-control options shared by ``run`` and ``plugins``, and their pre-parser."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def plugin_control_options(function: F) -> F:
    """``-e/--extension`` (repeatable), ``--no-extensions``, ``--trust-project`` (pi 1.6.0's
    ``--approve``/``-a``), ``--no-approve``/``-na``, ``--trace-hooks``."""
    decorators = [
        click.option(
            "-e",
            "--extension",
            "extensions",
            multiple=True,
            metavar="PATH",
            help="Load a plugin file or package directory (repeatable; kept by --no-extensions).",
        ),
        click.option(
            "--no-extensions",
            is_flag=True,
            help="Skip discovered, settings-listed and third-party plugins (built-ins and -e stay).",
        ),
        click.option(
            "--trust-project",
            "--approve",
            "-a",
            "trust_project",
            is_flag=True,
            help="Run this project's plugin code this time without asking (trust is not recorded).",
        ),
        click.option(
            "--no-approve",
            "-na",
            "no_approve",
            is_flag=True,
            help="Skip this project's plugin code this time without asking, and go on without it.",
        ),
        click.option(
            "--trace-hooks",
            is_flag=True,
            envvar="PI_TRACE_HOOKS",
            help="Print one line per hook call with plugin and duration (also PI_TRACE_HOOKS=1).",
        ),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


@dataclass(frozen=True)
class PluginControl:
    extensions: tuple[str, ...] = ()
    no_extensions: bool = False
    trust_project: bool = False
    trace_hooks: bool = False
    #: ``--no-approve``: leave the project's plugin code out of this run, without asking.
    no_approve: bool = False
    #: ``--session``'s value: a session file of another project runs in that project, with its
    #: plugins (see ``pi_core.cli.run.plugin_project``).
    session: str | None = None

    def anchored(self) -> PluginControl:
        """This control with its ``-e`` paths made absolute against the current directory, so they
        name the same files when the run works in another project's folder (``--session``)."""
        cwd = os.getcwd()
        paths = tuple(os.path.join(cwd, os.path.expanduser(path)) for path in self.extensions)
        return dataclasses.replace(self, extensions=paths)

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> PluginControl:
        return cls(
            extensions=tuple(options.get("extensions") or ()),
            no_extensions=bool(options.get("no_extensions")),
            trust_project=bool(options.get("trust_project")),
            trace_hooks=bool(options.get("trace_hooks")) or _env_flag("PI_TRACE_HOOKS"),
            no_approve=bool(options.get("no_approve")),
            session=options.get("session") or None,
        )


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0", "false", "no")


def preparse(args: Sequence[str]) -> PluginControl:
    """Read the plugin-control options from raw argv, before any plugin (and its flags) exists."""
    extensions: list[str] = []
    no_extensions = trust_project = trace = no_approve = False
    session: str | None = None
    iterator = iter(args)
    for arg in iterator:
        if arg == "--":
            break
        if arg in ("-e", "--extension"):
            value = next(iterator, None)
            if value is not None:
                extensions.append(value)
        elif arg.startswith("--extension="):
            extensions.append(arg.split("=", 1)[1])
        elif arg.startswith("-e") and len(arg) > 2 and not arg.startswith("--"):
            extensions.append(arg[2:])
        elif arg == "--no-extensions":
            no_extensions = True
        elif arg in ("--trust-project", "--approve", "-a"):
            trust_project = True
        elif arg in ("--no-approve", "-na"):
            no_approve = True
        elif arg == "--trace-hooks":
            trace = True
        elif arg == "--session":
            session = next(iterator, None)
        elif arg.startswith("--session="):
            session = arg.split("=", 1)[1]
    return PluginControl(
        tuple(extensions),
        no_extensions,
        trust_project,
        trace or _env_flag("PI_TRACE_HOOKS"),
        no_approve,
        session or None,
    )


def trust_mode(args: Sequence[str]) -> str:
    """The mode a ``project_trust`` handler is told (``ctx.mode``), read from raw argv before the
    plugins and their flags exist: ``rpc`` or ``json`` from ``--mode``, ``print`` for ``-p``,
    ``--help``, ``--version``, ``--list-models`` and ``--export`` (nothing to ask in), else ``tui``
    (the REPL when the terminal is one)."""
    mode = "tui"
    iterator = iter(args)
    for arg in iterator:
        if arg == "--":
            break
        value = (
            next(iterator, "")
            if arg == "--mode"
            else arg.split("=", 1)[1]
            if arg.startswith("--mode=")
            else None
        )
        if value in ("rpc", "json"):
            return value
        if arg in (
            "-p",
            "--print",
            "-h",
            "--help",
            "--version",
            "-v",
            "--export",
            "--list-models",
        ) or arg.startswith(("--export=", "--list-models=")):
            mode = "print"
    return mode
