"""``pi plugins``: what is loaded, from where, in which state, implementing which hooks.

Works with every third-party plugin broken: failures are listed with their error, never raised.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from pi_core.cli.options import PluginControl


def plugin_rows(control: PluginControl, *, show_all: bool, cwd: Path | None = None) -> list[dict[str, Any]]:
    from pi_core.cli import flag_cache
    from pi_core.plugins.manager import LoadOptions, load_plugins

    snapshot = flag_cache.try_snapshot(control, cwd or Path.cwd())
    pm = load_plugins(
        LoadOptions(
            cwd=cwd or Path.cwd(),
            extension_paths=control.extensions,
            no_extensions=control.no_extensions,
            trust_project=control.trust_project,
            ignore_project=control.no_approve and not control.trust_project,
        )
    )
    for problem in pm.settings_errors:  # that file's lists count as empty; say so, then go on
        click.echo(f"Warning: {problem}", err=True)
    # Loaded anyway: keep the flag cache of `pi --help` current (register_flags only; cheap).
    flag_cache.remember_loaded(snapshot, pm, flag_cache.run_option_names())
    rows: list[dict[str, Any]] = []
    for record in pm.records.values():  # insertion order = load order
        if record.builtin and not show_all:
            continue
        rows.append(
            {
                "name": record.name,
                "source": record.source,
                "distribution": record.distribution,
                "version": record.version,
                "path": record.path,
                "origin": record.origin,
                "status": record.status,
                "error": record.error.problem if record.error else None,
                "hooks": pm.hooks_of(record.name),
            }
        )
    attached = {id(record.error) for record in pm.records.values() if record.error is not None}
    for error in pm.load_errors:
        if id(error) not in attached:  # e.g. a missing -e path or a refused duplicate name
            rows.append(
                {
                    "name": error.plugin,
                    "source": error.source,
                    "distribution": None,
                    "version": None,
                    "path": error.location,
                    "origin": error.location,
                    "status": "failed",
                    "error": error.problem,
                    "hooks": [],
                }
            )
    return rows


def list_plugins(*, show_all: bool, as_json: bool, options: dict[str, Any]) -> None:
    rows = plugin_rows(PluginControl.from_options(options), show_all=show_all)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("No plugins loaded." + ("" if show_all else " (pi plugins --all also lists built-ins)"))
        return
    cells = []
    for row in rows:
        where = (
            f"{row['distribution']}=={row['version']}"
            if row["distribution"]
            else row["path"] or row["origin"]
        )
        status = row["status"] + (f": {row['error']}" if row["error"] else "")
        cells.append([row["name"], row["source"], where or "", status, ", ".join(row["hooks"])])
    click.echo(
        plain_table(("name", "source", "from", "status", "hooks"), cells, shutil.get_terminal_size().columns)
    )


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> str:
    """Columns padded to their widest cell; the last one wraps at ``width``, continued lines
    indented under it. Plain text: listing plugins need not load a rendering library."""
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header) - 1)]
    indent = sum(widths) + 2 * len(widths)
    room = max(width - indent, 20)
    out: list[str] = []
    for line in [header, ["-" * w for w in widths] + ["-" * min(room, 5)], *rows]:
        head = "".join(cell.ljust(w + 2) for cell, w in zip(line, widths, strict=False))
        tail = textwrap.wrap(line[-1], room, break_on_hyphens=False) or [""]
        out.append((head + tail[0]).rstrip())
        out.extend(" " * indent + more for more in tail[1:])
    return "\n".join(out)
