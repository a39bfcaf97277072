"""What every group of built-in commands shares: the mode, the current session, two ways to speak."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from pi_core.modes.interactive.app import InteractiveMode
    from pi_core.runtime.session import AgentSession


class CommandBase:
    def __init__(self, mode: InteractiveMode) -> None:
        self.mode = mode

    @property
    def _session(self) -> AgentSession:
        return self.mode.host.session

    def _info(self, text: str) -> None:
        self.mode.console.print(Text(text, style="pi.dim"))

    def _warn(self, text: str) -> None:
        self.mode.console.print(Text(text, style="pi.warning"))
