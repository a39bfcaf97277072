"""Running the agent from ``pi [options] [@files...] [messages...]``: flags → runtime → mode.

Called by the ``run`` command after the plugin gate. Mirrors pi's main: flag checks, ``--export``,
``--list-models``, session choice, piped stdin and ``@file`` arguments, the runtime host, then the
print, JSON or RPC mode. Exit statuses: 0 success, 1 for start-up or prompt errors (pi's), 2 for
usage errors (click), 143/129 for SIGTERM/SIGHUP.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from pi_core._paths import agent_dir
from pi_core.cli.interrupt import EXIT_CODE, graceful
from pi_core.cli.run_options import AppMode, RunOptions, check_run_options, run_options_from_params

if TYPE_CHECKING:
    from pi_core.cli.run import PluginSetup
    from pi_core.runtime.host import MissingCwdChoice
    from pi_core.runtime.options import PluginParts, PluginReloader, RuntimeOptions, TrustConfirm
    from pi_core.session.listing import SessionInfo


def start_agent(setup: PluginSetup, messages: tuple[str, ...], params: dict[str, Any]) -> int:
    """Everything after the plugin gate; returns the process exit status."""
    options = run_options_from_params({**params, "args": messages})
    if options.offline or os.environ.get("PI_OFFLINE", "").lower() in ("1", "true", "yes"):
        os.environ["PI_OFFLINE"] = "1"
        os.environ["PI_SKIP_VERSION_CHECK"] = "1"
    stdin_tty = sys.stdin.isatty()
    app_mode = options.app_mode(stdin_tty)
    options, diagnostics = check_run_options(options, app_mode)
    for diagnostic in diagnostics:
        click.echo(diagnostic.render(), err=True)
    if any(d.kind == "error" for d in diagnostics):
        return 1
    if options.export:
        return _export(options)
    # Modes other than the REPL own stdout; anything else that prints goes to stderr.
    out = sys.stdout
    if app_mode != "interactive":
        sys.stdout = sys.stderr
    try:
        code = asyncio.run(_run(setup, options, app_mode, stdin_tty, out))
    except KeyboardInterrupt:
        code = 130
    if app_mode != "interactive" and _is_pi_process():
        _exit_now(code, out)
    return code


def _is_pi_process() -> bool:
    """Whether this process is the ``pi`` command itself (not a test runner calling the CLI)."""
    main = sys.modules.get("__main__")
    name = Path(getattr(main, "__file__", "") or "").name
    return name in ("pi", "pi.exe", "__main__.py") and os.environ.get("PI_SLOW_EXIT") != "1"


def _exit_now(code: int, out: IO[str]) -> None:
    """Leave without tearing the interpreter down.

    Everything is written by now (session files use unbuffered appends, settings are written
    synchronously); unloading a thousand modules and their pydantic schemas only costs time — about
    half a second of every print-mode run.
    """
    for stream in (out, sys.stderr, sys.__stdout__):
        if stream is not None:
            stream.flush()
    os._exit(code)


def _export(options: RunOptions) -> int:
    from pi_core.runtime.export_html import export_file_to_html

    assert options.export is not None
    output = options.messages[0] if options.messages else None
    try:
        path = export_file_to_html(options.export, output)
    except (OSError, ValueError) as error:
        click.echo(f"Error: {error}", err=True)
        return 1
    click.echo(f"Exported to: {path}")
    return 0


def plugin_parts(setup: PluginSetup, *, reloadable: bool = True) -> PluginParts:
    """The runtime's view of the loaded plugins: hooks, tools, commands, providers, strategies.

    With ``reloadable`` the parts know how to load the plugins again (``/reload``, new sessions).
    """
    from pi_core.plugins.manager import BUILTIN_DISTRIBUTIONS
    from pi_core.plugins.renderers import EntryRenderer
    from pi_core.runtime.host import PluginParts

    registrations = setup.registrations
    builtin: set[str] = set()
    tools = {}
    for name, registered in registrations.tools.items():
        tools[name] = registered.item
        record = setup.pm.records.get(registered.plugin)
        if record is not None and (record.builtin or record.distribution in BUILTIN_DISTRIBUTIONS):
            builtin.add(name)
    return PluginParts(
        hooks=setup.build_hooks(),
        tools=tools,
        builtin_tool_names=builtin,
        tool_owners={name: registered.plugin for name, registered in registrations.tools.items()},
        project_trusted=setup.pm.untrusted_project is None and setup.pm.project_allowed,
        commands=list(registrations.commands),
        providers=[registered.item for registered in registrations.providers],
        compaction_strategies={
            name: (registered.plugin, registered.item)
            for name, registered in registrations.compaction_strategies.items()
        },
        plugin_sources={name: _source_info(record) for name, record in setup.pm.records.items()},
        plugin_names=[
            name
            for name, record in setup.pm.records.items()
            if record.status == "active"
            and not record.builtin
            and record.distribution not in BUILTIN_DISTRIBUTIONS
        ],
        flag_values=dict(setup.flag_values),
        shortcuts=dict(registrations.shortcuts),
        message_renderers={
            kind: EntryRenderer(r.plugin, r.item) for kind, r in registrations.message_renderers.items()
        },
        entry_renderers={
            kind: EntryRenderer(r.plugin, r.item) for kind, r in registrations.entry_renderers.items()
        },
        tool_renderers=list(registrations.tool_renderers),
        markdown_transformers=list(registrations.markdown_transformers),
        reload=_plugin_reloader(setup) if reloadable else None,
    )


def _plugin_reloader(setup: PluginSetup) -> PluginReloader:
    """Load the plugins as ``setup`` did (same flags; its project or another one), keeping the
    flag values.

    Project code that changed since it was trusted is loaded only when ``confirm`` says yes
    (the trust is then recorded, as ``pi trust`` would); otherwise the reload goes on without it
    and says so among the problems.
    """
    from pi_core.cli.run import prepare_plugins_async
    from pi_core.plugins.trust import trust_project, untrusted_message

    async def reload(confirm: TrustConfirm | None, project: str | None = None) -> PluginParts:
        cwd = Path(project) if project is not None else setup.project
        # -e paths keep naming the files they named where pi was started.
        control = setup.control.anchored() if cwd != Path.cwd() else setup.control
        fresh = await prepare_plugins_async(control, cwd=cwd, trust_decisions=setup.trust_decisions)
        fresh.declined_trust = setup.declined_trust
        check = fresh.pm.untrusted_project
        if check is not None and confirm is not None and check.fingerprint not in setup.declined_trust:
            if await confirm(check):
                await asyncio.to_thread(trust_project, check.project, agent_dir())
                fresh = await prepare_plugins_async(control, cwd=cwd, trust_decisions=setup.trust_decisions)
                fresh.declined_trust = setup.declined_trust
            else:
                setup.declined_trust.add(check.fingerprint)
        fresh.flag_values = {
            name: setup.flag_values.get(name, spec.default)
            for name, spec in fresh.registrations.flags.items()
        }
        parts = plugin_parts(fresh)
        parts.problems = [str(problem) for problem in fresh.problems]
        if fresh.pm.untrusted_project is not None:
            parts.problems.append(untrusted_message(fresh.pm.untrusted_project))
        return parts

    return reload


#: Where a plugin came from (core's record) → pi's ``sourceInfo.scope``.
_SCOPES = {"flag": "temporary", "project": "project", "project settings": "project"}


def _source_info(record: Any) -> dict[str, str]:
    """pi's ``sourceInfo`` for a plugin: discovered files are ``auto``, -e and settings paths ``local``."""
    if record.source in ("project", "global"):
        source = "auto"
    elif record.source in ("flag", "project settings", "global settings"):
        source = "local"
    elif record.distribution:
        source = f"pypi:{record.distribution}"
    else:
        source = str(record.source)
    return {
        "path": str(record.path or record.where),
        "source": source,
        "scope": _SCOPES.get(record.source, "user"),
        "origin": "top-level",
    }


