"""The agent loop: ``loop`` (stateless, events out), ``agent`` (stateful Agent), ``events``, ``tools``."""

from __future__ import annotations
