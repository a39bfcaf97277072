"""``pi trust`` / ``pi untrust``: record or forget trust in a project's plugin code."""

from __future__ import annotations

from pathlib import Path

import click


def _paths(project: str | None) -> tuple[Path, Path]:
    from pi_core._paths import agent_dir

    return Path(project or Path.cwd()).resolve(), agent_dir()


def trust(project: str | None) -> None:
    from pi_core.plugins.sources import SettingsReader
    from pi_core.plugins.trust import trust_project

    cwd, agent = _paths(project)
    read = SettingsReader()
    try:
        check = trust_project(cwd, agent, read)
    except OSError as error:
        raise click.ClickException(
            f"could not record the trust in {agent}: {error.strerror or error}"
        ) from None
    # A broken settings file counts as empty, so what gets trusted may not be what the user meant.
    for problem in read.errors:
        click.echo(f"Warning: {problem}", err=True)
    if not check.files and not check.programs:
        click.echo(f"Trusted {check.project} (it has no plugin files right now).")
        return
    click.echo(f"Trusted {check.project}; this code will run:")
    for path in check.files:
        click.echo(f"  {path}")
    if check.programs:
        click.echo(f"  .pi/settings.json: {', '.join(check.programs)} (programs pi runs)")
    click.echo("pi asks again when any of it changes.")


def untrust(project: str | None) -> None:
    from pi_core.plugins.trust import untrust_project

    cwd, agent = _paths(project)
    try:
        removed = untrust_project(cwd, agent)
    except OSError as error:
        raise click.ClickException(f"could not update {agent}: {error.strerror or error}") from None
    if removed:
        click.echo(f"{cwd} is no longer trusted; its plugin code will not run.")
    else:
        click.echo(f"{cwd} was not trusted.")