def runtime_options(
    options: RunOptions, cwd: str, session_path: str | None, *, trust_project: bool = False
) -> RuntimeOptions:
    from pi_core.runtime.host import RuntimeOptions, default_agent_dir

    session_dir = options.session_dir or os.environ.get("PI_CODING_AGENT_SESSION_DIR") or None
    return RuntimeOptions(
        cwd=cwd,
        agent_dir=default_agent_dir(),
        session_dir=os.path.expanduser(session_dir) if session_dir else None,
        no_session=options.no_session,
        continue_recent=options.continue_,
        session=session_path or options.session,
        fork=options.fork,
        session_id=options.session_id,
        session_name=options.name.strip() if options.name and options.name.strip() else None,
        provider=options.provider,
        model=options.model,
        api_key=options.api_key,
        thinking=options.thinking,
        models=options.models,
        tools=options.tools,
        exclude_tools=options.exclude_tools,
        no_tools=options.no_tools,
        no_builtin_tools=options.no_builtin_tools,
        skills=[os.path.abspath(p) for p in options.skills],
        prompt_templates=[os.path.abspath(p) for p in options.prompt_templates],
        themes=[os.path.abspath(p) for p in options.themes],
        no_skills=options.no_skills,
        no_prompt_templates=options.no_prompt_templates,
        no_themes=options.no_themes,
        no_context_files=options.no_context_files,
        system_prompt=options.system_prompt,
        append_system_prompt=list(options.append_system_prompt) or None,
        trust_project=trust_project,
    )


