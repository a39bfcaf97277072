"""Ask in the REPL whether to run an untrusted project's plugin code (before the session starts).

Yes records the trust (``pi_core.plugins.trust.trust_project``, as ``pi trust`` does) and reloads
the plugins with the project's code; no goes on without it for this run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from pi_core.modes.interactive.dialogs import ask, yes

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from pi_core.ai.abort import AbortSignal
    from pi_core.cli.run import PluginSetup
    from pi_core.plugins.trust import TrustCheck


def describe(check: TrustCheck) -> Text:
    what = "changed since you trusted it" if check.status == "changed" else "is not trusted yet"
    text = Text(f"The project {check.project} has plugin code that {what}:\n", style="pi.warning.bold")
    for path in check.files or ():
        text.append(f"  {path}\n")
    if not check.files:
        text.append("  (plugins requested in .pi/settings.json)\n")
    return text


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
    from pi_core.plugins.trust import trust_project

    check = setup.pm.untrusted_project
    if check is None:
        return setup
    console = console or Console(highlight=False)
    console.print(describe(check), soft_wrap=True)
    answer = await ask("Trust this project and run its plugin code? [y/N] ", input=input, output=output)
    if not yes(answer):
        note = "Going on without the project's plugins (`pi trust` trusts it later)."
        console.print(Text(note, style="pi.dim"))
        setup.declined_trust.add(check.fingerprint)  # not asked again by every /reload or /new
        return setup
    trust_project(check.project, Path(agent_dir))
    reloaded = await prepare_plugins_async(
        setup.control, cwd=check.project, trust_decisions=setup.trust_decisions
    )
    reloaded.flag_values = setup.flag_values
    reloaded.declined_trust = setup.declined_trust
    console.print(
        Text(f"Trusted {check.project}; its plugins are loaded.", style="pi.success"), soft_wrap=True
    )
    return reloaded


class TerminalTrustDialogs:
    """``ctx.ui`` of a ``project_trust`` handler in a terminal, before the REPL exists: each
    dialog is one question on stdin/stdout (Escape or Ctrl+C answers nothing)."""

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
        choices = list(options)
        if not choices:
            return None
        self._console.print(Text(title, style="bold"), soft_wrap=True)
        for number, choice in enumerate(choices, 1):
            self._console.print(f"  {number}. {choice}", soft_wrap=True, markup=False)
        answer = await ask(
            "Number or text: ",
            choices=choices,
            timeout_ms=timeout,
            signal=signal,
            input=self._input,
            output=self._output,
        )
        if answer is None:
            return None
        answer = answer.strip()
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        return answer if answer in choices else None

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool:
        self._console.print(Text(title, style="bold"), soft_wrap=True)
        if message:
            self._console.print(Text(message), soft_wrap=True)
        return yes(
            await ask("[y/N] ", timeout_ms=timeout, signal=signal, input=self._input, output=self._output)
        )

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
