"""``pi install`` / ``pi remove``: add or drop plugin distributions in the environment pi runs in.

A Python plugin is a distribution with entry points in the group ``pi``; installing it is all it
takes for pi to load it. These commands run the installer of that environment — ``uv pip`` when
``uv`` is on the PATH, else ``python -m pip`` — and then ask the environment's interpreter which
``pi`` entry points appeared or went away, so the user sees what pi will load now.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence

import click

#: Removing this one would remove pi itself.
PROTECTED = frozenset({"pi-coding-agent-core", "pi-coding-agent-py"})

_PROBE = (
    "import importlib.metadata as m, json\n"
    "found = {(ep.dist.metadata['Name'] if ep.dist else '', ep.name, ep.value)"
    " for ep in m.entry_points(group='pi')}\n"
    "print(json.dumps(sorted(found)))"
)


def installer(python: str, action: str) -> list[str]:
    """The command that installs (``install``) or uninstalls (``uninstall``) into ``python``'s environment.

    ``uv pip`` when uv is on the PATH, else the environment's own pip. An environment made by uv
    (``uv tool install``, pipx's uv backend) has no pip: without uv on the PATH that is refused with
    what to do instead.
    """
    uv = shutil.which("uv")
    if uv is not None:
        return [uv, "pip", action, "--python", python]
    probe = subprocess.run([python, "-c", "import pip"], capture_output=True, check=False)
    if probe.returncode != 0:
        raise click.ClickException(
            f"cannot {action} here: uv is not on the PATH and {python} has no pip. Put uv on the "
            "PATH (pip install uv), or use the tool's own installer: "
            "uv tool install --with NAME pi-coding-agent-py / pipx inject pi-coding-agent-py NAME"
        )
    return [python, "-m", "pip", action, *(["-y"] if action == "uninstall" else [])]


def plugin_entry_points(python: str) -> set[tuple[str, str, str]]:
    """(distribution, entry-point name, target) of every ``pi`` entry point ``python`` sees."""
    done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise click.ClickException(f"could not ask {python} for its plugins: {done.stderr.strip()}")
    return {(item[0], item[1], item[2]) for item in json.loads(done.stdout)}


def install(specs: Sequence[str], python: str | None) -> None:
    python = python or sys.executable
    before = plugin_entry_points(python)
    _run(installer(python, "install"), specs, "install")
    added = plugin_entry_points(python) - before
    if not added:
        click.echo(
            "Nothing new for pi to load: the distribution was there already, or it declares no entry "
            "point in the group 'pi' ([project.entry-points.pi] in its pyproject.toml)."
        )
        return
    click.echo("pi will load:")
    _list(added)


def remove(names: Sequence[str], python: str | None) -> None:
    python = python or sys.executable
    refused = sorted(set(names) & PROTECTED)
    if refused:
        raise click.UsageError(f"{', '.join(refused)} is pi itself; remove the whole installation instead")
    before = plugin_entry_points(python)
    _run(installer(python, "uninstall"), names, "uninstall")
    gone = before - plugin_entry_points(python)
    if not gone:
        click.echo("No plugin went away (those distributions had no entry point in the group 'pi').")
        return
    click.echo("pi no longer loads:")
    _list(gone)


def _run(command: list[str], arguments: Sequence[str], action: str) -> None:
    code = subprocess.call([*command, *arguments])
    if code != 0:
        raise click.ClickException(f"{action} failed (exit status {code} from {command[0]})")


def _list(entries: set[tuple[str, str, str]]) -> None:
    for distribution, name, target in sorted(entries):
        click.echo(f"  {name} = {target}  ({distribution})")