async def _read_piped_stdin() -> str | None:
    data = await asyncio.to_thread(sys.stdin.read)
    text = data.strip()
    return text or None


async def _run(
    setup: PluginSetup, options: RunOptions, app_mode: AppMode, stdin_tty: bool, out: IO[str]
) -> int:
    from pi_core.runtime.auth_guidance import no_model_message
    from pi_core.runtime.host import (
        MissingSessionCwdError,
        RuntimeHost,
        SessionInOtherProjectError,
        SessionNotFoundError,
    )

    session_path = None
    if options.resume:
        here = os.getcwd()
        session_path = await _pick_session(options, here, arrows=app_mode == "interactive" and _has_repl())
        if session_path is None:
            click.echo("No session selected", err=True)
            return 0
        setup = await _plugins_for_session(setup, session_path, app_mode)
    if app_mode == "interactive" and setup.pm.untrusted_project is not None and _has_repl():
        setup = await _confirm_trust(setup)
        if setup.problems:
            return 1
    # A project_trust plugin's yes trusts the project's program settings too, as --approve does;
    # so does "Trust (this session only)" at the trust question.
    trusted_now = (
        setup.control.trust_project
        or setup.pm.trust_decision is True
        or setup.trust_decisions.get(str(setup.project)) is True
    )
    # The project the plugins were loaded for: here, or where the chosen session was recorded.
    start = runtime_options(options, str(setup.project), session_path, trust_project=trusted_now)
    auth_problem = await asyncio.to_thread(_auth_file_problem, Path(start.agent_dir) / "auth.json")
    if auth_problem is not None:
        click.echo(auth_problem, err=True)
        return 1
    host = None
    while host is None:
        try:
            host = await RuntimeHost.create(start, plugin_parts(setup))
        except MissingSessionCwdError as missing:
            # As pi 1.6.0: the REPL asks what to do, every other mode refuses the file.
            if start.missing_cwd != "refuse" or app_mode != "interactive" or not _has_repl():
                click.echo(str(missing), err=True)
                return 1
            choice = await _ask_missing_cwd(missing)
            if choice is None:
                return 0
            start = replace(start, missing_cwd=choice)
        except SessionInOtherProjectError as elsewhere:
            if not await _confirm_fork_here(elsewhere):
                return 0
            start = replace(start, session=None, fork=elsewhere.session_file)
        except SessionNotFoundError as error:
            click.echo(str(error), err=True)
            return 1
    if options.list_models is not None:
        # As pi: listing comes before start-up diagnostics (only a models.json problem is shown).
        _list_models(host, options.list_models, out)
        await host.dispose()
        return 0
    for diagnostic in host.diagnostics:
        click.echo(f"{'Error' if diagnostic.kind == 'error' else 'Warning'}: {diagnostic.message}", err=True)
    if any(d.kind == "error" for d in host.diagnostics):
        await host.dispose()
        # An unknown model is a usage error like an unknown flag (status 2); the rest are pi's 1.
        return 2 if any(d.usage for d in host.diagnostics) else 1
    stdin_text = None
    if app_mode != "rpc" and not stdin_tty:
        stdin_text = await _read_piped_stdin()
        if stdin_text is not None and app_mode == "interactive":
            app_mode = "print"
    if app_mode == "interactive" and not _has_repl():
        click.echo(
            "Error: the interactive mode is not part of this build; use -p, --mode json or --mode rpc",
            err=True,
        )
        await host.dispose()
        return 1
    if host.session.model is None and app_mode != "interactive":
        # The REPL opens without a model (it says what to do, and /login is there).
        click.echo(no_model_message(host.services.model_registry), err=True)
        await host.dispose()
        return 1
    initial, images = await _initial_message(options, stdin_text, host)
    if initial is None and images is None:
        await host.dispose()
        return 1
    return await _run_mode(setup, host, app_mode, options, initial, images or [], out)


