"""Plugin set-up for a run: load plugins, collect registrations, add plugin flags, gate on problems.

The runtime layer takes over after :func:`run_agent`'s gate with a :class:`PluginSetup`
(plugin manager, registrations, flag values, and ``build_hooks`` for the typed facade).
"""

from __future__ import annotations

import asyncio
import copy
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from pi_core.cli import flag_cache
from pi_core.cli.options import PluginControl, preparse, trust_mode

if TYPE_CHECKING:
    import pluggy

    from pi_core.errors import PluginLoadError
    from pi_core.plugins.dispatch import ErrorSink, HookErrorRecord, Hooks
    from pi_core.plugins.manager import PiPluginManager, TrustAsker
    from pi_core.plugins.registry import Registrations

_META_KEY = "pi.plugin_setup"


@dataclass
class PluginSetup:
    """Everything the runtime needs from plugin loading."""

    control: PluginControl
    pm: PiPluginManager
    registrations: Registrations
    #: Problems that stop a run: load failures, registration conflicts, flag clashes.
    problems: list[PluginLoadError] = field(default_factory=list)
    #: Values of plugin-registered flags after parsing (name without ``--`` -> value).
    flag_values: dict[str, Any] = field(default_factory=dict)
    #: Fingerprints of project plugin code the user declined to trust in this process (not asked
    #: again on every reload); shared by the setups of later reloads.
    declined_trust: set[str] = field(default_factory=set)
    #: Directories the ``project_trust`` hook was asked about in this process, with what a plugin
    #: decided (``None``: nobody did); pi asks once per directory and process. Shared likewise.
    trust_decisions: dict[str, bool | None] = field(default_factory=dict)
    #: The project the plugins were loaded for: the current directory, or the folder a
    #: ``--session`` file was recorded in (:func:`plugin_project`).
    project: Path = field(default_factory=Path.cwd)

    def build_hooks(self, on_error: ErrorSink | None = None, *, trace: IO[str] | None = None) -> Hooks:
        """A dispatcher + typed facade over this setup's plugins; tracing when ``--trace-hooks``."""
        from pi_core.plugins.dispatch import Dispatcher, Hooks

        dispatcher = Dispatcher(self.pm, on_error=on_error)
        if self.control.trace_hooks:
            dispatcher.monitor(*make_tracer(trace or sys.stderr))
        return Hooks(dispatcher)


def prepare_plugins(
    control: PluginControl, *, cwd: Path | None = None, args: Sequence[str] = ()
) -> PluginSetup:
    """Load plugins per ``control`` and run their registration hooks (outside an event loop);
    ``args`` (raw argv) tells ``project_trust`` handlers the mode and whether they may ask."""
    mode = trust_mode(args)
    has_ui = mode == "tui" and sys.stdin.isatty() and sys.stdout.isatty()
    return asyncio.run(prepare_plugins_async(control, cwd=cwd, trust_mode=mode, trust_ui=has_ui))


async def prepare_plugins_async(
    control: PluginControl,
    *,
    cwd: Path | None = None,
    trust_decisions: dict[str, bool | None] | None = None,
    trust_mode: str = "tui",
    trust_ui: bool = False,
) -> PluginSetup:
    """:func:`prepare_plugins` for callers already in an event loop (``/reload``, tests).

    ``trust_decisions`` (a setup's, shared by its reloads) keeps the ``project_trust`` hook to
    one question per directory; ``trust_ui`` lets its handlers ask at the terminal.
    """
    from pi_core.plugins.manager import LoadOptions, load_plugins_async
    from pi_core.plugins.registry import collect_registrations

    decisions = {} if trust_decisions is None else trust_decisions
    project = (cwd or plugin_project(control)).resolve()
    options = LoadOptions(
        cwd=project,
        extension_paths=control.extensions,
        no_extensions=control.no_extensions,
        trust_project=control.trust_project,
        ignore_project=control.no_approve and not control.trust_project,
        trust_decision=decisions.get(str(project)),
    )
    asker = None if str(project) in decisions else _trust_asker(decisions, trust_mode, trust_ui)
    pm = await load_plugins_async(options, ask_trust=asker)
    registrations = await collect_registrations(pm)
    problems = [*pm.load_errors, *registrations.errors]
    return PluginSetup(control, pm, registrations, problems, trust_decisions=decisions, project=project)


def plugin_project(control: PluginControl) -> Path:
    """The folder a run works in: where the ``--session`` file was recorded, when that file exists
    and its folder still does (pi 1.6.0 runs such a session there, with that project's settings,
    context files and plugins), else the current directory."""
    here = Path.cwd()
    if control.session is None:
        return here
    candidate = Path(control.session).expanduser()
    if not candidate.is_file():
        return here  # an id: this project's sessions first, another project's are forked here
    return recorded_project(candidate) or here


def recorded_project(session_file: Path) -> Path | None:
    """The folder a session file's header records, when it still exists (only the header is read)."""
    from pi_core.session.manager import peek_header_cwd

    stored = peek_header_cwd(session_file)
    return Path(stored) if stored and Path(stored).is_dir() else None


