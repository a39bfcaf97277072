"""Problems found while loading resources: reported to the user, never fatal on their own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DiagnosticType = Literal["warning", "error", "collision"]


@dataclass(frozen=True)
class Collision:
    """Two resources of one kind with the same name: the first loaded wins."""

    resource_type: Literal["skill", "prompt", "theme"]
    name: str
    winner_path: str
    loser_path: str


@dataclass(frozen=True)
class ResourceDiagnostic:
    """One problem with one resource file or path (pi's ``ResourceDiagnostic``)."""

    type: DiagnosticType
    message: str
    path: str | None = None
    collision: Collision | None = None

    def __str__(self) -> str:
        return f"{self.message} ({self.path})" if self.path else self.message
