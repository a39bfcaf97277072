"""pi-ext-permission-gate: confirm dangerous bash commands; block them where nobody can answer."""

from __future__ import annotations
