"""pi-ext-todo: a todo tool whose list lives in the session and follows the branch."""

from __future__ import annotations