def wants_repl(messages: tuple[str, ...], params: dict[str, Any]) -> bool:
    """Whether this command line runs the REPL (the plugin gate lets the REPL ask about trust)."""
    options = run_options_from_params({**params, "args": messages})
    return options.app_mode(sys.stdin.isatty()) == "interactive" and _has_repl()


def _has_repl() -> bool:
    return importlib.util.find_spec("pi_core.modes.interactive") is not None


async def _plugins_for_session(setup: PluginSetup, session_path: str, app_mode: AppMode) -> PluginSetup:
    """The plugins for the project a picked session was recorded in (pi 1.6.0 runs it there);
    ``setup`` itself when that is the project they were loaded for."""
    from pi_core.cli.run import gate, prepare_plugins_async, recorded_project

    project = await asyncio.to_thread(recorded_project, Path(session_path))
    if project is None or project.resolve() == setup.project:
        return setup
    moved = await prepare_plugins_async(
        setup.control.anchored(), cwd=project, trust_decisions=setup.trust_decisions
    )
    moved.flag_values = dict(setup.flag_values)
    moved.declined_trust = setup.declined_trust
    gate(moved, interactive=app_mode == "interactive" and _has_repl())
    return moved


async def _confirm_fork_here(elsewhere: Any) -> bool:
    """``--session <id>`` of another project: fork it into this directory? (pi 1.6.0 asks on the
    terminal; no answer, as from a closed stdin, is no.)"""
    click.echo(str(elsewhere))
    click.echo("Fork this session into current directory? [y/N] ", nl=False)
    answer = await asyncio.to_thread(sys.stdin.readline)
    if answer.strip().lower() in ("y", "yes"):
        return True
    click.echo("\nAborted." if not answer else "Aborted.")
    return False


async def _confirm_trust(setup: PluginSetup) -> PluginSetup:
    """Ask whether to run the untrusted project's plugin code; reloads the plugins on yes."""
    from pi_core.modes.interactive.trust import confirm_project_trust
    from pi_core.runtime.host import default_agent_dir

    confirmed = await confirm_project_trust(setup, default_agent_dir())
    for problem in confirmed.problems:
        click.echo(f"pi: {problem}", err=True)
    return confirmed


async def _initial_message(options: RunOptions, stdin_text: str | None, host: Any) -> tuple[str | None, Any]:
    """stdin text + ``@file`` contents + the first message, concatenated as pi does."""
    from pi_core.runtime.resources import FileArgumentError, process_file_arguments

    parts: list[str] = []
    images: list[Any] = []
    if stdin_text:
        parts.append(stdin_text)
    if options.file_args:
        try:
            files = await process_file_arguments(
                options.file_args,
                os.getcwd(),  # where pi was started, also when the session runs in its own folder
                auto_resize_images=host.services.settings.settings.images.auto_resize,
            )
        except FileArgumentError as error:
            click.echo(f"Error: {error}", err=True)
            return None, None
        parts.append(files.text)
        images = list(files.images)
    if options.messages:
        parts.append(options.messages[0])
    return ("".join(parts) or None), images


