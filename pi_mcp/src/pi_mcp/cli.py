"""``pi mcp add|remove|list``: change ``mcp.json`` from a shell and check its servers.

``add`` and ``remove`` edit ``<agent dir>/mcp.json``, or the project's ``.pi/mcp.json`` with
``-l``/``--local``, keeping everything else in the file. ``list`` connects every enabled server and
prints its state, tools and error; it exits with 1 when an entry is invalid or a server did not
connect. No plugins are loaded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pi_core._files import replace_file
from pi_core._paths import agent_dir

from pi_mcp.config import EXPOSURES, McpConfigError, load_config, read_json, validate


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pi mcp", description="Manage the MCP servers of mcp.json")
    sub = parser.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", help="add or replace a server: NAME -- COMMAND [ARGS...] or NAME --url URL")
    add.add_argument("name")
    add.add_argument("-l", "--local", action="store_true", help="write the project's .pi/mcp.json")
    add.add_argument("--url", help="a streamable HTTP server")
    add.add_argument("--header", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("--bearer-token-env-var", metavar="NAME")
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("--cwd")
    add.add_argument("--exposure", choices=EXPOSURES)
    add.add_argument("--description")
    add.add_argument("command", nargs="*", help="after --: the program and its arguments")
    add.epilog = "Everything after -- is the program and its arguments, passed as they are."
    remove = sub.add_parser("remove", help="remove a server")
    remove.add_argument("name")
    remove.add_argument("-l", "--local", action="store_true")
    listing = sub.add_parser("list", help="connect to every enabled server and show state, tools, errors")
    listing.add_argument("-l", "--local", action="store_true", help="only the project's servers")
    listing.add_argument("--json", action="store_true")
    return parser


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"pi mcp: {what} {item!r} must look like KEY=VALUE")
        out[key] = value
    return out


def _file(local: bool) -> Path:
    return Path.cwd() / ".pi" / "mcp.json" if local else agent_dir() / "mcp.json"


def _load(path: Path) -> dict[str, Any]:
    try:
        data = read_json(path)
    except McpConfigError as exc:
        raise SystemExit(f"pi mcp: {exc}") from exc
    data = {} if data is None else data
    if not isinstance(data.setdefault("mcpServers", {}), dict):
        raise SystemExit(f"pi mcp: {path}: mcpServers must be an object")
    return data


def _save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _add(args: argparse.Namespace) -> int:
    entry: dict[str, Any] = {}
    if args.url:
        if args.command:
            raise SystemExit("pi mcp: give either --url or a command after --, not both")
        entry["url"] = args.url
        if args.header:
            entry["headers"] = _pairs(args.header, "--header")
        if args.bearer_token_env_var:
            entry.setdefault("headers", {})["Authorization"] = f"Bearer ${{{args.bearer_token_env_var}}}"
    elif args.command:
        entry["command"], *rest = args.command
        if rest:
            entry["args"] = rest
        if args.env:
            entry["env"] = _pairs(args.env, "--env")
        if args.cwd:
            entry["cwd"] = args.cwd
    else:
        raise SystemExit("pi mcp: add needs a command after -- (stdio) or --url (streamable HTTP)")
    if args.exposure:
        entry["exposure"] = args.exposure
    if args.description:
        entry["description"] = args.description
    checked = validate(args.name, entry, "user")
    if isinstance(checked, str):
        raise SystemExit(f"pi mcp: {checked}")
    path = _file(args.local)
    data = _load(path)
    replaced = args.name in data["mcpServers"]
    data["mcpServers"][args.name] = entry
    _save(path, data)
    print(f"{'Replaced' if replaced else 'Added'} MCP server {args.name} in {path}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    path = _file(args.local)
    data = _load(path)
    if args.name not in data["mcpServers"]:
        print(f"pi mcp: no server {args.name!r} in {path}", file=sys.stderr)
        return 1
    del data["mcpServers"][args.name]
    _save(path, data)
    print(f"Removed MCP server {args.name} from {path}")
    return 0


async def _connect_all(local: bool) -> tuple[list[dict[str, Any]], list[str]]:
    from pi_mcp.client import McpServer, open_log
    from pi_mcp.manager import project_allowed, tool_name

    agent, cwd = agent_dir(), Path.cwd()
    loaded = load_config(agent, cwd, project_allowed=project_allowed(cwd, agent))
    servers = [s for s in loaded.servers.values() if not local or s.source == "project"]
    log = open_log(agent)
    clients = [McpServer(config, cwd=cwd, log=log, on_tools=lambda _s: None) for config in servers]
    try:
        for client in clients:
            client.start()
        await asyncio.gather(*(c.wait_settled(c.connect_timeout + 1) for c in clients))
        rows = []
        for client in clients:
            rows.append(
                {
                    "name": client.name,
                    "source": client.config.source,
                    "enabled": client.config.enabled,
                    "state": client.state,
                    "exposure": client.config.exposure,
                    "tools": [
                        {
                            "name": tool_name(client.name, t.name),
                            "exposure": client.config.exposure_of(t.name),
                        }
                        for t in client.tools
                    ],
                    "error": client.last_error,
                }
            )
        return rows, loaded.errors
    finally:
        for client in clients:
            await client.stop()
        log.close()


def _list(args: argparse.Namespace) -> int:
    rows, errors = asyncio.run(_connect_all(args.local))
    if args.json:
        print(json.dumps({"servers": rows, "errors": errors}, indent=2))
    else:
        if not rows and not errors:
            print("No MCP servers configured")
        for row in rows:
            print(f"{row['name']}  {row['state']}  {row['exposure']}  ({row['source']})")
            if row["error"]:
                print(f"  error: {row['error']}")
            for tool in row["tools"]:
                mark = f"  [{tool['exposure']}]" if tool["exposure"] != row["exposure"] else ""
                print(f"  {tool['name']}{mark}")
        for error in errors:
            print(f"invalid: {error}")
    bad = errors or any(r["enabled"] and r["state"] != "connected" for r in rows)
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1 :]
    args = _parser().parse_args(argv)
    if command:
        if args.action != "add":
            raise SystemExit("pi mcp: only add takes a command after --")
        args.command = [*args.command, *command]
    if args.action == "add":
        return _add(args)
    if args.action == "remove":
        return _remove(args)
    return _list(args)
