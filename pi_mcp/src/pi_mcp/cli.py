"""``pi mcp add|remove|list|login|logout``: change ``mcp.json`` from a shell and check its servers.

``add`` and ``remove`` edit ``<agent dir>/mcp.json``, or the project's ``.pi/mcp.json`` with
``-l``/``--local``, keeping everything else in the file. ``list`` connects every enabled server and
prints its state, tools and error; it exits with 1 when an entry is invalid or a server did not
connect. ``login`` signs in to an OAuth server through the browser, ``logout`` forgets its tokens
(``<agent dir>/mcp-auth.json``). No plugins are loaded.
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

from pi_mcp.config import EXPOSURES, McpConfigError, ServerConfig, load_config, read_json, validate
from pi_mcp.oauth import credential_store


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
    add.add_argument("--oauth-client-id", metavar="ID", help="a client registered with the OAuth server")
    add.add_argument(
        "--oauth-client-secret", metavar="SECRET", help="its secret (may be ${NAME} or !command)"
    )
    add.add_argument("--oauth-callback-port", type=int, metavar="PORT", help="fixed port of the callback")
    add.add_argument("--oauth-client-name", metavar="NAME", help="client name sent when registering")
    add.add_argument("--oauth-client-registration", choices=("auto", "dcr", "cimd"), metavar="MODE")
    add.add_argument("command", nargs="*", help="after --: the program and its arguments")
    add.epilog = "Everything after -- is the program and its arguments, passed as they are."
    remove = sub.add_parser("remove", help="remove a server")
    remove.add_argument("name")
    remove.add_argument("-l", "--local", action="store_true")
    listing = sub.add_parser("list", help="connect to every enabled server and show state, tools, errors")
    listing.add_argument("-l", "--local", action="store_true", help="only the project's servers")
    listing.add_argument("--json", action="store_true")
    login = sub.add_parser("login", help="sign in to an OAuth server through the browser")
    login.add_argument("name")
    login.add_argument("-l", "--local", action="store_true", help="the server is the project's")
    login.add_argument("--timeout", type=float, default=300.0, help="seconds for the whole sign-in")
    logout = sub.add_parser("logout", help="delete the stored OAuth credentials of a server")
    logout.add_argument("name")
    logout.add_argument("-l", "--local", action="store_true", help="the server is the project's")
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
    oauth = {
        key: value
        for key, value in (
            ("clientId", args.oauth_client_id),
            ("clientSecret", args.oauth_client_secret),
            ("callbackPort", args.oauth_callback_port),
            ("clientName", args.oauth_client_name),
            ("clientRegistration", args.oauth_client_registration),
        )
        if value is not None
    }
    if oauth:
        if not args.url:
            raise SystemExit("pi mcp: --oauth-* options are for servers added with --url")
        entry["oauth"] = oauth
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
    store = credential_store(agent)
    clients = [
        McpServer(config, cwd=cwd, log=log, on_tools=lambda _s: None, credentials=store) for config in servers
    ]
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
            state = "needs sign-in" if row["state"] == "needs-auth" else row["state"]
            print(f"{row['name']}  {state}  {row['exposure']}  ({row['source']})")
            if row["state"] == "needs-auth":
                print(f"  sign in with: pi mcp login {row['name']}")
            elif row["error"]:
                error = str(row["error"]).replace("\n", "\n    ")  # with the end of its stderr
                print(f"  error: {error}")
            for tool in row["tools"]:
                mark = f"  [{tool['exposure']}]" if tool["exposure"] != row["exposure"] else ""
                print(f"  {tool['name']}{mark}")
        for error in errors:
            print(f"invalid: {error}")
    bad = errors or any(r["enabled"] and r["state"] != "connected" for r in rows)
    return 1 if bad else 0


def _entry(name: str, local: bool) -> ServerConfig:
    """The configured server ``name`` (the project's ones in a trusted project), or exit saying why."""
    from difflib import get_close_matches

    from pi_mcp.manager import project_allowed

    agent, cwd = agent_dir(), Path.cwd()
    loaded = load_config(agent, cwd, project_allowed=project_allowed(cwd, agent))
    config = loaded.servers.get(name)
    if config is None:
        names = sorted(loaded.servers)
        close = get_close_matches(name, names, n=1)
        hint = f' Did you mean "{close[0]}"?' if close else ""
        known = ", ".join(names) or "none"
        raise SystemExit(f'pi mcp: no MCP server named "{name}".{hint} Configured: {known}.')
    if local and config.source != "project":
        raise SystemExit(f'pi mcp: MCP server "{name}" comes from the {config.source} mcp.json; omit -l')
    return config


async def _login(config: ServerConfig, limit: float) -> int:
    from pi_mcp.client import McpServer, open_log
    from pi_mcp.oauth import SignInError

    agent = agent_dir()
    log = open_log(agent)
    server = McpServer(
        config, cwd=Path.cwd(), log=log, on_tools=lambda _s: None, credentials=credential_store(agent)
    )
    if server.oauth_url is None:
        log.close()
        print(
            f'pi mcp: MCP server "{config.name}" cannot sign in: OAuth is for HTTP servers whose entry '
            "sets no Authorization header",
            file=sys.stderr,
        )
        return 1
    try:
        server.start()
        await server.wait_settled(server.connect_timeout + 1)
        if server.state == "connected":
            print(f'Already signed in to MCP server "{config.name}" ({len(server.tools)} tools).')
            return 0
        if server.state != "needs-auth":
            print(f'pi mcp: MCP server "{config.name}" did not connect: {server.last_error}', file=sys.stderr)
            return 1

        def show(url: str) -> None:
            print(f'Open this page to sign in to MCP server "{config.name}":\n{url}', flush=True)

        try:
            await server.sign_in(
                show_url=show, paste=_paste_from_terminal if sys.stdin.isatty() else None, limit=limit
            )
        except SignInError as error:
            print(f'pi mcp: sign-in to MCP server "{config.name}" failed: {error}', file=sys.stderr)
            return 1
        print(f'Signed in to MCP server "{config.name}" ({len(server.tools)} tools).')
        return 0
    finally:
        await server.stop()
        log.close()


async def _paste_from_terminal(listener: Any) -> None:
    """Take a redirect URL typed on the terminal (for a browser on another machine)."""
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    print(
        "Waiting for the browser. If it runs on another machine, paste the address it was sent to:",
        file=sys.stderr,
        flush=True,
    )

    def readable(ready: asyncio.Future[None]) -> None:
        if not ready.done():
            ready.set_result(None)

    while True:
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, readable, ready)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        line = sys.stdin.readline()
        if not line:
            return
        if line.strip():
            problem = listener.deliver(line)
            if problem is None:
                return
            print(f"pi mcp: {problem}; paste the full address", file=sys.stderr, flush=True)


async def _logout(config: ServerConfig) -> int:
    from pi_mcp.client import McpServer, open_log
    from pi_mcp.oauth import SignInError

    agent = agent_dir()
    log = open_log(agent)
    server = McpServer(
        config, cwd=Path.cwd(), log=log, on_tools=lambda _s: None, credentials=credential_store(agent)
    )
    try:
        removed = await server.sign_out()
    except SignInError as error:
        print(f"pi mcp: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"pi mcp: {error}", file=sys.stderr)
        return 1
    finally:
        log.close()
    print(
        f'Signed out of MCP server "{config.name}".'
        if removed
        else f'MCP server "{config.name}" had no stored credentials.'
    )
    return 0


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
    if args.action == "login":
        if args.timeout <= 0:
            raise SystemExit("pi mcp: --timeout must be a positive number of seconds")
        return asyncio.run(_login(_entry(args.name, args.local), args.timeout))
    if args.action == "logout":
        return asyncio.run(_logout(_entry(args.name, args.local)))
    return _list(args)