async def _run_mode(
    setup: PluginSetup,
    host: Any,
    app_mode: AppMode,
    options: RunOptions,
    initial: str | None,
    images: list[Any],
    out: IO[str],
) -> int:
    def write_out(text: str) -> None:
        out.write(text)
        out.flush()

    def write_err(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    loop = asyncio.get_running_loop()
    task: asyncio.Task[int]
    if app_mode == "interactive":
        from pi_core.modes import interactive

        task = asyncio.ensure_future(
            interactive.run_interactive(
                host,
                initial,
                images,
                options.messages[1:],
                verbose=options.verbose,
                tui_mode=options.tui_mode,
                use_theme=options.use_theme,
            )
        )
    elif app_mode == "rpc":
        from pi_core.modes.rpc.mode import RpcMode

        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        task = asyncio.ensure_future(RpcMode(host, write_out).run(reader))
    else:
        from pi_core.modes.print_mode import run_print_mode

        task = asyncio.ensure_future(
            run_print_mode(
                host,
                mode="json" if app_mode == "json" else "text",
                initial_message=initial,
                initial_images=images,
                messages=options.messages[1:],
                write_out=write_out,
                write_err=write_err,
                retry_notices=sys.stderr.isatty(),
            )
        )
    exit_code: dict[str, int] = {}

    def on_signal(code: int) -> None:
        exit_code["code"] = code
        task.cancel()

    for sig, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        loop.add_signal_handler(sig, on_signal, code)
    aborting: list[asyncio.Task[None]] = []

    async def abort_then_stop() -> None:
        # The run is aborted as by Esc (the aborted reply is kept in the session), then the mode stops.
        if app_mode != "interactive" and host.session.is_streaming:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(host.session.abort(), 5)
        on_signal(EXIT_CODE)

    def on_interrupt() -> None:
        exit_code["code"] = EXIT_CODE
        aborting.append(asyncio.ensure_future(abort_then_stop()))

    try:
        # The first Ctrl+C ends the run at an await, never inside an import; pi then exits 130.
        with graceful(loop, on_interrupt):
            result = await task
        return exit_code.get("code", result)
    except asyncio.CancelledError:
        if "code" in exit_code:
            await host.dispose()
            return exit_code["code"]
        raise


def _auth_file_problem(path: Path) -> str | None:
    """A broken auth.json stops the run with one message; pi does not touch the file."""
    from pi_core.ai.auth import AuthStorage

    try:
        AuthStorage(path).read()
    except ValueError as error:
        return f"{error}\nFix the file or move it away (pi leaves it as it is), then start pi again."
    return None


def _list_models(host: Any, search: str, out: IO[str]) -> None:
    """pi's ``--list-models [search]``: the models that have credentials, as a table."""
    from pi_core.ai.resolve import format_model_list
    from pi_core.runtime.auth_guidance import docs_path

    registry = host.services.model_registry
    if registry.get_error():
        click.echo(f"Warning: errors loading models.json:\n{registry.get_error()}", err=True)
    out.write(format_model_list(registry.get_available(), search or None, str(docs_path())) + "\n")


async def _ask_missing_cwd(missing: Any) -> MissingCwdChoice | None:
    """Continue or fork a session whose stored cwd is gone (``None``: cancelled), from a list."""
    from pi_core.modes.interactive.picker import pick

    choices = missing.choices()
    index = await pick(missing.question, [label for label, _ in choices] + ["Cancel"])
    return None if index is None or index >= len(choices) else choices[index][1]


async def _pick_session(options: RunOptions, cwd: str, *, arrows: bool = False) -> str | None:
    """``--resume``: choose one of this project's sessions — from the REPL's arrow-key list when
    the REPL will run, else from a numbered list read off the terminal."""
    from pi_core.session.manager import SessionManager

    sessions = SessionManager.list_sessions(cwd, options.session_dir)
    if not sessions:
        click.echo("No sessions found for this project", err=True)
        return None
    if arrows:
        from pi_core.modes.interactive.resume_selector import choose_session

        async def load(scope: str) -> list[SessionInfo]:
            if scope == "current":
                return await asyncio.to_thread(SessionManager.list_sessions, cwd, options.session_dir)
            return await asyncio.to_thread(SessionManager.list_all, agent_dir())

        return await choose_session(load)
    for index, info in enumerate(sessions, 1):
        label = info.name or info.first_message.replace("\n", " ")[:60]
        click.echo(f"{index:3}. {info.modified:%Y-%m-%d %H:%M}  {_count(info):>4} msgs  {label}", err=True)
    click.echo("Resume which session? [1] ", err=True, nl=False)
    answer = await asyncio.to_thread(_read_tty_line)
    if answer is None:
        raise click.UsageError("--resume needs a terminal to choose from; use --session <id> instead")
    answer = answer.strip() or "1"
    if answer.isdigit() and 1 <= int(answer) <= len(sessions):
        return sessions[int(answer) - 1].path
    match = next((info for info in sessions if info.id.startswith(answer)), None)
    return match.path if match else None


def _read_tty_line() -> str | None:
    if sys.stdin.isatty():
        return sys.stdin.readline()
    try:
        with Path("/dev/tty").open() as tty:
            return tty.readline()
    except OSError:
        return None


def _count(info: Any) -> str:
    """A session's message count for a list; ``~`` marks an estimate (a very large file)."""
    return f"{'' if info.message_count_exact else '~'}{info.message_count}"
