"""Test kit for pi and its plugins (a pytest plugin, entry point ``pytest11``).

Defines no autouse fixtures: installing pi-core must not change anybody else's test runs.
"""

from __future__ import annotations
