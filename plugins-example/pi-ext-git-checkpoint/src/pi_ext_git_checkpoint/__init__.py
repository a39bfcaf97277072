"""pi-ext-git-checkpoint: a git checkpoint per turn, offered back on /fork and /tree."""

from __future__ import annotations