def _trust_asker(decisions: dict[str, bool | None], mode: str, has_ui: bool) -> TrustAsker:
    """The ``project_trust`` hook over the plugins loaded so far; a ``remember`` answer is recorded."""

    async def ask(pm: PiPluginManager, cwd: Path) -> bool | None:
        from pi_core._paths import agent_dir
        from pi_core.plugins.context import ProjectTrustContext, ProjectTrustUI
        from pi_core.plugins.dispatch import Dispatcher, Hooks
        from pi_core.plugins.events import ProjectTrustEvent
        from pi_core.plugins.trust import decline_project, trust_project
        from pi_core.runtime.ui import HeadlessUI

        hooks = Hooks(Dispatcher(pm, on_error=_echo_hook_error))
        if not hooks.has("project_trust"):
            return None
        # Where nobody can answer: dialogs answer nothing at once, notifications go to stderr.
        ui: ProjectTrustUI = HeadlessUI(on_notify=lambda message, _type: click.echo(message, err=True))
        if has_ui:
            from pi_core.modes.interactive.trust import TerminalTrustDialogs

            ui = TerminalTrustDialogs()
        context = ProjectTrustContext(str(cwd), mode, has_ui, ui)
        result = await hooks.project_trust(ProjectTrustEvent(cwd=str(cwd)), context)
        decided = None if result is None else result.trusted == "yes"
        decisions[str(cwd)] = decided
        if result is not None and result.remember:
            record = trust_project if decided else decline_project
            try:
                await asyncio.to_thread(record, cwd, agent_dir())
            except OSError as error:
                click.echo(f"pi: could not record the trust decision: {error.strerror or error}", err=True)
        return decided

    return ask


def _echo_hook_error(record: HookErrorRecord) -> None:
    from pi_core.errors import error_message

    click.echo(f"Extension error ({record.plugin}, {record.hook}): {error_message(record.error)}", err=True)


def make_tracer(
    stream: IO[str],
) -> tuple[
    Callable[[str, list[pluggy.HookImpl], dict[str, Any]], None],
    Callable[[pluggy.Result[Any], str, list[pluggy.HookImpl], dict[str, Any]], None],
]:
    """``before``/``after`` monitors printing ``hook plugin duration`` per handler call."""
    started: list[float] = []

    def before(hook: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]) -> None:
        started.append(time.perf_counter())

    def after(
        outcome: pluggy.Result[Any], hook: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> None:
        elapsed = (time.perf_counter() - started.pop()) * 1000 if started else 0.0
        failed = " raised " + type(outcome.exception).__name__ if outcome.exception else ""
        plugin = impls[0].plugin_name if impls else "?"
        stream.write(f"[pi hook] {hook} plugin={plugin} {elapsed:.3f} ms{failed}\n")
        stream.flush()

    return before, after


def command_with_plugin_flags(ctx: click.Context, command: click.Command, args: list[str]) -> click.Command:
    """Load plugins for ``run`` (once per context) and return ``command`` with their flags added.

    What the plugins registered is also written to the flag cache ``pi --help`` reads.
    """
    from pi_core.errors import PluginLoadError

    control = preparse(args)
    if control.session is not None:
        control = control.anchored()
    # Taken before loading, so that a change meanwhile shows.
    snapshot = flag_cache.try_snapshot(control, plugin_project(control))
    setup = prepare_plugins(control, args=args)
    ctx.meta[_META_KEY] = setup
    taken = {opt for param in command.params for opt in getattr(param, "opts", [])}
    usable, clashing = flag_cache.usable_flags(setup.registrations.flags.values(), taken)
    for flag in clashing:
        record = setup.pm.records.get(flag.plugin)
        setup.problems.append(
            PluginLoadError(
                plugin=flag.plugin,
                source=record.source if record else "plugin",
                location=record.where if record else None,
                problem=f"flag --{flag.name} clashes with one of pi's own options",
            )
        )
    if snapshot is not None:
        untrusted = setup.pm.untrusted_project
        flag_cache.store(
            snapshot,
            usable,
            untrusted_project=str(untrusted.project) if untrusted is not None else None,
            problems=len(setup.problems),
            files=flag_cache.plugin_files(setup.pm),
        )
    if not usable:
        return command
    extended = copy.copy(command)
    extended.params = [*command.params, *(flag_cache.flag_option(flag) for flag in usable)]
    return extended


def gate(setup: PluginSetup, *, interactive: bool = False) -> None:
    """Stop (exit status 1) when plugins failed or the project's plugin code is not trusted.

    A broken settings.json does not stop a run: its lists count as empty, and its error is shown
    once — by the runtime when the run goes on, here when it does not.

    A missing plugin must not go unnoticed (a permission gate, for one). In interactive mode the
    REPL asks about trust itself (``pi_core.plugins.trust``) before calling this.
    """
    for problem in setup.problems:
        click.echo(f"pi: {problem}", err=True)
    untrusted = setup.pm.untrusted_project
    if untrusted is not None and not interactive:
        from pi_core.plugins.trust import untrusted_message

        click.echo(f"pi: {untrusted_message(untrusted)}", err=True)
    if setup.problems or (untrusted is not None and not interactive):
        # Past the gate the runtime's settings manager reports broken settings files; here nobody would.
        for settings_problem in setup.pm.settings_errors:
            click.echo(f"Warning: {settings_problem}", err=True)
        count = len(setup.problems)
        reason = f"{count} plugin problem(s)" if count else "untrusted project plugin code"
        click.echo(f"pi: not starting because of {reason}. `pi plugins` shows what is loaded.", err=True)
        raise SystemExit(1)


def run_agent(ctx: click.Context, messages: tuple[str, ...], options: dict[str, Any]) -> None:
    """The default command: plugin gate, then the session (wired in by the runtime layer)."""
    setup: PluginSetup | None = ctx.meta.get(_META_KEY)
    if setup is None:
        control = PluginControl.from_options(options)
        setup = prepare_plugins(control.anchored() if control.session is not None else control)
    setup.flag_values = {name: options.get(name.replace("-", "_")) for name in setup.registrations.flags}
    from pi_core.cli.agent_run import start_agent, wants_repl

    gate(setup, interactive=wants_repl(messages, options))

    raise SystemExit(start_agent(setup, messages, options))
