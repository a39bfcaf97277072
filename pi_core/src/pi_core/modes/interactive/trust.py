"""Ask in the REPL whether to run an untrusted project's plugin code (before the session starts).

The question is pi 1.6.0's project-trust selector, an arrow-key list under the project's folder
and the files that would run: **Trust** records the trust (``pi_core.plugins.trust.trust_project``,
as ``pi trust`` does) and reloads the plugins with the project's code; **Trust (this session
only)** reloads them without recording anything (as ``--trust-project``, also for ``/reload`` and
``/new`` in this process); **Do not trust** records the refusal (the project is not asked about
again until ``pi trust`` or ``pi untrust``); **Do not trust (this session only)** and Esc go on
without the project's code for this run. pi's "Trust parent folder" is not offered: trust here
is a fingerprint of one project's code, and a whole folder of projects has no such fingerprint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from pi_core.modes.interactive.dialogs import ask
from pi_core.modes.interactive.sanitize import sanitize

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from pi_core.ai.abort import AbortSignal
    from pi_core.cli.run import PluginSetup
    from pi_core.plugins.trust import TrustCheck

#: The choices, as pi 1.6.0's selector words them (its parent-folder one left out).
TRUST, TRUST_SESSION, DISTRUST, DISTRUST_SESSION = (
    "Trust",
    "Trust (this session only)",
    "Do not trust",
    "Do not trust (this session only)",
)
TRUST_CHOICES = (TRUST, TRUST_SESSION, DISTRUST, DISTRUST_SESSION)


def trust_question(check: TrustCheck) -> str:
    """The selector's title: pi's question and the folder, then what trusting it would run."""
    if check.status == "changed":
        why = "Its plugin code changed since you trusted it. Trusting it (again) lets pi run:"
    else:
        why = "It has plugin code that is not trusted yet. Trusting it lets pi run:"
    listed = [f"  {path}" for path in check.files]
    if check.programs:
        listed.append(f"  .pi/settings.json: {', '.join(check.programs)} (programs pi would run)")
    if not listed:
        listed.append("  (plugins requested in .pi/settings.json)")
    return "\n".join(["Trust project folder?", str(check.project), "", why, *listed])


async def confirm_project_trust(
    setup: PluginSetup,
    agent_dir: str,
    *,
    console: Console | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> PluginSetup:
    """The plugin setup to run with: reloaded with the project's code if the user trusts it."""
    from pi_core.cli.run import prepare_plugins_async
    from pi_core.modes.interactive.picker import pick
    from pi_core.plugins.trust import decline_project, trust_project

    check = setup.pm.untrusted_project
    if check is None:
        return setup
    console = console or Console(highlight=False)
    index = await pick(trust_question(check), TRUST_CHOICES, input=input, output=output)
    choice = DISTRUST_SESSION if index is None else TRUST_CHOICES[index]
    if choice in (TRUST, DISTRUST):
        try:
            if choice == TRUST:
                await asyncio.to_thread(trust_project, check.project, Path(agent_dir))
            else:
                await asyncio.to_thread(decline_project, check.project, Path(agent_dir))
        except OSError as error:  # an unwritable agent dir: the answer holds for this run only
            console.print(
                Text(f"Could not record the trust decision: {error.strerror or error}", style="pi.warning"),
                soft_wrap=True,
            )
            choice = TRUST_SESSION if choice == TRUST else DISTRUST_SESSION
    if choice in (DISTRUST, DISTRUST_SESSION):
        if choice == DISTRUST:
            note = f"Not trusting {check.project}: its plugins stay off (`pi trust` trusts it later)."
        else:
            note = "Going on without the project's plugins (`pi trust` trusts it later)."
        console.print(Text(note, style="pi.dim"), soft_wrap=True)
        setup.declined_trust.add(check.fingerprint)  # not asked again by every /reload or /new
        return setup
    if choice == TRUST_SESSION:  # for this process: its reloads load the code too, nothing recorded
        setup.trust_decisions[str(check.project)] = True
    reloaded = await prepare_plugins_async(
        setup.control, cwd=check.project, trust_decisions=setup.trust_decisions
    )
    reloaded.flag_values = setup.flag_values
    reloaded.declined_trust = setup.declined_trust
    when = "" if choice == TRUST else " for this session"
    console.print(
        Text(f"Trusted {check.project}{when}; its plugins are loaded.", style="pi.success"), soft_wrap=True
    )
    return reloaded


class TerminalTrustDialogs:
    """``ctx.ui`` of a ``project_trust`` handler in a terminal, before the REPL exists: ``select``
    and ``confirm`` are the REPL's arrow-key lists (a Yes/No one for ``confirm``, as pi asks it
    there), ``input`` one question on stdin/stdout; Escape or Ctrl+C answers nothing."""

    def __init__(
        self, console: Console | None = None, *, input: Input | None = None, output: Output | None = None
    ) -> None:
        self._console = console or Console(highlight=False, stderr=True)
        self._input = input
        self._output = output

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - pi's dialog API (ms)
    ) -> str | None:
        from pi_core.modes.interactive.picker import pick

        choices = list(options)
        if not choices:
            return None
        shown = [sanitize(str(choice)) for choice in choices]
        index = await pick(
            sanitize(title), shown, timeout_ms=timeout, signal=signal, input=self._input, output=self._output
        )
        return None if index is None else choices[index]

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool:
        from pi_core.modes.interactive.picker import pick

        question = sanitize(title) + (f"\n{sanitize(message)}" if message else "")
        index = await pick(
            question,
            ["Yes", "No"],
            timeout_ms=timeout,
            signal=signal,
            input=self._input,
            output=self._output,
        )
        return index == 0

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> str | None:
        self._console.print(Text(title, style="bold"), soft_wrap=True)
        return await ask(
            "> ",
            placeholder=placeholder,
            timeout_ms=timeout,
            signal=signal,
            input=self._input,
            output=self._output,
        )

    def notify(self, message: str, type: str = "info") -> None:
        style = {"error": "red", "warning": "yellow"}.get(type, "cyan")
        self._console.print(Text(message, style=style), soft_wrap=True)
